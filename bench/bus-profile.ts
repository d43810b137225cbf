// The bus's share of CPU (issue 35 §4): the system in its own processes, every child profiled
// (--cpu-prof), a closed loop of ConfigMap creates, then updates, then GETs (consistent and at
// resourceVersion=0), each in its own time window; afterwards each process's profile is cut into
// those windows and split into bus message encode/decode, the bucket value's JSON, the NATS client
// and the rest (bus-share.ts). Prints CPU per operation of each part, per process and load.
//
//   npx tsx bench/bus-profile.ts            (compiled build; BENCH_TSX=1 runs the sources)

import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startBenchCluster, type BenchCluster } from './cluster.js';
import { Cleanup } from './cleanup.js';
import { HttpClient } from './http.js';
import { closedLoop, type LoadOptions, type Operation } from './load.js';
import { configMapWrites } from './writes.js';
import { getOp } from './reads.js';
import { BusPart, busShare, type WindowShare } from './bus-share.js';
import { ensureCompiledBuild } from './build.js';
import { RUN_COMPILED } from './cluster.js';

const LOAD: LoadOptions = { concurrency: 32, warmupMs: 1_000, durationMs: 4_000 };
const NAMESPACE = 'bus-profile';
const ROLES = ['gateway', 'storage', 'admission', 'authn', 'authz'];

interface Window {
  name: string;
  fromUs: number;
  toUs: number;
  ops: number;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** One load in a window of its own (the warm-up outside it). */
async function measure(name: string, op: Operation): Promise<Window> {
  const start = nowUs();
  const r = await closedLoop(op, LOAD);
  if (r.errors) throw new Error(`${name}: ${r.errors} errors, first: ${r.firstError}`);
  const fromUs = start + LOAD.warmupMs * 1000;
  process.stderr.write(`  ${name}: ${Math.round(r.rate)}/s\n`);
  return { name, fromUs, toUs: fromUs + LOAD.durationMs * 1000, ops: r.ops };
}

async function loads(c: BenchCluster): Promise<Window[]> {
  const gw = new HttpClient(c.gatewayUrl, c.caPem, { token: c.token, maxSockets: LOAD.concurrency });
  try {
    await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, [201]);
    const writes = configMapWrites(gw, NAMESPACE, 'bp');
    const windows = [await measure('create', writes.create)];
    await writes.prepareUpdates(LOAD.concurrency);
    windows.push(await measure('update', writes.update));
    const one = `/api/v1/namespaces/${NAMESPACE}/configmaps/bp-upd-0`;
    windows.push(await measure('get (consistent)', getOp(gw, one)));
    windows.push(await measure('get rv=0', getOp(gw, `${one}?resourceVersion=0`)));
    return windows;
  } finally {
    gw.destroy();
  }
}

function report(windows: Window[], byRole: Map<string, WindowShare[]>): void {
  const parts = Object.values(BusPart);
  for (const [i, w] of windows.entries()) {
    process.stdout.write(`\n${w.name}: ${w.ops} operations in ${(w.toUs - w.fromUs) / 1e6} s; CPU µs per operation\n`);
    process.stdout.write(`${'process'.padEnd(10)} ${'total'.padStart(7)}  ${parts.map((p) => p.padStart(Math.max(9, p.length))).join('  ')}\n`);
    for (const [role, shares] of byRole) {
      const s = shares[i]!;
      const perOp = (ms: number) => ((ms * 1000) / w.ops).toFixed(0);
      const cells = parts.map((p) => `${perOp(s.parts[p])} (${((s.parts[p] / (s.busyMs || 1)) * 100).toFixed(1)}%)`.padStart(Math.max(9, p.length)));
      process.stdout.write(`${role.padEnd(10)} ${perOp(s.busyMs).padStart(7)}  ${cells.join('  ')}\n`);
    }
  }
}

async function main(): Promise<void> {
  if (RUN_COMPILED) ensureCompiledBuild((m) => process.stderr.write(`${m}\n`));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bus-profile-'));
  process.env.BENCH_CPU_PROF_DIR = dir;
  const cleanup = new Cleanup();
  let windows: Window[];
  let roles: Record<string, number[]>;
  try {
    const c = await startBenchCluster(cleanup, 'processes');
    roles = c.roles;
    windows = await loads(c);
  } finally {
    // Stopping the children makes each write its profile.
    await cleanup.run();
  }
  const files = await readdir(dir);
  const byRole = new Map<string, WindowShare[]>();
  for (const role of ROLES) {
    const pid = roles[role]?.[0];
    const file = files.find((f) => f.split('.')[3] === String(pid));
    if (file) byRole.set(role, busShare(path.join(dir, file), windows));
    else process.stderr.write(`no profile of ${role} (pid ${pid}) in ${dir}\n`);
  }
  report(windows, byRole);
  process.stdout.write(`\nprofiles: ${dir}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
