// `--feature-gates` as a user meets it: a gateway with APIListChunking=false answers a `limit`
// list whole (kubectl --chunk-size included), alpha fields (procMount) stay off until their gate
// is on, a disabled beta feature (inline csi volumes) is refused, and a bad setting stops the
// gateway's start with the reason. One cluster with every gate at its default, and beside it a
// second gateway on the same NATS started as a user starts it (services/gateway/main.ts) with
// gates set, so each check compares the two over the same storage.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import https from 'node:https';
import { freePort } from '../../shared/local/nats-server.js';
import { gatewayTls, startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../support/processes.js';
import { assertOk, assertStatus, uniq } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GATES = 'APIListChunking=false,ProcMountType=true,CSIInlineVolume=false';

/** What the checks use of a gateway: its URL, a kubeconfig for it, and admin requests. */
interface Api {
  url: string;
  kubeconfigPath: string;
  request(method: string, path: string, opts?: { body?: unknown }): Promise<{ status: number; headers: Headers; text: string; json: any }>;
}

function startGateway(args: string[]): Proc {
  return spawnProcess(['--import', 'tsx', 'services/gateway/main.ts', ...args], { cwd: root, env: cleanEnv() });
}

async function stopProcess(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  if (!(await exitWithin(p, 5_000))) p.child.kill('SIGKILL');
}

function pod(name: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }], ...spec } };
}

async function namespaceWithPods(c: Api, count: number): Promise<string> {
  const ns = uniq('gates');
  assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
  for (let i = 0; i < count; i++) assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(`p${i}`) }), 201);
  return ns;
}

