import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../support/nats.js';
import { openObjectBucket } from '../../shared/store/kv-bucket.js';
import type { Logger } from '../../shared/log.js';
import { startCacheFeed, startKvFeed } from '../../shared/store/kv-feed.js';
import { WatchCache, type WatchSink } from '../../shared/store/watch-cache.js';
import { encodeKey } from '../../shared/store/key-codec.js';
import { resourceKey } from '../../shared/api/resource-key.js';
import { jsonWatchEncoder } from '../../shared/codec/json.js';
import { eventually } from '../e2e/helpers.js';

let nats: TestNats;
let nc: NatsConnection;
let kv: KV;

before(async () => {
  nats = await startTestNats();
  nc = await nats.connect('kv-feed-test');
  kv = await openObjectBucket(nc, { bucket: 'kvfeed', create: true });
});
after(async () => {
  await nats.stop();
});

/** A logger that keeps the messages of warnings, to see whether a watch restarted. */
function warnings(): { log: Logger; messages: string[] } {
  const messages: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      messages.push(JSON.parse(String(chunk)).msg);
      done();
    },
  });
  return { log: pino({ level: 'warn' }, sink) as unknown as Logger, messages };
}

const consumers = async () => (await (await jetstreamManager(nc)).streams.info('KV_kvfeed')).state.consumer_count;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// An idle watch must stay one consumer: its server-side position moves past other keys' entries,
// which once read as a message lost in flight and restarted every watch every two checks (the
// idle server's consumer count climbed by dozens a minute).
test('kv feed - a watch whose keys do not change while others do is not restarted', async () => {
  await kv.put('a.one', '1');
  const { log, messages } = warnings();
  const entries: KvEntry[] = [];
  const feed = startKvFeed({ kv, filters: ['a.>', 'b.>'], onEntry: (e) => entries.push(e), onResync: () => assert.fail('no resync expected'), log, livenessMs: 40 });
  try {
    await feed.synced;
    for (let i = 0; i < 20; i++) await kv.put(`c.k${i}`, String(i));
    await sleep(400);
    assert.deepEqual(messages, [], 'no watch restarted');
    assert.equal(await consumers(), 2, 'one consumer per filter');
    await kv.put('b.two', '2');
    await sleep(100);
    assert.deepEqual(
      entries.map((e) => e.key),
      ['a.one', 'b.two'],
      'both filters still deliver',
    );
    assert.equal(await consumers(), 2);
  } finally {
    await feed.stop();
  }
});

// A replica stopped in a rolling restart must not leave its consumers to nats.js's inactivity
// threshold: for five minutes each would cost nats-server CPU on every write (the soak's count
// doubled after its rolling restart until then).
test('kv feed - a stopped feed has deleted its consumers', async () => {
  const before = await consumers();
  const feed = startKvFeed({ kv, filters: ['s.>', 't.>'], onEntry: () => undefined, onResync: () => undefined, log: warnings().log, handOverMs: 50 });
  await feed.synced;
  await sleep(500); // past the hand-over to the consumers that follow changes
  assert.equal(await consumers(), before + 2);
  await feed.stop();
  assert.equal(await consumers(), before);
});

// The replay must hold the latest entry of every key (a delete as its marker) and nothing older,
// and the changes after it must come from a consumer that starts at a sequence: nats-server walks
// every matching subject per delivered message for a last-per-subject consumer.
test('kv feed - the replay is the latest entry of each key; changes follow from a consumer that starts after it', async () => {
  await kv.put('r.one', '1');
  await kv.put('r.two', '2');
  await kv.put('r.one', '1b');
  await kv.delete('r.two');
  await kv.put('r.three', '3');
  const entries: KvEntry[] = [];
  const feed = startKvFeed({ kv, filters: ['r.>'], onEntry: (e) => entries.push(e), onResync: () => assert.fail('no resync expected'), log: warnings().log, handOverMs: 50 });
  try {
    await feed.synced;
    assert.deepEqual(
      entries.map((e) => [e.key, e.operation, e.string()]),
      [
        ['r.one', 'PUT', '1b'],
        ['r.two', 'DEL', ''],
        ['r.three', 'PUT', '3'],
      ],
    );
    const jsm = await jetstreamManager(nc);
    const policies = async () => {
      const found: string[] = [];
      for await (const ci of jsm.consumers.list('KV_kvfeed')) if (ci.config.filter_subject === '$KV.kvfeed.r.>') found.push(ci.config.deliver_policy);
      return found;
    };
    for (let until = Date.now() + 2_000; (await policies()).join() !== 'by_start_sequence' && Date.now() < until;) await sleep(20);
    assert.deepEqual(await policies(), ['by_start_sequence'], 'the replay consumer gave way to one that follows');
    await kv.put('r.four', '4');
    await sleep(100);
    assert.deepEqual(
      entries.slice(3).map((e) => e.key),
      ['r.four'],
      'live changes follow',
    );
  } finally {
    await feed.stop();
  }
});

test('kv feed - a bucket that keeps several revisions per key still replays only the latest', async () => {
  const deep = await new Kvm(nc).create('kvfeeddeep', { history: 5 });
  await deep.put('k.a', '1');
  await deep.put('k.a', '2');
  await deep.put('k.b', '3');
  const entries: KvEntry[] = [];
  const feed = startKvFeed({ kv: deep, filters: ['k.>'], onEntry: (e) => entries.push(e), onResync: () => assert.fail('no resync expected'), log: warnings().log });
  try {
    await feed.synced;
    assert.deepEqual(
      entries.map((e) => [e.key, e.string()]),
      [
        ['k.a', '2'],
        ['k.b', '3'],
      ],
    );
  } finally {
    await feed.stop();
  }
});

