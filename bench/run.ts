// `npm run bench`: measures the gateway against the raw limits of this machine, in one run, and
// prints each figure beside its limit as a ratio with the target from the issue.
//
//   npm run bench                      the table
//   npm run bench -- --cpu-prof        plus CPU profiles of the gateway during creates and GETs
//   npm run bench -- --cpu-prof=create (or =update, =get; a list with commas)
//   npm run bench -- --writes-only --cpu-prof=update   the write figures, then a profile of the gateway during updates
//   npm run bench -- --auth-only       only the authentication/authorization figures
//   npm run bench -- --webhooks-only   only the create rates with admission webhooks
//   npm run bench -- --fanout-only     only the watch figures (fan-out, latency at rest)
//   npm run bench -- --writes-only     only the write figures, both topologies
//   npm run bench -- --crds-only       only a custom resource against a ConfigMap
//   npm run bench -- --scale-only      only the scale figures: 100,000 objects, a log of a million
//                                      entries, joining replicas (about 2.5 minutes; last in the full run)
//   npm run bench -- --scale-only --cpu-prof=join   plus a CPU profile of the joining gateway
//
// What runs is the compiled build (dist/, built first when missing or older than the sources), as
// the image and Helm run it; BENCH_TSX=1 runs the sources through tsx instead. Processes:
// nats-server, every service in its own process, the gateway (with IPC for memory and profiles),
// the baseline (bare fastify route, minimal write server) and the same-shape floor's two
// processes (cluster.ts); this process only drives load (closed loop, keep-alive). The write
// figures then run again on a second cluster with the four services in one process (information).
// Order matters: the RSS figure is taken with exactly the 10,000 seeded ConfigMaps cached, before
// the create measurement adds objects; watchers come last so they cannot slow the other figures.

import { parseArgs } from 'node:util';
import path from 'node:path';
import { ensureCompiledBuild } from './build.js';
import { Cleanup } from './cleanup.js';
import { RUN_COMPILED, startBenchCluster, type BenchCluster, type Topology } from './cluster.js';
import { HttpClient } from './http.js';
import { closedLoop, combine, interleaved, roundRatio, type LoadOptions, type LoadResult, type Operation } from './load.js';
import { MachineMeter, type MachineUsage } from './machine.js';
import { summarizeProfile } from './profile.js';
import { getOp } from './reads.js';
import { getFigures, listFigures } from './read-figures.js';
import { mib, ms, printTable, rate, type Row } from './report.js';
import { fanoutFigure, restLatencyFigure, type WatchTargets } from './watch-figures.js';
import { writeFigures } from './write-figures.js';
import { authBench } from './auth.js';
import { configMapWrites, createDeployments, deploymentPatchOp, rawKvCreateOp, seedConfigMaps, seedName } from './writes.js';
import { webhookCreateRates } from './webhooks.js';
import { customResourceFigures } from './custom-resources.js';
import { scaleFigures, type ScaleTargets } from './scale.js';

const CONCURRENCY = 32;
// Each load figure: ROUNDS short rounds interleaved with its raw limit (see `interleaved`).
const ROUNDS = 3;
const LOAD: LoadOptions = { concurrency: CONCURRENCY, warmupMs: 500, durationMs: 1_500 };
const OBJECTS = 10_000;
/** Objects put in place for the delete rounds, per server (more than any of them deletes in them). */
const DELETE_STOCK = 60_000;
/**
 * The targets of issue 35. Writes: ratios to the same-shape floor with every service in its own
 * process from the compiled build (the one-process rows are information). GETs: ratios to the
 * bare fastify route. One validating webhook may cost at most 30 % of the create rate.
 */