describe('feature gates', { timeout: 120_000 }, () => {
  let defaults: TestCluster;
  let gated: Api;
  let gatedProc: Proc | undefined;
  let dir: string;

  before(async () => {
    defaults = await startTestCluster();
    dir = await mkdtemp(path.join(os.tmpdir(), 'feature-gates-'));
    const port = await freePort();
    // HTTPS: kubectl sends no bearer token over plain HTTP (the flag given twice, as upstream's accumulates).
    const tls = await gatewayTls(defaults, dir);
    gatedProc = startGateway([`--nats-url=${defaults.nats.url}`, `--secure-port=${port}`, ...tls.args, `--feature-gates=${GATES}`, '--feature-gates', 'ServerSideApply=true']);
    await gatedProc.waitFor(/gateway serving/, 30_000);
    const url = `https://127.0.0.1:${port}`;
    const kubeconfigPath = await tls.kubeconfig(url);
    gated = {
      url,
      kubeconfigPath,
      request: (method, p, o = {}) =>
        new Promise((resolve, reject) => {
          const body = o.body === undefined ? undefined : JSON.stringify(o.body);
          const headers: Record<string, string> = { authorization: `Bearer ${defaults.adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
          const req = https.request(url + p, { method, headers, ca: defaults.caPem, agent: false }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString();
              let json: unknown;
              try {
                json = JSON.parse(text);
              } catch {
                json = undefined;
              }
              const h = new Headers();
              for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
              resolve({ status: res.statusCode ?? 0, headers: h, text, json });
            });
            res.on('error', reject);
          });
          req.on('error', reject);
          req.end(body);
        }),
    };
  });
  after(async () => {
    await stopProcess(gatedProc);
    await defaults?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('feature gates - with APIListChunking=false a ?limit=1 list returns every item and no continue token', async () => {
    for (const [c, want] of [
      [defaults, { items: 1, continued: true, remaining: 2 }],
      [gated, { items: 3, continued: false, remaining: undefined }],
    ] as const) {
      const ns = await namespaceWithPods(c, 3);
      const page = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/pods?limit=1`));
      assert.equal(page.items.length, want.items);
      assert.equal(Boolean(page.metadata.continue), want.continued);
      assert.equal(page.metadata.remainingItemCount, want.remaining);
    }
    // Ignored means ignored: a continue token beside a resourceVersion is no 400 either.
    const ns = await namespaceWithPods(gated, 1);
    assert.equal(assertOk(await gated.request('GET', `/api/v1/namespaces/${ns}/pods?limit=1&continue=bogus&resourceVersion=1`)).items.length, 1);
  });

  test('feature gates - kubectl get pods --chunk-size=1 gets every pod, in one request when chunking is off', async (t) => {
    const bin = findKubectl();
    if (!bin) return t.skip('kubectl not on PATH');
    for (const [c, requests] of [
      [defaults, 3],
      [gated, 1],
    ] as const) {
      const ns = await namespaceWithPods(c, 3);
      const r = await new Kubectl(bin, c.kubeconfigPath).run(['get', 'pods', '-n', ns, '--chunk-size=1', '-o', 'name', '-v=6']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.stdout.trim().split('\n'), ['pod/p0', 'pod/p1', 'pod/p2']);
      const lists = r.stderr.split('\n').filter((l) => l.includes(`GET ${c.url}/api/v1/namespaces/${ns}/pods?`));
      assert.equal(lists.length, requests, lists.join('\n'));
    }
  });

  test('feature gates - procMount is stored as Default unless ProcMountType=true', async () => {
    for (const [c, want] of [
      [defaults, 'Default'],
      [gated, 'Unmasked'],
    ] as const) {
      const name = uniq('procmount');
      const spec = { containers: [{ name: 'app', image: 'registry.example/app:1', securityContext: { procMount: 'Unmasked' } }] };
      assertOk(await c.request('POST', '/api/v1/namespaces/default/pods', { body: pod(name, spec) }), 201);
      const stored = assertOk(await c.request('GET', `/api/v1/namespaces/default/pods/${name}`));
      assert.equal(stored.spec.containers[0].securityContext.procMount, want);
    }
  });

  test('feature gates - CSIInlineVolume=false refuses a pod with an inline csi volume and drops PodSecurityPolicy allowedCSIDrivers', async () => {
    const csiPod = (name: string) => pod(name, { volumes: [{ name: 'inline', csi: { driver: 'csi.example.com' } }] });
    assertOk(await defaults.request('POST', '/api/v1/namespaces/default/pods', { body: csiPod(uniq('csi')) }), 201);
    const refused = assertStatus(await gated.request('POST', '/api/v1/namespaces/default/pods', { body: csiPod(uniq('csi')) }), 422, 'Invalid');
    assert.deepEqual(
      refused.details.causes.map((c: any) => [c.field, c.message]),
      [['spec.volumes[0]', 'Required value: must specify a volume type']],
    );

    const psp = {
      apiVersion: 'policy/v1beta1',
      kind: 'PodSecurityPolicy',
      spec: {
        seLinux: { rule: 'RunAsAny' },
        runAsUser: { rule: 'RunAsAny' },
        supplementalGroups: { rule: 'RunAsAny' },
        fsGroup: { rule: 'RunAsAny' },
        allowedCSIDrivers: [{ name: 'csi.example.com' }],
        allowedProcMountTypes: ['Default', 'Unmasked'],
      },
    };
    for (const [c, want] of [
      [defaults, ['allowedCSIDrivers']],
      [gated, ['allowedProcMountTypes']],
    ] as const) {
      const created = assertOk(await c.request('POST', '/apis/policy/v1beta1/podsecuritypolicies', { body: { ...psp, metadata: { name: uniq('psp') } } }), 201);
      assert.deepEqual(
        Object.keys(created.spec)
          .filter((k) => k.startsWith('allowed'))
          .sort(),
        want,
      );
    }
  });

  test('feature gates - the gateway process refuses a bad --feature-gates with exit 2 and the reason', async () => {
    const port = await freePort();
    const cases: Array<{ args: string[]; env?: Record<string, string>; messages: RegExp[] }> = [
      { args: ['--feature-gates=Nope=true'], messages: [/unrecognized feature gate: Nope; known feature gates: .*APIListChunking/] },
      {
        args: [],
        env: { PLATFORM_FEATURE_GATES: 'RuntimeClass=false,DryRun=false' },
        messages: [/cannot set feature gate RuntimeClass to false, feature is locked to true/, /cannot set feature gate DryRun to false, feature is locked to true/],
      },
    ];
    // No NATS behind the URL: the flag is checked before the gateway connects.
    const procs = cases.map((c) => spawnProcess(['--import', 'tsx', 'services/gateway/main.ts', `--nats-url=nats://127.0.0.1:${port}`, ...c.args], { cwd: root, env: cleanEnv(c.env) }));
    for (const [i, p] of procs.entries()) {
      const status = await exitWithin(p, 30_000);
      assert.deepEqual(status, { code: 2, signal: null }, tail(p.output()));
      assert.match(p.output(), /^gateway: invalid argument ".*" for "--feature-gates" flag: /m);
      for (const m of cases[i]!.messages) assert.match(p.output(), m);
    }
  });

  test('feature gates - setting a GA gate works and the gateway logs that the gate will go', () => {
    assert.match(gatedProc!.output(), /"level":40,.*"msg":"Setting GA feature gate ServerSideApply=true\. It will be removed in a future release\."/);
  });
});
