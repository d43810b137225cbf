// The change log against a real nats-server: storage's writes (the object store, as the storage
// service makes them) are copied into the log, and a watch cache started after them rebuilds its
// window from it — the same snapshots and the same watch events as a cache that lived through them.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../support/nats.js';
import { openObjectBucket } from '../../shared/store/kv-bucket.js';
import { startCacheFeed, type CacheFeed } from '../../shared/store/kv-feed.js';
import { ensureChangeLog, readChangeLog, type ChangeLogRead } from '../../shared/store/change-log.js';
import { changeLogStream } from '../../shared/bus/streams.js';
import { WatchCache, type WatchSink } from '../../shared/store/watch-cache.js';
import type { CachedObject } from '../../shared/codec/cached-object.js';
import { resourceKey } from '../../shared/api/resource-key.js';
import { createBucketWriter, type BucketWriter } from '../../services/storage/bucket-writer.js';
import { jsonWatchEncoder } from '../../shared/codec/json.js';
import { silentLogger } from '../../shared/log.js';

const CM = resourceKey('', 'configmaps');
const WINDOW_MS = 5 * 60_000;
let nats: TestNats;
let nc: NatsConnection;
const feeds: CacheFeed[] = [];

before(async () => {
  nats = await startTestNats();
  nc = await nats.connect('change-log-test');
});
after(async () => {
  for (const f of feeds) await f.stop();
  await nats.stop();
});

async function storeFor(bucket: string, now?: () => Date): Promise<BucketWriter> {
  const kv = await openObjectBucket(nc, { bucket, create: true });
  await ensureChangeLog(nc, bucket, { windowMs: WINDOW_MS, replicas: 1 });
  return createBucketWriter({ kv, nc, bucket, windowMs: WINDOW_MS, ...(now ? { now } : {}) });
}

/** A watch cache started now, as a gateway starts one: the bucket's state (it serves), then its window from the log. */
async function startCache(bucket: string): Promise<WatchCache> {
  const kv = await openObjectBucket(nc, { bucket });
  const cache = new WatchCache({ windowMs: WINDOW_MS });
  const feed = startCacheFeed(kv, cache, { log: silentLogger(), history: (through) => readChangeLog(nc, { bucket, through }) });
  feeds.push(feed);
  await feed.synced;
  assert.ok(cache.synced);
  await feed.windowRestored;
  return cache;
}

const ref = (name: string) => ({ group: '', resource: 'configmaps', namespace: 'default', name });
const cm = (name: string, v: string, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  data: { v },
});
const view = (items: CachedObject[]) => items.map((o) => `${o.sortKey}@${o.revision}=${JSON.stringify(o.object.data)}`);

