// The scale figures (issue 35 §5): 100,000 ConfigMaps of about 1 KiB over 100 namespaces, and a
// change log of a million entries, as a system writing 1,500 objects a second holds for its whole
// retention (twice the 5-minute window and a minute: 11 minutes × 1,500/s ≈ 1,000,000).
//
// On a cluster of its own (every service in its own process, no floors): the bucket's revisions
// are moved on before the services start (scale-fill.ts), the log's earlier rounds are filled
// while the system runs (a running gateway does not read the log), then the last round goes into
// the bucket and the running gateway caches it. Figures: the gateway's live heap per cached object
// (after a full GC, as the 10,000 row), full and chunked lists of everything, a storage replica's
// start-up with that bucket, a joining gateway's time to serve (scale-join.ts), at rest and under
// 1,500 writes/s, and last the heap per cached object again for 100,000 of the 10,000 row's
// ConfigMaps (~350 bytes), the objects its target was set with.

import { Cleanup } from './cleanup.js';
import { startBenchCluster, type BenchCluster } from './cluster.js';
import { HttpClient } from './http.js';
import { timeLists } from './reads.js';
import { mib, ms, type Row } from './report.js';
import { fillEarlierRounds, fillLastRound, jumpBucket, objectBytes, scaleNamespace, type ScaleShape } from './scale-fill.js';
import { joinFigure, storageStartFigure } from './scale-join.js';
import { storedConfigMap } from './objects.js';
import { seedConfigMaps, seedName } from './writes.js';
import { DEFAULT_WINDOW_MS } from '../shared/store/watch-cache.js';
import { DEFAULT_BUCKET } from '../shared/api/groups.js';

export interface ScaleTargets {
  shape: ScaleShape;
  /** The steady write rate the log was filled at (its entries = objects × rounds) and a joining gateway meets. */
  writesPerSecond: number;
  heapPerObjectKiB: number;
  chunkedOverFull: number;
  joinReadyMs: number;
}

export interface ScaleOptions {
  progress(msg: string): void;
  /** Profile the joining gateway (at rest) from its start to serving; the summary is returned. */
  profileJoin?: boolean;
}

const BUCKET = DEFAULT_BUCKET;
const SAME_SHAPE_NAMESPACE = 'scale-same-shape';
const n = (x: number) => x.toLocaleString('en-US');

/** The scale rows, on a cluster of their own that is stopped again before this resolves. */
export async function scaleFigures(parent: Cleanup, t: ScaleTargets, o: ScaleOptions): Promise<{ rows: Row[]; profile?: string }> {
  const cleanup = new Cleanup();
  parent.defer('stop the scale cluster', () => cleanup.run());
  try {
    return await measure(cleanup, t, o);
  } finally {
    await cleanup.run();
  }
}

async function measure(cleanup: Cleanup, t: ScaleTargets, o: ScaleOptions): Promise<{ rows: Row[]; profile?: string }> {
  const { shape } = t;
  const logEntries = shape.objects * shape.rounds;
  o.progress(`scale: ${n(shape.objects)} ConfigMaps of ${objectBytes(shape)} bytes in ${shape.namespaces} namespaces, a change log of ${n(logEntries)} entries`);
  const c = await startBenchCluster(cleanup, 'processes', { floors: false, prepare: (nc) => jumpBucket(nc, BUCKET, shape, DEFAULT_WINDOW_MS) });
  const gw = new HttpClient(c.gatewayUrl, c.caPem, { token: c.token, maxSockets: 4 });
  cleanup.defer('close HTTP agent', () => gw.destroy());
  for (let i = 0; i < shape.namespaces; i++) await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: scaleNamespace(shape, i) } }, [201]);
  const others = await configMapCount(gw);
  const heap = async () => ((await c.gatewayCommand({ cmd: 'memory' })).memory.heapUsed as number) / 2 ** 20;
  const heapEmpty = await heap();
  const rssEmpty = c.gateway.rssMiB();

  const fill = await fillData(c, shape, o.progress);
  const total = others + shape.objects;
  const cached = await configMapCount(gw);
  if (cached !== total) throw new Error(`the gateway caches ${cached} ConfigMaps, expected ${total}`);
  const heapFull = await heap();
  const rows: Row[] = [
    {
      figure: `gateway live heap per cached object, ${n(shape.objects)} ConfigMaps of ${objectBytes(shape)} B`,
      measured: `${(((heapFull - heapEmpty) * 1024) / shape.objects).toFixed(2)} KiB`,
      limit: `${(((heapFull - heapEmpty) * 1024 ** 2) / shape.objects - objectBytes(shape)).toFixed(0)} B beyond the object's JSON; heap ${mib(heapEmpty)} → ${mib(heapFull)}, RSS ${mib(rssEmpty)} → ${mib(c.gateway.rssMiB())} (information: the target is on the row of the 10,000 row's objects)`,
    },
  ];
  o.progress(`scale: full and chunked lists of all ${n(total)} ConfigMaps`);
  rows.push(...(await scaleLists(gw, total, t.chunkedOverFull)));
  o.progress('scale: a storage replica starting with that bucket (3 times)');
  rows.push(await storageStartFigure(cleanup, c, 3));
  const joins = { ...t, bucket: BUCKET, progress: o.progress };
  o.progress('scale: a gateway joining, at rest');
  const atRest = await joinFigure(cleanup, c, { ...joins, writesPerSecond: 0, profile: o.profileJoin === true, revisions: fill.revisions });
  o.progress(`scale: a gateway joining under ${n(t.writesPerSecond)} writes/s`);
  const loaded = await joinFigure(cleanup, c, { ...joins, profile: false, revisions: fill.revisions });
  rows.push(atRest.row, loaded.row);
  o.progress(`scale: ${n(shape.objects)} more ConfigMaps of the 10,000 row's shape, gateway heap before and after`);
  rows.push(await sameShapeHeap(c, gw, total, shape.objects, t.heapPerObjectKiB), fill.row);
  return { rows, ...(atRest.profile ? { profile: atRest.profile } : {}) };
}

