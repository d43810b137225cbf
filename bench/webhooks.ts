// Create rate with admission webhooks: ConfigMap creates through the gateway with no webhook, one
// and three matching validating webhooks (called in parallel) and three matching mutating ones
// (called in order), all allowing everything, each figure as a ratio to the rate with none. The
// webhooks run in their own process (webhook-proc.ts) on loopback HTTPS; configurations are
// switched between rounds, and a round starts only once the switch is in effect (each webhook
// refuses its own probe name, so a probe create tells whether it is being called).

import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { createCA, issueServingCert } from '../shared/local/pki.js';
import { RUN_COMPILED, type BenchCluster } from './cluster.js';
import type { Cleanup } from './cleanup.js';
import type { HttpClient } from './http.js';
import { closedLoop, roundRatio, combine, type LoadOptions, type LoadResult } from './load.js';
import { cpuByRole } from './machine.js';
import { spawnNode } from './procs.js';
import { rate, ms, type Row } from './report.js';
import { configMapWrites } from './writes.js';

const G = 'admissionregistration.platform.io';
const NAMESPACE = 'bench-webhooks';
const CONFIG = 'bench-webhooks';

interface Variant {
  label: string;
  kind: 'validating' | 'mutating';
  count: number;
}

const VARIANTS: Variant[] = [
  { label: 'none', kind: 'validating', count: 0 },
  { label: '1 validating webhook', kind: 'validating', count: 1 },
  { label: '3 validating webhooks (in parallel)', kind: 'validating', count: 3 },
  { label: '3 mutating webhooks (in order)', kind: 'mutating', count: 3 },
];

const plural = (kind: Variant['kind']) => `${kind}webhookconfigurations`;

/**
 * The table rows, and the combined runs that had failed requests (for the error report);
 * `oneValidatingRatio`: the least share of the create rate left with one validating webhook.
 */