// nats-server places a watch's one-replica consumer on any peer of the stream, and a peer still
// catching up (back from a partition) replays an older state than the stream's last sequence as
// its leader reports it. Taken as covering that sequence, such a replay lost the entries between:
// the cache then lacked acknowledged objects for good and its watchers were never told (seen in the
// compose suite's leader partition). Reproduced on one server: the stream's state is reported as it
// will be once `late` writes land, and they land right after the replay's consumer is made — the
// stream has them, the replay does not.
function replayBehind(target: KV, onReplay: number[], late: () => Promise<void>, count: number): KV {
  let replays = 0;
  let behind = false;
  return new Proxy(target, {
    get(t, p) {
      if (p === 'status')
        return async () => {
          const s = await t.status();
          behind = onReplay.includes(replays + 1);
          if (!behind) return s;
          const info = s.streamInfo;
          const streamInfo = { ...info, state: { ...info.state, last_seq: info.state.last_seq + count } };
          return new Proxy(s, { get: (st, q) => (q === 'streamInfo' ? streamInfo : Reflect.get(st, q)) });
        };
      if (p === 'watch')
        return async (opts: Parameters<KV['watch']>[0]) => {
          const iter = await t.watch(opts);
          if (!opts?.resumeFromRevision) {
            replays++;
            if (behind) await late();
          }
          return iter;
        };
      const v = Reflect.get(t, p);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}

const object = (name: string) => ({
  key: encodeKey({ group: '', resource: 'configmaps', namespace: 'default', name }),
  value: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } }),
});
const cached = (cache: WatchCache) =>
  cache
    .current(resourceKey('', 'configmaps'))
    .map((o) => o.ref.name)
    .sort();

test('kv feed - a first replay from a replica behind the stream is not taken as the stream: the cache ends with every object', async () => {
  const bucket = await openObjectBucket(nc, { bucket: 'kvfeedbehind', create: true });
  for (const n of ['a', 'b']) await bucket.put(object(n).key, object(n).value);
  const lateOnes = ['c', 'd', 'e'];
  const { log, messages } = warnings();
  const cache = new WatchCache();
  const kvBehind = replayBehind(
    bucket,
    [1],
    async () => {
      for (const n of lateOnes) await bucket.put(object(n).key, object(n).value);
    },
    lateOnes.length,
  );
  const feed = startCacheFeed(kvBehind, cache, { log, retryMs: 50 });
  try {
    await feed.synced;
    assert.deepEqual(cached(cache), ['a', 'b', 'c', 'd', 'e']);
    assert.ok(
      messages.some((m) => /replay is behind the stream/.test(m)),
      messages.join('; '),
    );
    await bucket.put(object('f').key, object('f').value);
    await eventually('the next change is cached', () => assert.deepEqual(cached(cache), ['a', 'b', 'c', 'd', 'e', 'f']));
  } finally {
    await feed.stop();
  }
});

test('kv feed - a replay after a restart from a replica behind the stream is not taken as the stream: nothing is lost, nothing stays unsaid', async () => {
  const bucket = await openObjectBucket(nc, { bucket: 'kvfeedbehind2', create: true });
  for (const n of ['a', 'b']) await bucket.put(object(n).key, object(n).value);
  const { log, messages } = warnings();
  const cache = new WatchCache();
  const kvBehind = replayBehind(
    bucket,
    [2],
    async () => {
      await bucket.put(object('c').key, object('c').value);
    },
    1,
  );
  const feed = startCacheFeed(kvBehind, cache, { log, retryMs: 50, handOverMs: 50, livenessMs: 200 });
  try {
    await feed.synced;
    // Past the hand-over, so that what the deletion below ends is the follower, and the watch
    // restarts with a replay (a replay consumer lost during the hand-over is simply handed over).
    const jsm = await jetstreamManager(nc);
    const following = async () => {
      for await (const ci of jsm.consumers.list('KV_kvfeedbehind2')) if (ci.config.deliver_policy === 'by_start_sequence') return true;
      return false;
    };
    await eventually('the watch follows', async () => assert.ok(await following(), 'not following yet'));
    const seen: string[] = [];
    const sink: WatchSink = {
      write: (c) => (seen.push(((e) => (e.type === 'ERROR' ? `ERROR ${e.object.code}` : e.object.metadata.name))(JSON.parse(String(c)))), true),
      close: () => undefined,
    };
    const watch = cache.watch(resourceKey('', 'configmaps'), { afterRevision: cache.revision, encoder: jsonWatchEncoder, sink });
    // Every consumer of the bucket deleted under the feed (a NATS node lost with them): its
    // liveness check restarts the watch, and that replay is the one behind.
    for await (const ci of jsm.consumers.list('KV_kvfeedbehind2')) await jsm.consumers.delete('KV_kvfeedbehind2', ci.name);
    await eventually('the cache holds c', () => assert.deepEqual(cached(cache), ['a', 'b', 'c'], messages.join('; ')), { timeoutMs: 20_000 });
    assert.ok(
      messages.some((m) => /replay is behind the stream/.test(m)),
      messages.join('; '),
    );
    // The watcher was told: the change itself, or 410 Expired to relist.
    await eventually('the watcher was told', () => assert.ok(seen.includes('c') || seen.includes('ERROR 410'), `watcher saw ${seen.join(',') || 'nothing'}`));
    watch.stop();
  } finally {
    await feed.stop();
  }
});
