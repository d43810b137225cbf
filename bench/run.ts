// `npm run bench`: measures the gateway against the raw limits of this machine, in one run, and
// prints each figure beside its limit as a ratio with the target from the issue.
//
//   npm run bench                      the table
//   npm run bench -- --cpu-prof        plus CPU profiles of the gateway during creates and GETs
//   npm run bench -- --cpu-prof=create (or =get)
//   npm run bench -- --auth-only       only the authentication/authorization figures
//   npm run bench -- --webhooks-only   only the create rates with admission webhooks
//   npm run bench -- --fanout-only     only the watch fan-out
//   npm run bench -- --writes-only     only the write figures, both topologies
//   npm run bench -- --crds-only       only a custom resource against a ConfigMap
//
// Processes: nats-server, the four non-gateway services in one child, the gateway in its own child,
// a bare fastify baseline in another; this process only drives load (closed loop, keep-alive).
// Order matters: the RSS figure is taken with exactly the 10,000 seeded ConfigMaps cached, before
// the create measurement adds objects; watchers come last so they cannot slow the other figures.

import { parseArgs } from 'node:util';
import path from 'node:path';
import { Cleanup } from './cleanup.js';
import { MINIMAL_BUCKET, startBenchCluster, type BenchCluster, type ProcessRole, type Topology } from './cluster.js';
import { HttpClient } from './http.js';
import { closedLoop, combine, interleaved, roundRatio, type LoadOptions, type LoadResult, type Operation } from './load.js';
import { cpuByRole, MachineMeter, type MachineUsage } from './machine.js';
import { summarizeProfile } from './profile.js';
import { getOp, PROTOBUF, timeLists } from './reads.js';
import { mib, ms, printTable, rate, type Row } from './report.js';
import { watchFanout } from './watch.js';
import { authBench } from './auth.js';
import { configMapWrites, createDeployments, deploymentPatchOp, rawKvCreateOp, seedConfigMaps, seedName } from './writes.js';
import { webhookCreateRates } from './webhooks.js';
import { customResourceFigures } from './custom-resources.js';

const CONCURRENCY = 32;
// Each load figure: ROUNDS short rounds interleaved with its raw limit (see `interleaved`).
const ROUNDS = 3;
const LOAD: LoadOptions = { concurrency: CONCURRENCY, warmupMs: 500, durationMs: 1_500 };
const OBJECTS = 10_000;
/** Objects put in place for the delete rounds, per server (more than either deletes in them). */
const DELETE_STOCK = 60_000;
const WATCHERS = 1_000;
const FANOUT_WRITES = 5;
const TARGET = { writeRatioTogether: 0.8, writeRatioSeparate: 0.6, getRatio: 0.8, fullListMs: 150, chunkedOverFull: 2, fanoutP99Ms: 20, applyRatio: 0.5 };
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
    },
    allowPositionals: false,
    strict: true,
    args: normalizeArgs(process.argv.slice(2)),
  }).values;
}

async function main(): Promise<void> {
  const values = parseOptions();
  if (values['auth-only']) {
    printTable(await authBench(progress));
    return;
  }
  if (values['webhooks-only']) {
    await oneFigure('admission webhooks', async (c, gw, cleanup) => {
      const { rows, failed } = await webhookCreateRates(c, gw, cleanup, progress, LOAD, ROUNDS);
      return { rows, results: failed };
    });
    return;
  }
  if (values['fanout-only']) {
    await oneFigure('watch fan-out', async (c, gw, cleanup) => {
      const bare = new HttpClient(c.baselineUrl, c.caPem, { token: c.token, maxSockets: CONCURRENCY });
      cleanup.defer('close HTTP agent', () => bare.destroy());
      await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS.watch } }, [201]);
      progress(`watch fan-out: ${WATCHERS} watchers, ${FANOUT_WRITES} writes`);
      return { rows: [await fanoutFigure(c, gw, bare)], results: [] };
    });
    return;
  }
  if (values['writes-only']) {
    await writesOnly();
    return;
  }
  if (values['crds-only']) {
    await oneFigure('custom resources', (_c, gw) => customResourceFigures(gw, ROUNDS, LOAD));
    return;
  }
  const profiles = values['cpu-prof'] === undefined ? [] : values['cpu-prof'] === '' ? ['create', 'get'] : values['cpu-prof'].split(',');
  await fullRun(profiles);
}

