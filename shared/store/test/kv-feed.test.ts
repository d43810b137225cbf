import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { KV, KvEntry } from '@nats-io/kv';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { openObjectBucket } from '../kv-bucket.js';
import { startKvFeed } from '../kv-feed.js';
import type { Logger } from '../../log.js';

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
    assert.deepEqual(entries.map((e) => e.key), ['a.one', 'b.two'], 'both filters still deliver');
    assert.equal(await consumers(), 2);
  } finally {
    await feed.stop();
  }
});
