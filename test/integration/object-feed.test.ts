import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../support/nats.js';
import { openObjectBucket } from '../../shared/store/kv-bucket.js';
import { encodeKey } from '../../shared/store/key-codec.js';
import { groupFilter, resourceFilter, startObjectFeed, type FeedEvent } from '../../shared/store/object-feed.js';
import { silentLogger } from '../../shared/log.js';
import type { ObjectRef } from '../../shared/api/types.js';

let nats: TestNats;
let nc: NatsConnection;
let kv: KV;

before(async () => {
  nats = await startTestNats();
  nc = await nats.connect('feed-test');
  kv = await openObjectBucket(nc, { bucket: 'feed', create: true });
});
after(async () => {
  await nats.stop();
});

const put = (ref: ObjectRef, extra: object = {}) => kv.put(encodeKey(ref), JSON.stringify({ metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) }, ...extra }));

async function until(cond: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('object feed - replays current objects of its filters, then follows changes in order', async () => {
  await put({ group: '', resource: 'secrets', namespace: 'a', name: 's1' }, { data: { k: 'djE=' } });
  await put({ group: 'rbac.authorization.platform.io', resource: 'roles', namespace: 'a', name: 'r1' });
  await put({ group: '', resource: 'configmaps', namespace: 'a', name: 'ignored' });
  const events: FeedEvent[] = [];
  const feed = startObjectFeed({
    nc,
    bucket: 'feed',
    filters: [resourceFilter('', 'secrets'), groupFilter('rbac.authorization.platform.io'), resourceFilter('', 'pods')],
    onEvent: (e) => events.push(e),
    log: silentLogger(),
  });
  try {
    await feed.synced;
    assert.deepEqual(events.map((e) => `${e.ref.resource}/${e.ref.name}`).sort(), ['roles/r1', 'secrets/s1'], 'replay holds only the filtered resources; an empty filter (pods) still syncs');
    const s1 = events.find((e) => e.ref.name === 's1')!;
    assert.equal(s1.object?.metadata.resourceVersion, String(s1.revision), 'resourceVersion is the KV revision');
    assert.ok(feed.healthy());

    events.length = 0;
    await put({ group: '', resource: 'pods', namespace: 'a', name: 'p1' });
    await kv.delete(encodeKey({ group: '', resource: 'secrets', namespace: 'a', name: 's1' }));
    await put({ group: '', resource: 'pods', namespace: 'a', name: 'p1' }, { spec: { nodeName: 'n1' } });
    await until(() => events.length === 3);
    // Each filter is its own watch: changes come in stream order within a filter, in no set
    // order across filters (every consumer keys its view by object, so it needs no more).
    const seen = (resource: string) =>
      events.filter((e) => e.ref.resource === resource).map((e) => [e.ref.name, e.object === null ? 'deleted' : ((e.object.spec as { nodeName?: string } | undefined)?.nodeName ?? 'unbound')]);
    assert.deepEqual(seen('pods'), [
      ['p1', 'unbound'],
      ['p1', 'n1'],
    ]);
    assert.deepEqual(seen('secrets'), [['s1', 'deleted']]);
    const podRevisions = events.filter((e) => e.ref.resource === 'pods').map((e) => e.revision);
    assert.ok(podRevisions[0]! < podRevisions[1]!, `pod revisions in order: ${podRevisions.join(', ')}`);
    assert.equal(feed.revision(), Math.max(...events.map((e) => e.revision)));
  } finally {
    await feed.stop();
  }
  assert.equal(feed.healthy(), false);
});

test('object feed - waits for a bucket that does not exist yet', async () => {
  const events: FeedEvent[] = [];
  const feed = startObjectFeed({ nc, bucket: 'late', filters: [resourceFilter('', 'secrets')], onEvent: (e) => events.push(e), log: silentLogger(), retryMs: 50 });
  try {
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(feed.healthy(), false);
    const late = await openObjectBucket(nc, { bucket: 'late', create: true });
    await late.put(encodeKey({ group: '', resource: 'secrets', namespace: 'x', name: 'y' }), JSON.stringify({ metadata: { name: 'y' } }));
    await feed.synced;
    await until(() => events.length === 1);
    assert.equal(events[0]!.ref.name, 'y');
  } finally {
    await feed.stop();
  }
});