/** Every figure, in the order the header explains; `profiles`: the loads to profile the gateway during. */
async function fullRun(profiles: string[]): Promise<void> {
  const cleanup = cleanupOnInterrupt();
  const started = performance.now();
  try {
    const idleBefore = await otherLoad();
    progress('starting nats-server, services, gateway and baseline');
    // The first cluster (services together) stops before the second (separate processes) starts.
    const first = new Cleanup();
    cleanup.defer('stop the first cluster', () => first.run());
    const c = await startBenchCluster(first);
    const meter = new MachineMeter(() => c.pids);
    const gw = new HttpClient(c.gatewayUrl, c.caPem, { token: c.token, maxSockets: CONCURRENCY });
    const bare = new HttpClient(c.baselineUrl, c.caPem, { token: c.token, maxSockets: CONCURRENCY });
    first.defer('close HTTP agents', () => (gw.destroy(), bare.destroy()));
    for (const ns of Object.values(NS)) await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, [201]);
    const rows: Row[] = [];

    progress(`seeding ${OBJECTS.toLocaleString('en-US')} ConfigMaps; gateway memory before and after`);
    rows.push(await memoryFigure(c, gw));
    progress('timing full and chunked lists');
    rows.push(...(await listFigures(gw)));
    progress('GET: bare fastify baseline, gateway resourceVersion=0, gateway consistent (interleaved)');
    const one = `/api/v1/namespaces/${NS.list}/configmaps/${seedName(42)}`;
    const gets = await getFigures(gw, bare, one);
    rows.push(...gets.rows);

    progress('writes: raw KV, the minimal write server and the gateway (interleaved)');
    const rawKv = await rawKvCreateOp(c.nc);
    first.defer('delete scratch bucket', () => rawKv.close());
    const writes = await writeFigures(c, gw, bare, 'services in one process', rawKv.op);
    rows.push(...writes.rows);

    progress('creates with admission webhooks: none, 1 and 3 validating, 3 mutating (rounds alternate)');
    const hooked = await webhookCreateRates(c, gw, cleanup, progress, LOAD, ROUNDS);
    rows.push(...hooked.rows);

    progress('patches of a Deployment: merge patch and server-side apply (interleaved)');
    const patches = await applyFigure(gw);
    rows.push(patches.row);

    progress('a custom resource against a ConfigMap: creates, GETs, a list (interleaved)');
    const custom = await customResourceFigures(gw, ROUNDS, LOAD);
    rows.push(...custom.rows);

    progress(`watch fan-out: ${WATCHERS} watchers, ${FANOUT_WRITES} writes`);
    rows.push(await fanoutFigure(c, gw, bare));

    const usage = meter.usage();
    const errors = [...gets.results, ...writes.results, ...hooked.failed, ...patches.results, ...custom.results].filter((r) => r.errors > 0);

    const profileText: string[] = [];
    for (const what of profiles) profileText.push(await profileGateway(c, gw, what, one));
    await first.run();

    // Last, as `npm start` runs it: each service in its own process. A second cluster, started
    // after the first is stopped, so the two never share the machine.
    const writes2 = await writesOnACluster(cleanup, 'processes');
    rows.push(...writes2.rows);
    errors.push(...writes2.results.filter((r) => r.errors > 0));
    printReport(rows, errors, { usage, idleBefore });

    process.stdout.write(`\nauthentication and authorization (in this process, own nats-server; ratio = uncached rate / bus round trip)\n\n`);
    printTable(await authBench(progress));

    for (const text of profileText) process.stdout.write(text);
    process.stdout.write(`\ntotal bench time ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    await cleanup.run();
  }
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

/** Full and chunked lists of the seeded ConfigMaps, in JSON and in protobuf. */
async function listFigures(gw: HttpClient): Promise<Row[]> {
  const rows: Row[] = [];
  const lists = await timeLists(gw, NS.list, { runs: 7, chunkRuns: 3, limit: 500 });
  if (lists.items !== OBJECTS) throw new Error(`full list returned ${lists.items} items, expected ${OBJECTS}`);
  rows.push({
    figure: `full list of ${OBJECTS.toLocaleString('en-US')} (median of 7)`,
    measured: ms(lists.fullMs),
    limit: `${(lists.bytes / 2 ** 20).toFixed(1)} MiB body`,
    target: `≤ ${TARGET.fullListMs} ms`,
    ok: lists.fullMs <= TARGET.fullListMs,
  });
  rows.push({
    figure: `chunked list limit=500 (${lists.pages} pages, median of 3)`,
    measured: ms(lists.chunkedMs),
    limit: `${ms(lists.chunkedMs / lists.pages)} per page; ${(lists.chunkedMs / lists.fullMs).toFixed(1)}× the full list`,
    target: `≤ ${TARGET.chunkedOverFull}× full`,
    ok: lists.chunkedMs <= TARGET.chunkedOverFull * lists.fullMs,
  });
  const pbLists = await timeLists(gw, NS.list, { runs: 7, chunkRuns: 1, limit: 500, accept: PROTOBUF });
  if (pbLists.items !== OBJECTS) throw new Error(`protobuf list returned ${pbLists.items} items, expected ${OBJECTS}`);
  rows.push({
    figure: `full list of ${OBJECTS.toLocaleString('en-US')} in protobuf (median of 7)`,
    measured: ms(pbLists.fullMs),
    limit: `${(pbLists.bytes / 2 ** 20).toFixed(1)} MiB body; JSON list ${ms(lists.fullMs)}`,
    ratio: Math.round((lists.fullMs / pbLists.fullMs) * 100) / 100,
  });
  return rows;
}

/** GETs of one ConfigMap (`one`) from the cache, consistent, and in protobuf, interleaved with the bare baseline. */
async function getFigures(gw: HttpClient, bare: HttpClient, one: string): Promise<{ rows: Row[]; results: LoadResult[] }> {
  const gets = await interleaved(
    { bare: getOp(bare, one), any: getOp(gw, `${one}?resourceVersion=0`), consistent: getOp(gw, one), protobuf: getOp(gw, `${one}?resourceVersion=0`, PROTOBUF) },
    ROUNDS,
    LOAD,
  );
  const [baseline, getAny, getConsistent] = [combine(gets.bare), combine(gets.any), combine(gets.consistent)];
  const bareText = `bare fastify ${rate(baseline.rate)} p99 ${ms(baseline.p99Ms)}`;
  const rows: Row[] = [];
  const anyRatio = roundRatio(gets.any, gets.bare);
  rows.push({
    figure: `GET resourceVersion=0 (c=${CONCURRENCY})`,
    measured: `${rate(getAny.rate)} p99 ${ms(getAny.p99Ms)}`,
    limit: bareText,
    ratio: anyRatio,
    target: `≥ ${TARGET.getRatio}`,
    ok: anyRatio >= TARGET.getRatio,
  });
  const consistentRatio = roundRatio(gets.consistent, gets.bare);
  rows.push({
    figure: `GET consistent (c=${CONCURRENCY})`,
    measured: `${rate(getConsistent.rate)} p99 ${ms(getConsistent.p99Ms)}`,
    limit: bareText,
    ratio: consistentRatio,
    target: `≥ ${TARGET.getRatio}`,
    ok: consistentRatio >= TARGET.getRatio,
  });
  const getProtobuf = combine(gets.protobuf);
  rows.push({
    figure: `GET resourceVersion=0 in protobuf (c=${CONCURRENCY})`,
    measured: `${rate(getProtobuf.rate)} p99 ${ms(getProtobuf.p99Ms)}`,
    limit: `JSON ${rate(getAny.rate)}`,
    ratio: roundRatio(gets.protobuf, gets.any),
  });
  return { rows, results: [baseline, getAny, getConsistent, getProtobuf] };
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

/**
 * Create, update and delete figures through the gateway, each interleaved with the same requests to
 * the minimal write server (the floor of any server on this stack; target ≥ 0.8 of it with the
 * services in one process, ≥ 0.6 with each in its own). With `rawCreate`, raw KV creates join the
 * create rounds for the second limit.
 */
async function writeFigures(c: BenchCluster, gw: HttpClient, bare: HttpClient, topology: string, rawCreate?: Operation): Promise<{ rows: Row[]; results: LoadResult[] }> {
  const target = topology === 'services in one process' ? TARGET.writeRatioTogether : TARGET.writeRatioSeparate;
  const [g, m] = [configMapWrites(gw, NS.create, 'cm'), configMapWrites(bare, NS.create, 'cm')];
  await g.prepareUpdates(CONCURRENCY);
  await m.prepareUpdates(CONCURRENCY);
  const rows: Row[] = [];
  const results: LoadResult[] = [];
  const createOps: Record<string, Operation> = { minimal: m.create, gateway: g.create };
  if (rawCreate) createOps.raw = rawCreate;
  const creates = (await interleaved(createOps, ROUNDS, LOAD)) as Record<'minimal' | 'gateway', LoadResult[]> & { raw?: LoadResult[] };
  const updates = await interleaved({ minimal: m.update, gateway: g.update }, ROUNDS, LOAD);
  const cpu = [await cpuSplit(c, 'create', g.create, m.create), await cpuSplit(c, 'update', g.update, m.update)];
  // Deletes need objects to delete: more than creates left behind, put straight into each bucket.
  const nameOf = (i: number) => `del-${i}`;
  const names = Array.from({ length: DELETE_STOCK }, (_, i) => nameOf(i));
  await seedConfigMaps(c.nc, 'objects', NS.create, DELETE_STOCK, nameOf);
  await seedConfigMaps(c.nc, MINIMAL_BUCKET, NS.create, DELETE_STOCK, nameOf);
  // A consistent read waits until the gateway's cache holds them.
  await gw.json('GET', `/api/v1/namespaces/${NS.create}/configmaps?limit=1`);
  g.stock(names);
  m.stock(names);
  const deletes = await interleaved({ minimal: m.remove, gateway: g.remove }, ROUNDS, LOAD);
  for (const [verb, ops] of [
    ['create', creates],
    ['update', updates],
    ['delete', deletes],
  ] as const) {
    const [gateway, minimal] = [combine(ops.gateway), combine(ops.minimal)];
    results.push(gateway, minimal);
    const ratio = roundRatio(ops.gateway, ops.minimal);
    let limit = `minimal write server ${rate(minimal.rate)} p99 ${ms(minimal.p99Ms)}`;
    if (verb === 'create' && creates.raw) {
      const raw = combine(creates.raw);
      results.push(raw);
      limit += `; raw KV ${rate(raw.rate)} (ratio ${roundRatio(creates.gateway, creates.raw).toFixed(2)})`;
    }
    rows.push({ figure: `${verb} via gateway, ${topology} (c=${CONCURRENCY})`, measured: `${rate(gateway.rate)} p99 ${ms(gateway.p99Ms)}`, limit, ratio, target: `≥ ${target}`, ok: ratio >= target });
  }
  for (const split of cpu) rows.push({ ...split, figure: `${split.figure}, ${topology}` });
  return { rows, results };
}

/**
 * Where the CPU of one write goes, process by process: a gateway-only loop, then a minimal-server-
 * only loop (each warmed up first), with every process's CPU time read before and after. The
 * ratio of the totals is what the throughput ratio approaches when the machine is the limit.
 */
async function cpuSplit(c: BenchCluster, verb: string, gateway: Operation, minimal: Operation): Promise<Row> {
  const perOp = async (op: Operation, roles: ProcessRole[]) => {
    await closedLoop(op, { ...LOAD, durationMs: 1 });
    const before = cpuByRole(c.roles);
    const r = await closedLoop(op, { ...LOAD, warmupMs: 0 });
    const after = cpuByRole(c.roles);
    const us = (role: ProcessRole) => ((after[role] - before[role]) * 1000) / Math.max(1, r.ops);
    const total = roles.reduce((a, role) => a + us(role), 0);
    return { total, text: roles.map((role) => `${role} ${Math.round(us(role))}`).join(' · ') };
  };
  const g = await perOp(gateway, ['gateway', 'services', 'nats-server', 'load generator']);
  const m = await perOp(minimal, ['minimal server', 'nats-server', 'load generator']);
  return {
    figure: `CPU per ${verb} (µs, by process)`,
    measured: `${Math.round(g.total)} µs: ${g.text}`,
    limit: `minimal write server ${Math.round(m.total)} µs: ${m.text}`,
    ratio: Math.round((m.total / g.total) * 100) / 100,
  };
}

/** `--writes-only`: the write figures with the services together, then in their own processes. */
async function writesOnly(): Promise<void> {
  const cleanup = cleanupOnInterrupt();
  try {
    const rows: Row[] = [];
    const failed: LoadResult[] = [];
    for (const topology of ['services-together', 'processes'] as const) {
      const writes = await writesOnACluster(cleanup, topology);
      rows.push(...writes.rows);
      failed.push(...writes.results.filter((r) => r.errors > 0));
    }
    process.stdout.write(`\nplatform-apiserver bench, writes — ${new Date().toISOString()}\n\n`);
    printTable(rows);
    for (const r of failed) process.stdout.write(`  ! ${r.errors} failed requests, first: ${r.firstError}\n`);
  } finally {
    await cleanup.run();
  }
}

/** A cluster of `topology` of its own, the write figures on it, and the cluster stopped again. */
async function writesOnACluster(cleanup: Cleanup, topology: Topology): Promise<{ rows: Row[]; results: LoadResult[] }> {
  const label = topology === 'processes' ? 'each service in its own process' : 'services in one process';
  const one = new Cleanup();
  cleanup.defer(`stop the cluster (${label})`, () => one.run());
  progress(topology === 'processes' ? 'starting every service in its own process (services/<name>/main.ts)' : 'starting nats-server, services, gateway and baseline');
  const c = await startBenchCluster(one, topology);
  const gw = new HttpClient(c.gatewayUrl, c.caPem, { token: c.token, maxSockets: CONCURRENCY });
  const bare = new HttpClient(c.baselineUrl, c.caPem, { token: c.token, maxSockets: CONCURRENCY });
  one.defer('close HTTP agents', () => (gw.destroy(), bare.destroy()));
  await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS.create } }, [201]);
  progress(`writes with ${label}: the minimal write server and the gateway (interleaved)`);
  const writes = await writeFigures(c, gw, bare, label);
  await one.run();
  return writes;
}

/**
 * The watch fan-out through the gateway, and the same watchers and creates against the minimal
 * server, which writes each create's event to every watch socket at once: the floor of delivering
 * one event to this many TLS watchers and reading it back, on this machine.
 */
async function fanoutFigure(c: BenchCluster, gw: HttpClient, bare: HttpClient): Promise<Row> {
  const opts = { caPem: c.caPem, token: c.token, namespace: NS.watch, watchers: WATCHERS, writes: FANOUT_WRITES };
  const fan = await watchFanout(gw, { ...opts, url: c.gatewayUrl });
  const floor = await watchFanout(bare, { ...opts, url: c.baselineUrl });
  return {
    figure: `watch fan-out to ${fan.watchers.toLocaleString('en-US')} watchers (${fan.writes} writes)`,
    measured: `p50 ${ms(fan.p50Ms)} p99 ${ms(fan.p99Ms)}`,
    limit: `min ${ms(fan.minMs)} max ${ms(fan.maxMs)}, per-write p99 ${fan.perWriteP99Ms.map((x) => x.toFixed(0)).join('/')} ms, missed ${fan.missed}; minimal server p50 ${ms(floor.p50Ms)} p99 ${ms(floor.p99Ms)} min ${ms(floor.minMs)}`,
    target: `p99 ≤ ${TARGET.fanoutP99Ms} ms`,
    ok: fan.p99Ms <= TARGET.fanoutP99Ms && fan.missed === 0,
  };
}

/** A `--*-only` run: a cluster, one group of figures, the table. */
async function oneFigure(title: string, figures: (c: BenchCluster, gw: HttpClient, cleanup: Cleanup) => Promise<{ rows: Row[]; results: LoadResult[] }>): Promise<void> {
  const cleanup = cleanupOnInterrupt();
  try {
    progress('starting nats-server, services and gateway');
    const c = await startBenchCluster(cleanup);
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

/** Profiles the gateway during one more load run (not part of the table); the top frames as text. */
async function profileGateway(c: BenchCluster, gw: HttpClient, what: string, getPath: string): Promise<string> {
  const file = path.join(c.dir, `gateway-${what}.cpuprofile`);
  progress(`profiling the gateway during ${what}`);
  await c.gatewayCommand({ cmd: 'profile-start' });
  const op: Operation = what === 'create' ? configMapWrites(gw, NS.create, 'prof').create : getOp(gw, `${getPath}?resourceVersion=0`);
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