const TARGET = {
  writes: { create: 0.8, update: 0.75, delete: 0.8 },
  getAnyRatio: 0.9,
  getConsistentRatio: 0.85,
  fullListMs: 150,
  chunkedOverFull: 2,
  oneValidatingWebhookRatio: 0.7,
  applyRatio: 0.5,
};
const WATCH: WatchTargets = { watchers: 1_000, writes: 20, fanoutOverMinimal: 1.2, rest: { writes: 20, p50Ms: 5, p99Ms: 20 } };
/** Issue 35 §5: 100,000 objects; a log of objects × rounds = a million entries (11 minutes at 1,500 writes/s). */
const SCALE: ScaleTargets = { shape: { objects: 100_000, namespaces: 100, rounds: 10 }, writesPerSecond: 1_500, heapPerObjectKiB: 1, chunkedOverFull: 2, joinReadyMs: 10_000 };
const NS = { list: 'bench-list', create: 'bench-create', watch: 'bench-watch' };

function progress(msg: string): void {
  process.stderr.write(`· ${msg}\n`);
}

function parseOptions() {
  return parseArgs({
    options: {
      'cpu-prof': { type: 'string' },
      'auth-only': { type: 'boolean' },
      'webhooks-only': { type: 'boolean' },
      'fanout-only': { type: 'boolean' },
      'writes-only': { type: 'boolean' },
      'crds-only': { type: 'boolean' },
      'scale-only': { type: 'boolean' },
    },
    allowPositionals: false,
    strict: true,
    args: normalizeArgs(process.argv.slice(2)),
  }).values;
}

async function main(): Promise<void> {
  const values = parseOptions();
  const profiles = values['cpu-prof'] === undefined ? [] : values['cpu-prof'] === '' ? ['create', 'get'] : values['cpu-prof'].split(',');
  const loads = values['writes-only'] ? ['create', 'update'] : [...PROFILED_LOADS, 'join'];
  const unknown = profiles.filter((p) => !loads.includes(p));
  if (unknown.length) throw new Error(`--cpu-prof: cannot profile ${unknown.join(', ')} in this mode (${loads.join(', ')})`);
  if (values['auth-only']) {
    printTable(await authBench(progress));
    return;
  }
  if (RUN_COMPILED) ensureCompiledBuild(progress);
  if (values['webhooks-only']) {
    await oneFigure('admission webhooks', async (c, gw, cleanup) => {
      const { rows, failed } = await webhookCreateRates(c, gw, cleanup, progress, { ...LOAD, rounds: ROUNDS, oneValidatingRatio: TARGET.oneValidatingWebhookRatio });
      return { rows, results: failed };
    });
    return;
  }
  if (values['fanout-only']) {
    await oneFigure('watches', async (c, gw, cleanup) => {
      const bare = new HttpClient(c.baselineUrl, c.caPem, { token: c.token, maxSockets: CONCURRENCY });
      cleanup.defer('close HTTP agent', () => bare.destroy());
      await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS.watch } }, [201]);
      return { rows: await watchFigures(c, { gw, bare }), results: [] };
    });
    return;
  }
  if (values['writes-only']) {
    await writesOnly(profiles);
    return;
  }
  if (values['scale-only']) {
    await scaleOnly(values['cpu-prof'] === 'join');
    return;
  }
  if (values['crds-only']) {
    await oneFigure('custom resources', (_c, gw) => customResourceFigures(gw, ROUNDS, LOAD));
    return;
  }
  await fullRun(profiles);
}