export async function webhookCreateRates(
  c: BenchCluster,
  gw: HttpClient,
  cleanup: Cleanup,
  progress: (msg: string) => void,
  load: LoadOptions & { rounds: number; oneValidatingRatio: number },
): Promise<{ rows: Row[]; failed: LoadResult[] }> {
  const { rounds } = load;
  const ca = await createCA('platform-bench-webhook-ca');
  const serving = await issueServingCert(ca, { dnsNames: [], ipAddresses: ['127.0.0.1'] });
  const certFile = path.join(c.dir, 'webhook.crt');
  const keyFile = path.join(c.dir, 'webhook.key');
  await writeFile(certFile, serving.certPem);
  await writeFile(keyFile, serving.keyPem, { mode: 0o600 });
  const proc = spawnNode('webhooks', 'bench/webhook-proc.ts', ['--cert', certFile, '--key', keyFile], { compiled: RUN_COMPILED });
  cleanup.defer('stop webhooks', () => proc.stop());
  c.pids.push(proc.proc.pid!);
  const port = Number((await proc.waitForLine(/^listening \d+/, 30_000)).split(' ')[1]);
  await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE, labels: { bench: 'webhooks' } } }, [201, 409]);

  const webhook = (i: number) => ({
    name: `hook-${i}.bench.platform.io`,
    clientConfig: { url: `https://127.0.0.1:${port}/hook-${i}`, caBundle: Buffer.from(ca.certPem).toString('base64') },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { bench: 'webhooks' } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
  });
  let probes = 0;
  const probeRefused = async (i: number) =>
    (await gw.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `probe-${i}-${probes++}` } }))))
      .status === 403;

  const configure = async (v: Variant) => {
    for (const kind of ['validating', 'mutating'] as const) await gw.json('DELETE', `/apis/${G}/v1/${plural(kind)}/${CONFIG}`, undefined, [200, 404]);
    if (v.count > 0) {
      const kind = v.kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
      await gw.json('POST', `/apis/${G}/v1/${plural(v.kind)}`, { apiVersion: `${G}/v1`, kind, metadata: { name: CONFIG }, webhooks: Array.from({ length: v.count }, (_, i) => webhook(i)) }, [201]);
    }
    const until = Date.now() + 15_000;
    for (let i = 0; i < 3; i++) {
      while ((await probeRefused(i)) !== i < v.count) {
        if (Date.now() > until) throw new Error(`webhook configuration "${v.label}" not in effect after 15 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };

  const results = new Map<Variant, LoadResult[]>(VARIANTS.map((v) => [v, []]));
  // One untimed pass per variant first, as `interleaved` does: the webhook path needs warming up too.
  for (const v of VARIANTS) {
    progress(`webhooks: warming up with ${v.label}`);
    await configure(v);
    await closedLoop(configMapWrites(gw, NAMESPACE, `warm-${v.count}${v.kind[0]}`).create, { ...load, warmupMs: 0, durationMs: load.warmupMs + load.durationMs });
  }
  for (let r = 0; r < rounds; r++) {
    for (const v of VARIANTS) {
      progress(`webhooks: round ${r + 1}/${rounds}, ${v.label}`);
      await configure(v);
      results.get(v)!.push(await closedLoop(configMapWrites(gw, NAMESPACE, `wh-${v.count}${v.kind[0]}`).create, load));
    }
  }
  const roles = { ...c.roles, webhooks: [proc.proc.pid!] };
  const cpu = await cpuPerCreate(VARIANTS.slice(0, 2), rounds, {
    roles,
    shown: [...c.systemRoles, 'webhooks', 'nats-server'],
    prepare: (v) => (progress(`webhooks: CPU per create, ${v.label}`), configure(v)),
    run: async (v) => (await closedLoop(configMapWrites(gw, NAMESPACE, `cpu-${v.count}`).create, { ...load, warmupMs: 0 })).ops,
  });
  await configure(VARIANTS[0]!);

  const out = webhookRows(results, load);
  out.rows.push(...cpu);
  return out;
}

/**
 * Where the CPU of one create goes, process by process, summed over interleaved rounds of each
 * variant (`prepare` puts one in effect, unmeasured; `run` loads it and returns its creates): the
 * rates move with the machine's other load, CPU per create much less.
 */
async function cpuPerCreate(
  variants: Variant[],
  rounds: number,
  p: { roles: Record<string, number[]>; shown: string[]; prepare: (v: Variant) => Promise<void>; run: (v: Variant) => Promise<number> },
): Promise<Row[]> {
  const sums = variants.map((v) => ({ v, ops: 0, ms: Object.fromEntries(p.shown.map((role) => [role, 0])) }));
  for (let r = 0; r < rounds; r++) {
    for (const m of sums) {
      await p.prepare(m.v);
      const before = cpuByRole(p.roles);
      m.ops += await p.run(m.v);
      const after = cpuByRole(p.roles);
      for (const role of p.shown) m.ms[role]! += after[role]! - before[role]!;
    }
  }
  return sums.map((m) => {
    const us = (role: string) => (m.ms[role]! * 1000) / Math.max(1, m.ops);
    const total = p.shown.reduce((a, role) => a + us(role), 0);
    return { figure: `CPU per create (µs, by process), ${m.v.label}`, measured: `${Math.round(total)} µs: ${p.shown.map((role) => `${role} ${Math.round(us(role))}`).join(' · ')}` };
  });
}

/** Each variant's combined rounds as a row, with its ratio to no webhook, round by round. */
function webhookRows(results: Map<Variant, LoadResult[]>, load: LoadOptions & { oneValidatingRatio: number }): { rows: Row[]; failed: LoadResult[] } {
  const none = results.get(VARIANTS[0]!)!;
  const base = combine(none);
  const rows: Row[] = [{ figure: `create in a namespace webhooks may select, no webhook (c=${load.concurrency})`, measured: `${rate(base.rate)} p99 ${ms(base.p99Ms)}` }];
  const failed = [base].filter((x) => x.errors > 0);
  for (const v of VARIANTS.slice(1)) {
    const runs = results.get(v)!;
    const got = combine(runs);
    if (got.errors > 0) failed.push(got);
    const ratio = roundRatio(runs, none);
    const targeted = v.kind === 'validating' && v.count === 1;
    rows.push({
      figure: `create with ${v.label}, allow-all (c=${load.concurrency})`,
      measured: `${rate(got.rate)} p99 ${ms(got.p99Ms)}`,
      limit: `no webhook ${rate(base.rate)}`,
      ratio,
      ...(targeted ? { target: `≥ ${load.oneValidatingRatio} (costs ≤ ${Math.round((1 - load.oneValidatingRatio) * 100)} %)`, ok: ratio >= load.oneValidatingRatio } : {}),
    });
  }
  return { rows, failed };
}