/**
 * The heap row the target was set from (0.9 KiB a cached object at 10,000, the bench's usual
 * ~350-byte ConfigMaps: run.ts `memoryFigure`), at 100,000: as many of those put into the bucket
 * beside what is there, the gateway's live heap (after a full GC) before and once its cache holds
 * them. Last, so that the lists and joins above see the scale data alone.
 */
async function sameShapeHeap(c: BenchCluster, gw: HttpClient, before: number, count: number, targetKiB: number): Promise<Row> {
  const heap = async () => ((await c.gatewayCommand({ cmd: 'memory' })).memory.heapUsed as number) / 2 ** 20;
  await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SAME_SHAPE_NAMESPACE } }, [201]);
  const heapBefore = await heap();
  await seedConfigMaps(c.nc, BUCKET, SAME_SHAPE_NAMESPACE, count);
  const cached = await configMapCount(gw);
  if (cached !== before + count) throw new Error(`the gateway caches ${cached} ConfigMaps, expected ${before + count}`);
  const perObjectKiB = (((await heap()) - heapBefore) * 1024) / count;
  const bytes = JSON.stringify(storedConfigMap(SAME_SHAPE_NAMESPACE, seedName(0))).length;
  return {
    figure: `gateway live heap per cached object, ${n(count)} ConfigMaps of ${bytes} B (the 10,000 row's)`,
    measured: `${perObjectKiB.toFixed(2)} KiB`,
    limit: `${(perObjectKiB * 1024 - bytes).toFixed(0)} B beyond the object's JSON; added beside the ${n(before)} above`,
    target: `≤ ${targetKiB} KiB`,
    ok: perObjectKiB <= targetKiB,
  };
}

/** The log's earlier rounds, then the last round into the bucket; how long each took. */
async function fillData(c: BenchCluster, shape: ScaleShape, progress: (msg: string) => void): Promise<{ revisions: number[]; row: Row }> {
  const earlier = (shape.rounds - 1) * shape.objects;
  progress(`scale: ${n(earlier)} earlier log entries (raw publishes of ${n(5_000)}, a flush after each)`);
  let t = performance.now();
  await fillEarlierRounds(c.nc, BUCKET, shape);
  const earlierMs = performance.now() - t;
  progress(`scale: the last round, ${n(shape.objects)} creates into the bucket with their log entries`);
  t = performance.now();
  const revisions = await fillLastRound(c.nc, BUCKET, shape);
  const lastMs = performance.now() - t;
  const row: Row = {
    figure: `scale set-up: ${n(earlier)} + ${n(shape.objects)} log entries, ${n(shape.objects)} bucket writes`,
    measured: `${((earlierMs + lastMs) / 1000).toFixed(0)} s`,
    limit: `log ${n(Math.round(earlier / (earlierMs / 1000)))}/s raw; bucket and log ${n(Math.round(shape.objects / (lastMs / 1000)))}/s (information)`,
  };
  return { revisions, row };
}

/** ConfigMaps of every namespace, by a consistent read (it waits until the cache has applied the last write). */
async function configMapCount(gw: HttpClient): Promise<number> {
  const page = await gw.json<{ items: unknown[]; metadata: { remainingItemCount?: number } }>('GET', '/api/v1/configmaps?limit=1');
  return page.items.length + (page.metadata.remainingItemCount ?? 0);
}

async function scaleLists(gw: HttpClient, total: number, chunkedOverFull: number): Promise<Row[]> {
  const lists = await timeLists(gw, '', { runs: 3, chunkRuns: 2, limit: 500 });
  if (lists.items !== total) throw new Error(`full list returned ${lists.items} items, expected ${total}`);
  const ratio = Math.round((lists.chunkedMs / lists.fullMs) * 100) / 100;
  return [
    { figure: `full list of ${n(total)} ConfigMaps, all namespaces (median of 3)`, measured: ms(lists.fullMs), limit: `${(lists.bytes / 2 ** 20).toFixed(0)} MiB body` },
    {
      figure: `chunked list limit=500 (${lists.pages} pages, median of 2)`,
      measured: ms(lists.chunkedMs),
      limit: `${ms(lists.chunkedMs / lists.pages)} per page; full list ${ms(lists.fullMs)}`,
      ratio,
      target: `≤ ${chunkedOverFull}× full (as at 10,000)`,
      ok: ratio <= chunkedOverFull,
    },
  ];
}