function collect(cache: WatchCache, afterRevision: number, filter?: (o: any) => boolean): string[] {
  const seen: string[] = [];
  const sink: WatchSink = {
    write: (c) => (seen.push(((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion} ${JSON.stringify(e.object.data)}`)(JSON.parse(String(c)))), true),
    close: () => undefined,
  };
  cache.watch(CM, { afterRevision, encoder: jsonWatchEncoder, sink, ...(filter ? { filter } : {}) }).stop();
  return seen;
}

test('change log - a cache started after the writes serves every revision since, as one that saw them', async () => {
  const bucket = 'clog';
  const store = await storeFor(bucket);
  const witness = await startCache(bucket);
  const revisions = [witness.revision];
  const step = async (w: Promise<{ revision: number }>) => revisions.push((await w).revision);
  await step(store.create(ref('a'), cm('a', '1', { app: 'x' })));
  await step(store.create(ref('b'), cm('b', '1', { app: 'x' })));
  await step(store.create(ref('c'), cm('c', '1')));
  let a = (await store.get(ref('a'))).revision;
  await step(store.update(ref('a'), { ...cm('a', '2', { app: 'y' }), metadata: { ...cm('a', '2', { app: 'y' }).metadata, resourceVersion: String(a) } }, a));
  await step(store.delete(ref('b')));
  await step(store.create(ref('b'), cm('b', '2')));
  const c = (await store.get(ref('c'))).revision;
  await step(store.update(ref('c'), cm('c', '2', { app: 'x' }), c));
  a = (await store.get(ref('a'))).revision;
  await step(store.delete(ref('a'), a));
  await witness.waitFor(revisions.at(-1)!, 5_000);

  const late = await startCache(bucket);
  assert.equal(late.revision, witness.revision);
  assert.ok(late.compactedRevision <= revisions[1]! - 1, `the rebuilt window starts before the first write (${late.compactedRevision})`);
  for (const r of revisions) assert.deepEqual(view(late.snapshot(CM, r)), view(witness.snapshot(CM, r)), `state at ${r}`);
  const labelled = (o: any) => o.metadata.labels?.app === 'x';
  for (const r of revisions) {
    assert.deepEqual(collect(late, r), collect(witness, r), `watch from ${r}`);
    assert.deepEqual(collect(late, r, labelled), collect(witness, r, labelled), `filtered watch from ${r}`);
  }
  // What a filtered watcher sees across the label changes: a left the selector, c entered it.
  assert.deepEqual(collect(late, revisions[3]!, labelled), [`DELETED a@${revisions[4]} {"v":"2"}`, `DELETED b@${revisions[5]} {"v":"1"}`, `ADDED c@${revisions[7]} {"v":"2"}`]);
});

test('change log - a write whose previous object is older than the window carries it; without it the window starts at that write', async () => {
  const bucket = 'clogold';
  const jsm = await jetstreamManager(nc);
  const store = await storeFor(bucket);
  await store.create(ref('old'), cm('old', '1'));
  await store.create(ref('gone'), cm('gone', '1'));
  const plainCreated = await store.create(ref('plain'), cm('plain', '1'));
  // The log ages those creates out.
  while ((await jsm.streams.info(changeLogStream(bucket))).state.messages < 3) await new Promise((r) => setTimeout(r, 20));
  await jsm.streams.purge(changeLogStream(bucket));
  // Writes made "ten minutes later" carry what they replace.
  const later = await storeFor(bucket, () => new Date(Date.now() + 2 * WINDOW_MS));
  const before = plainCreated.revision;
  const updated = await later.update(ref('old'), cm('old', '2'), (await later.get(ref('old'))).revision);
  const deleted = await later.delete(ref('gone'));
  const read = await readChangeLog(nc, { bucket, through: deleted.revision });
  // Each carries the revision it replaced and that object as stored.
  const carried = read.changes.map((c) => (typeof c.replaced === 'object' && c.replaced.json ? [c.replaced.revision, JSON.parse(c.replaced.json)] : c.replaced));
  assert.deepEqual(
    carried.map((c) => Array.isArray(c) && [c[0], c[1].metadata.name, c[1].data.v, typeof c[1].metadata.uid]),
    [
      [1, 'old', '1', 'string'],
      [2, 'gone', '1', 'string'],
    ],
  );

  let late = await startCache(bucket);
  assert.equal(late.compactedRevision, updated.revision - 1);
  assert.deepEqual(view(late.snapshot(CM, before)), [`default/gone@${before - 1}={"v":"1"}`, `default/old@${before - 2}={"v":"1"}`, `default/plain@${before}={"v":"1"}`]);
  assert.deepEqual(collect(late, before), [`MODIFIED old@${updated.revision} {"v":"2"}`, `DELETED gone@${deleted.revision} {"v":"1"}`]);

  // A write that names a predecessor the log lacks and does not carry it: history starts there.
  const plain = await store.update(ref('plain'), cm('plain', '2'), plainCreated.revision);
  late = await startCache(bucket);
  assert.equal(late.compactedRevision, plain.revision);
  assert.throws(() => late.snapshot(CM, plain.revision - 1), /too old/);
  assert.deepEqual(collect(late, plain.revision), []);
});

test('change log - a write the log lacks starts the window at it; a log not read to its end restores nothing', async () => {
  const bucket = 'clogbad';
  const store = await storeFor(bucket);
  await store.create(ref('x'), cm('x', '1'));
  // The log takes a write just after the bucket does: read once it has it.
  let read = await readChangeLog(nc, { bucket, through: 1 });
  for (const until = Date.now() + 10_000; read.changes.length === 0 && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 50));
    read = await readChangeLog(nc, { bucket, through: 1 });
  }
  assert.equal(read.complete, true);
  assert.equal(read.changes.length, 1);
  // The bucket moved on and the log has not got that write yet: x is known only from it on.
  const x = await store.update(ref('x'), cm('x', '2'), 1);
  const cache = new WatchCache();
  cache.apply({ key: read.changes[0]!.key, revision: x.revision, operation: 'PUT', value: new TextEncoder().encode(JSON.stringify(cm('x', '2'))) });
  cache.markLoaded(x.revision, true);
  assert.equal(await cache.restoreHistory(read), 0);
  assert.equal(cache.compactedRevision, x.revision);
  // From a time on: what the log took since then (nothing yet: answered at once, not waited for).
  const t0 = Date.now();
  assert.deepEqual((await readChangeLog(nc, { bucket, through: 10, since: new Date(Date.now() + 60_000) })).changes, []);
  assert.ok(Date.now() - t0 < 2_000, 'an empty read does not wait');
  assert.deepEqual(
    (await readChangeLog(nc, { bucket, through: 10, since: new Date(Date.now() - 60_000) })).changes.map((c) => c.revision),
    [1, x.revision],
  );
  // An incomplete read is no history either.
  const fresh = new WatchCache();
  fresh.markLoaded(1, true);
  assert.equal(await fresh.restoreHistory({ changes: read.changes, complete: false }), 0);
  assert.equal(fresh.compactedRevision, 1);
});

test('change log - a read while NATS is down waits for it until its deadline', async (t) => {
  if (!nats.restart) return t.skip('needs a local nats-server it can restart');
  const bucket = 'clogdown';
  const store = await storeFor(bucket);
  const x = await store.create(ref('x'), cm('x', '1'));
  const y = await store.create(ref('y'), cm('y', '1'));
  let patient!: Promise<ChangeLogRead>;
  let hasty!: Promise<{ read: ChangeLogRead; ms: number }>;
  const t0 = Date.now();
  // Down for longer than one JetStream request's timeout (5 s): a single attempt would fail.
  await nats.restart(async () => {
    patient = readChangeLog(nc, { bucket, through: y.revision, timeoutMs: 30_000 });
    hasty = readChangeLog(nc, { bucket, through: y.revision, timeoutMs: 1_000 }).then((read) => ({ read, ms: Date.now() - t0 }));
    await new Promise((r) => setTimeout(r, 6_000));
  });
  const late = await patient;
  assert.equal(late.complete, true);
  assert.deepEqual(
    late.changes.map((c) => c.revision),
    [x.revision, y.revision],
  );
  assert.ok(Date.now() - t0 >= 6_000);
  // Past its deadline a read gives up: no history rather than a wait without end.
  const given = await hasty;
  assert.deepEqual(given.read, { changes: [], complete: false });
  assert.ok(given.ms < 3_000, `gave up after ${given.ms} ms`);
});