/** Every figure, in the order the header explains; `profiles`: the loads to profile the gateway during. */
async function fullRun(profiles: string[]): Promise<void> {
  const cleanup = cleanupOnInterrupt();
  const started = performance.now();
  try {
    const idleBefore = await otherLoad();
    progress(`starting nats-server, every service in its own process (${RUN_COMPILED ? 'compiled' : 'tsx'}), the baseline and the same-shape floor`);
    // The first cluster (each service in its own process) stops before the second (services together) starts.
    const first = new Cleanup();
    cleanup.defer('stop the first cluster', () => first.run());
    const c = await startBenchCluster(first, 'processes');
    const meter = new MachineMeter(() => c.pids);
    const clients = httpClients(c, first);
    const { gw, bare } = clients;
    for (const ns of Object.values(NS)) await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, [201]);
    const rows: Row[] = [];

    progress(`seeding ${OBJECTS.toLocaleString('en-US')} ConfigMaps; gateway memory before and after`);
    rows.push(await memoryFigure(c, gw));
    progress('timing full and chunked lists');
    rows.push(...(await listFigures(gw, NS.list, { objects: OBJECTS, fullListMs: TARGET.fullListMs, chunkedOverFull: TARGET.chunkedOverFull })));
    progress('GET: bare fastify baseline, gateway resourceVersion=0, gateway consistent (interleaved)');
    const one = `/api/v1/namespaces/${NS.list}/configmaps/${seedName(42)}`;
    const gets = await getFigures(gw, bare, one, { load: LOAD, rounds: ROUNDS, anyRatio: TARGET.getAnyRatio, consistentRatio: TARGET.getConsistentRatio });
    rows.push(...gets.rows);

    progress('writes: the same-shape floor, the minimal write server, the gateway and raw KV (interleaved)');
    const rawKv = await rawKvCreateOp(c.nc);
    first.defer('delete scratch bucket', () => rawKv.close());
    const writes = await writeFigures(c, clients, { ...writeOptions('processes'), rawCreate: rawKv.op });
    rows.push(...writes.rows);

    progress('creates with admission webhooks: none, 1 and 3 validating, 3 mutating (rounds alternate)');
    const hooked = await webhookCreateRates(c, gw, cleanup, progress, { ...LOAD, rounds: ROUNDS, oneValidatingRatio: TARGET.oneValidatingWebhookRatio });
    rows.push(...hooked.rows);

    progress('patches of a Deployment: merge patch and server-side apply (interleaved)');
    const patches = await applyFigure(gw);
    rows.push(patches.row);

    progress('a custom resource against a ConfigMap: creates, GETs, a list (interleaved)');
    const custom = await customResourceFigures(gw, ROUNDS, LOAD);
    rows.push(...custom.rows);

    rows.push(...(await watchFigures(c, clients)));

    const usage = meter.usage();
    const errors = [...gets.results, ...writes.results, ...hooked.failed, ...patches.results, ...custom.results].filter((r) => r.errors > 0);

    const profileText: string[] = [];
    for (const what of profiles.filter((p) => p !== 'join')) profileText.push(await profileGateway(c, gw, what, one));
    await first.run();

    // Information: the four services in one process. A second cluster, started after the first
    // is stopped, so the two never share the machine.
    const writes2 = await writesOnACluster(cleanup, 'services-together');
    rows.push(...writes2.rows);
    errors.push(...writes2.results.filter((r) => r.errors > 0));
    // Last, on a cluster of their own: 100,000 objects and a log of a million entries.
    const scale = await scaleFigures(cleanup, SCALE, { progress, profileJoin: profiles.includes('join') });
    rows.push(...scale.rows);
    if (scale.profile) profileText.push(scale.profile);
    printReport(rows, errors, { usage, idleBefore });

    process.stdout.write(`\nauthentication and authorization (in this process, own nats-server; ratio = uncached rate / bus round trip)\n\n`);
    printTable(await authBench(progress));

    for (const text of profileText) process.stdout.write(text);
    process.stdout.write(`\ntotal bench time ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    await cleanup.run();
  }
}

/** Keep-alive clients of the gateway, the baseline and the same-shape floor, closed with `cleanup`. */
function httpClients(c: BenchCluster, cleanup: Cleanup): { gw: HttpClient; bare: HttpClient; floor: HttpClient } {
  const client = (url: string) => new HttpClient(url, c.caPem, { token: c.token, maxSockets: CONCURRENCY });
  const clients = { gw: client(c.gatewayUrl), bare: client(c.baselineUrl), floor: client(c.floorUrl) };
  cleanup.defer('close HTTP agents', () => Object.values(clients).forEach((x) => x.destroy()));
  return clients;
}

function topologyLabel(topology: Topology): string {
  return `${topology === 'processes' ? 'each service in its own process' : 'services in one process'}${RUN_COMPILED ? '' : ' (tsx)'}`;
}

/** The write figures' settings; targets only where issue 35 sets them (own processes, compiled). */
function writeOptions(topology: Topology) {
  const targeted = topology === 'processes' && RUN_COMPILED;
  return { label: topologyLabel(topology), load: LOAD, rounds: ROUNDS, namespace: NS.create, deleteStock: DELETE_STOCK, ...(targeted ? { targets: TARGET.writes } : {}) };
}

/** Fan-out to many watchers, then one watcher at rest. */
async function watchFigures(c: BenchCluster, clients: { gw: HttpClient; bare: HttpClient }): Promise<Row[]> {
  progress(`watch fan-out: ${WATCH.watchers} watchers of the gateway and of the minimal server, ${WATCH.writes} writes each, taking turns`);
  const fanout = await fanoutFigure(c, clients, NS.watch, WATCH);
  progress(`write-to-watcher latency at rest: 1 watcher each, ${WATCH.rest.writes} writes one a second, the gateway and the minimal server taking turns`);
  return [fanout, await restLatencyFigure(c, clients, NS.watch, WATCH)];
}

function printReport(rows: Row[], errors: LoadResult[], machine: { usage: MachineUsage; idleBefore: MachineUsage }): void {
  const { usage, idleBefore } = machine;
  process.stdout.write(`\nplatform-apiserver bench — ${new Date().toISOString()}\n`);
  process.stdout.write(
    `load figures: ${CONCURRENCY} keep-alive HTTPS connections (closed loop), ${ROUNDS} rounds of ${LOAD.durationMs / 1000} s after ${LOAD.warmupMs / 1000} s warm-up, interleaved with the raw limit; ratio = median of per-round ratios\n\n`,
  );
  printTable(rows);
  for (const r of errors) process.stdout.write(`  ! ${r.errors} failed requests, first: ${r.firstError}\n`);
  process.stdout.write(`\nfan-out latency: just before the POST is sent → the event's chunk arrives at each watcher (all in this process)\n`);
  process.stdout.write(
    `machine: ${usage.cores} cores; during measurements the bench's processes used ${usage.oursCores.toFixed(2)} cores, other processes ${usage.othersCores.toFixed(2)} cores (before start: ${idleBefore.othersCores.toFixed(2)})` +
      (usage.othersCores > 0.25 ? ' — OTHER LOAD ON THE MACHINE: figures are lower and noisier than on a quiet one\n' : '\n'),
  );
}

async function memoryFigure(c: BenchCluster, gw: HttpClient): Promise<Row> {
  const memory = await measureMemory(c, gw);
  return {
    figure: `gateway RSS, ${OBJECTS.toLocaleString('en-US')} ConfigMaps cached`,
    measured: mib(memory.rss10k),
    limit: `empty cache ${mib(memory.rssEmpty)} → ${(((memory.rss10k - memory.rssEmpty) * 1024) / OBJECTS).toFixed(1)} KiB/object RSS, ${(((memory.heap10k - memory.heapEmpty) * 1024) / OBJECTS).toFixed(1)} KiB/object live heap`,
  };
}

/** Server-side apply of a Deployment against a merge patch of it, interleaved. */
async function applyFigure(gw: HttpClient): Promise<{ row: Row; results: LoadResult[] }> {
  await createDeployments(gw, NS.create, CONCURRENCY);
  const patches = await interleaved({ merge: deploymentPatchOp(gw, NS.create, 'merge'), apply: deploymentPatchOp(gw, NS.create, 'apply') }, ROUNDS, LOAD);
  const [merged, applied] = [combine(patches.merge), combine(patches.apply)];
  const applyRatio = roundRatio(patches.apply, patches.merge);
  const row: Row = {
    figure: `server-side apply of a Deployment (c=${CONCURRENCY})`,
    measured: `${rate(applied.rate)} p99 ${ms(applied.p99Ms)}`,
    limit: `merge patch ${rate(merged.rate)} p99 ${ms(merged.p99Ms)}`,
    ratio: applyRatio,
    target: `≥ ${TARGET.applyRatio}`,
    ok: applyRatio >= TARGET.applyRatio,
  };
  return { row, results: [merged, applied] };
}

/** `--writes-only`: the write figures with the services in their own processes, then together; `profiles` on the first cluster. */
async function writesOnly(profiles: string[]): Promise<void> {
  const cleanup = cleanupOnInterrupt();
  try {
    const rows: Row[] = [];
    const failed: LoadResult[] = [];
    const profileText: string[] = [];
    for (const topology of ['processes', 'services-together'] as const) {
      const writes = await writesOnACluster(cleanup, topology, topology === 'processes' ? profiles : []);
      rows.push(...writes.rows);
      failed.push(...writes.results.filter((r) => r.errors > 0));
      profileText.push(...writes.profileText);
    }
    process.stdout.write(`\nplatform-apiserver bench, writes — ${new Date().toISOString()}\n\n`);
    printTable(rows);
    for (const r of failed) process.stdout.write(`  ! ${r.errors} failed requests, first: ${r.firstError}\n`);
    for (const text of profileText) process.stdout.write(text);
  } finally {
    await cleanup.run();
  }
}

/** A cluster of `topology` of its own, the write figures on it, the gateway profiled during `profiles`, and the cluster stopped again. */
async function writesOnACluster(cleanup: Cleanup, topology: Topology, profiles: string[] = []): Promise<{ rows: Row[]; results: LoadResult[]; profileText: string[] }> {
  const label = topologyLabel(topology);
  const one = new Cleanup();
  cleanup.defer(`stop the cluster (${label})`, () => one.run());
  progress(`starting nats-server, the services (${label}), the gateway, the baseline and the same-shape floor`);
  const c = await startBenchCluster(one, topology);
  const clients = httpClients(c, one);
  await clients.gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS.create } }, [201]);
  progress(`writes with ${label}: the same-shape floor, the minimal write server and the gateway (interleaved)`);
  const writes = await writeFigures(c, clients, writeOptions(topology));
  const profileText: string[] = [];
  for (const what of profiles) profileText.push(await profileGateway(c, clients.gw, what));
  await one.run();
  return { ...writes, profileText };
}

