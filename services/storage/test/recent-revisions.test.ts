// Which revisions storage may write over without reading the entry first: the pure bound, and the
// object store's use of it against a real nats-server.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { openObjectBucket } from '../../../shared/store/kv-bucket.js';
import { ensureChangeLog } from '../../../shared/store/change-log.js';
import { StatusError } from '../../../shared/api/status.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { createBucketWriter } from '../bucket-writer.js';
import { recentRevisions } from '../recent-revisions.js';

const WINDOW = 60_000;

describe('recent revisions - the bound', () => {
  const cases: Array<{ name: string; samples: Array<[number, number]>; ask: number; at: number; want: boolean }> = [
    { name: 'nothing recorded: nothing is known', samples: [], ask: 5, at: 0, want: false },
    { name: 'the recorded revision itself', samples: [[10, 1_000]], ask: 10, at: 2_000, want: true },
    { name: 'a later revision', samples: [[10, 1_000]], ask: 11, at: 2_000, want: true },
    { name: 'an earlier revision may be older', samples: [[10, 1_000]], ask: 9, at: 2_000, want: false },
    { name: 'the sample left the window', samples: [[10, 1_000]], ask: 10, at: 1_000 + WINDOW + 1, want: false },
    {
      name: 'the oldest sample still in the window bounds it',
      samples: [
        [10, 1_000],
        [20, 30_000],
      ],
      ask: 15,
      at: 1_000 + WINDOW + 1,
      want: false,
    },
    {
      name: 'a revision from the later sample on is young',
      samples: [
        [10, 1_000],
        [20, 30_000],
      ],
      ask: 20,
      at: 1_000 + WINDOW + 1,
      want: true,
    },
    {
      name: 'samples closer than the spacing keep the first',
      samples: [
        [10, 1_000],
        [8, 1_050],
        [12, 1_050],
      ],
      ask: 9,
      at: 2_000,
      want: false,
    },
    {
      name: 'an acknowledgement arriving out of order is not a lower bound',
      samples: [
        [10, 1_000],
        [9, 1_500],
      ],
      ask: 9,
      at: 2_000,
      want: false,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = recentRevisions(WINDOW, 100);
      for (const [rev, t] of c.samples) r.record(rev, t);
      assert.equal(r.writtenWithin(c.ask, c.at), c.want);
    });
  }

  test('many samples over a long time: answers stay right after the arrays compact', () => {
    const r = recentRevisions(WINDOW, 100);
    for (let t = 0; t <= 10 * WINDOW; t += 100) r.record(t / 100 + 1, t);
    const now = 10 * WINDOW;
    const oldestKept = (now - WINDOW) / 100 + 1;
    assert.equal(r.writtenWithin(oldestKept, now), true);
    assert.equal(r.writtenWithin(oldestKept - 1, now), false);
  });
});

describe('recent revisions - the object store reads only what it cannot vouch for', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('storage');
  });
  after(() => nats.stop());

  /** The store over a real bucket, with its clock in the test's hands and its reads counted. */
  async function store(bucket: string) {
    const kv = await openObjectBucket(nc, { bucket, create: true });
    await ensureChangeLog(nc, bucket, { windowMs: WINDOW, replicas: 1 });
    let clock = Date.now();
    const reads = { count: 0 };
    const counted: KV = Object.create(kv, { get: { value: (...args: Parameters<KV['get']>) => (reads.count++, kv.get(...args)) } });
    const s = createBucketWriter({ kv: counted, nc, bucket, windowMs: WINDOW, now: () => new Date(clock) });
    return { s, kv, reads, advance: (ms: number) => (clock += ms) };
  }
  const ref = (name: string) => ({ group: '', resource: 'configmaps', namespace: 'default', name });
  const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } });

  test('an update and a delete of an object this replica wrote within the window make no read', async () => {
    const { s, reads } = await store('recent-a');
    const c = await s.create(ref('a'), cm('a', '1'));
    const u = await s.update(ref('a'), cm('a', '2'), c.revision);
    await s.delete(ref('a'), u.revision);
    assert.equal(reads.count, 0);
  });

  test("a revision from before the window is read first: a stale one is 409, a delete marker's is 404, and neither writes", async () => {
    const { s, kv, advance } = await store('recent-b');
    const c = await s.create(ref('b'), cm('b', '1'));
    const u = await s.update(ref('b'), cm('b', '2'), c.revision);
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 0,
        (e: unknown) => (e instanceof StatusError ? e.code : -1),
      );
    advance(WINDOW + 1);
    assert.equal(await code(s.update(ref('b'), cm('b', 'stale'), c.revision)), 409);
    const d = await s.delete(ref('b'), u.revision);
    advance(WINDOW + 1);
    // A client that saw the DELETED event knows the marker's revision; it must not resurrect.
    assert.equal(await code(s.update(ref('b'), cm('b', 'back'), d.revision)), 404);
    assert.equal(await code(s.delete(ref('b'), d.revision)), 404);
    const e = await kv.get(encodeKey(ref('b')));
    assert.equal(e?.operation, 'DEL');
    assert.equal(e?.revision, d.revision);
  });
});
