// The nats.js internals shared/store/nats-internals.ts relies on, against a real nats-server: each
// assertion here fails when an upgrade of @nats-io/kv or @nats-io/jetstream changes one of them.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../support/nats.js';
import { openObjectBucket } from '../../shared/store/kv-bucket.js';
import { bucketStream, consumerOf, headersOnlyHistory, nextSequence, retireConsumer } from '../../shared/store/nats-internals.js';

let nats: TestNats;
let nc: NatsConnection;
let kv: KV;

before(async () => {
  nats = await startTestNats();
  nc = await nats.connect('nats-internals-test');
  kv = await openObjectBucket(nc, { bucket: 'internals', create: true });
});
after(async () => {
  await nats.stop();
});

const consumerNames = async () => {
  const names: string[] = [];
  for await (const ci of (await jetstreamManager(nc)).consumers.list('KV_internals')) names.push(ci.name);
  return names;
};

test('nats internals - a watch exposes its consumer: pending count, delivered position, name, and delete', async () => {
  await kv.put('w.a', '1');
  await kv.put('w.b', '2');
  const iter = await kv.watch({ key: 'w.>' });
  const consumer = consumerOf(iter);
  assert.ok(consumer, 'the watch iterator carries its consumer');
  const cached = await consumer.info(true);
  assert.equal(cached.num_pending, 2, 'the cached info counts the replay still to come');
  assert.ok((await consumerNames()).includes(cached.name), 'the name is the server-side consumer');
  for await (const e of iter) if (e.key === 'w.b') break;
  const fresh = await consumer.info(false);
  assert.ok((fresh.delivered?.stream_seq ?? 0) >= 2, `delivered position ${JSON.stringify(fresh.delivered)}`);
  await retireConsumer(iter);
  assert.ok(!(await consumerNames()).includes(cached.name), 'retired: the server no longer has it');
});

test('nats internals - the bucket names its stream and key subjects, and its manager reads the stream', async () => {
  const b = bucketStream(kv);
  assert.equal(b.stream, 'KV_internals');
  assert.equal(b.subjectForKey('a.b'), '$KV.internals.a.b');
  assert.equal(b.subjectForKey('>'), '$KV.internals.>');
  assert.equal((await b.jsm.streams.info(b.stream)).config.name, 'KV_internals');
});

test('nats internals - the next message by subject from a sequence, or null past the last', async () => {
  const b = bucketStream(kv);
  const x = await kv.put('n.x', '1');
  await kv.put('m.other', '1');
  const y = await kv.put('n.y', '1');
  assert.equal(await nextSequence(b, x, b.subjectForKey('n.>')), x);
  assert.equal(await nextSequence(b, x + 1, b.subjectForKey('n.>')), y, 'entries of other keys are skipped');
  assert.equal(await nextSequence(b, y + 1, b.subjectForKey('n.>')), null);
});

test('nats internals - a headers-only history carries no values', async () => {
  await kv.put('h.a', 'a value that must not travel');
  const iter = await headersOnlyHistory(kv, 'h.>');
  const seen: Array<[string, number]> = [];
  for await (const e of iter) {
    seen.push([e.key, e.value.length]);
    if (e.delta === 0) break;
  }
  assert.deepEqual(seen, [['h.a', 0]]);
  await retireConsumer(iter);
});