/** `--scale-only`: the scale figures on a cluster of their own; `profileJoin`: with the joining gateway's profile. */
async function scaleOnly(profileJoin: boolean): Promise<void> {
  const cleanup = cleanupOnInterrupt();
  const started = performance.now();
  try {
    const { rows, profile } = await scaleFigures(cleanup, SCALE, { progress, profileJoin });
    process.stdout.write(`\nplatform-apiserver bench, scale — ${new Date().toISOString()}\n\n`);
    printTable(rows);
    if (profile) process.stdout.write(profile);
    process.stdout.write(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    await cleanup.run();
  }
}

/** A `--*-only` run: a cluster, one group of figures, the table. */
async function oneFigure(title: string, figures: (c: BenchCluster, gw: HttpClient, cleanup: Cleanup) => Promise<{ rows: Row[]; results: LoadResult[] }>): Promise<void> {
  const cleanup = cleanupOnInterrupt();
  try {
    progress(`starting nats-server, the services (${topologyLabel('processes')}), the gateway and the baselines`);
    const c = await startBenchCluster(cleanup, 'processes');
    const gw = new HttpClient(c.gatewayUrl, c.caPem, { token: c.token, maxSockets: CONCURRENCY });
    cleanup.defer('close HTTP agent', () => gw.destroy());
    const { rows, results } = await figures(c, gw, cleanup);
    process.stdout.write(`\nplatform-apiserver bench, ${title} — ${new Date().toISOString()}\n\n`);
    printTable(rows);
    for (const r of results.filter((x) => x.errors > 0)) process.stdout.write(`  ! ${r.errors} failed requests, first: ${r.firstError}\n`);
  } finally {
    await cleanup.run();
  }
}

/** What a run registers to stop; run also when the bench is interrupted (Ctrl-C, SIGTERM). */
function cleanupOnInterrupt(): Cleanup {
  const cleanup = new Cleanup();
  const onSignal = () => void cleanup.run().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return cleanup;
}

/** Cores used by other processes over one second, before we start anything. */
async function otherLoad() {
  const meter = new MachineMeter(() => [process.pid]);
  await new Promise((r) => setTimeout(r, 1_000));
  return meter.usage();
}

/** RSS (and live heap after a full GC) with an empty cache, then with OBJECTS ConfigMaps cached. */
async function measureMemory(c: BenchCluster, gw: HttpClient): Promise<{ rssEmpty: number; rss10k: number; heapEmpty: number; heap10k: number }> {
  const heap = async () => ((await c.gatewayCommand({ cmd: 'memory' })).memory.heapUsed as number) / 2 ** 20;
  const heapEmpty = await heap();
  const rssEmpty = c.gateway.rssMiB();
  await seedConfigMaps(c.nc, 'objects', NS.list, OBJECTS);
  // A consistent read waits until the cache has applied the stream's last revision.
  const page = await gw.json<{ items: unknown[]; metadata: { remainingItemCount?: number } }>('GET', `/api/v1/namespaces/${NS.list}/configmaps?limit=1`);
  const cached = page.items.length + (page.metadata.remainingItemCount ?? 0);
  if (cached !== OBJECTS) throw new Error(`the gateway caches ${cached} ConfigMaps in ${NS.list}, expected ${OBJECTS}`);
  const heap10k = await heap();
  await new Promise((r) => setTimeout(r, 500));
  return { rssEmpty, rss10k: c.gateway.rssMiB(), heapEmpty, heap10k };
}

/** The loads `--cpu-prof` can profile the gateway during (`join` is the scale figures' own). */
const PROFILED_LOADS = ['create', 'update', 'get'];

/** The operation a profile runs: creates, updates of one object per worker, or GETs of `getPath` at resourceVersion=0. */
async function profiledOp(gw: HttpClient, what: string, getPath: string | undefined): Promise<Operation> {
  if (what === 'get') return getOp(gw, `${getPath}?resourceVersion=0`);
  const writes = configMapWrites(gw, NS.create, 'prof');
  if (what === 'create') return writes.create;
  await writes.prepareUpdates(CONCURRENCY);
  return writes.update;
}

/** Profiles the gateway during one more load run (not part of the table); the top frames as text. */
async function profileGateway(c: BenchCluster, gw: HttpClient, what: string, getPath?: string): Promise<string> {
  const file = path.join(c.dir, `gateway-${what}.cpuprofile`);
  progress(`profiling the gateway during ${what}`);
  const op = await profiledOp(gw, what, getPath);
  await c.gatewayCommand({ cmd: 'profile-start' });
  const r = await closedLoop(op, { ...LOAD, durationMs: 4_000 });
  await c.gatewayCommand({ cmd: 'profile-stop', file });
  const s = summarizeProfile(file);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  let out = '';
  out += `\n=== gateway CPU profile during ${what} (${rate(r.rate)} under the profiler; ${(s.totalMs / 1000).toFixed(1)} s sampled, idle ${pct(s.idleShare).trim()}) ===\n`;
  out += 'by area (self time):\n';
  for (const f of s.byArea) out += `  ${pct(f.share)}  ${f.frame}\n`;
  out += 'top self time:\n';
  for (const f of s.topSelf) out += `  ${pct(f.share)}  ${f.frame}\n`;
  out += 'project code, inclusive time:\n';
  for (const f of s.topProjectInclusive) out += `  ${pct(f.share)}  ${f.frame}\n`;
  return out;
}

/** `--cpu-prof` alone means "all": parseArgs needs a value for a string option. */
function normalizeArgs(args: string[]): string[] {
  return args.map((a) => (a === '--cpu-prof' ? '--cpu-prof=' : a));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
