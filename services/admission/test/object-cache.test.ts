import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { FeedEvent } from '../../../shared/store/object-feed.js';
import { ObjectCache } from '../object-cache.js';

const event = (namespace: string | undefined, name: string, revision: number, object: Partial<ApiObject> | null, resource = 'limitranges'): FeedEvent => ({
  key: `core.${resource}.${namespace ?? '_'}.${name}`,
  ref: { group: '', resource, name, ...(namespace ? { namespace } : {}) },
  revision,
  object: object && ({ metadata: { name, resourceVersion: String(revision), ...(namespace ? { namespace } : {}) }, ...object } as ApiObject),
});

test('object cache - holds the latest object per namespace and name; deletes and older replays', () => {
  const cache = new ObjectCache('', 'limitranges');
  const seen: string[] = [];
  cache.onChange((e) => seen.push(`${e.ref.name}@${e.revision}`));
  cache.apply(event('a', 'one', 5, { spec: { v: 1 } }));
  cache.apply(event('a', 'two', 6, { spec: { v: 2 } }));
  cache.apply(event('b', 'one', 7, { spec: { v: 3 } }));
  cache.apply(event('a', 'one', 4, { spec: { v: 0 } })); // a restarted watch replaying an older write
  cache.apply(event('', 'other', 8, {}));
  cache.apply({ ...event('a', 'x', 9, {}), ref: { group: 'apps', resource: 'limitranges', name: 'x', namespace: 'a' } }); // another resource
  assert.deepEqual(cache.get('a', 'one')?.spec, { v: 1 });
  assert.deepEqual(
    cache
      .list('a')
      .map((o) => o.metadata.name)
      .sort(),
    ['one', 'two'],
  );
  assert.equal(cache.list().length, 4);
  cache.apply(event('a', 'two', 10, null));
  assert.equal(cache.get('a', 'two'), undefined);
  assert.deepEqual(
    cache.list('a').map((o) => o.metadata.name),
    ['one'],
  );
  assert.deepEqual(cache.list('nowhere'), []);
  assert.deepEqual(seen, ['one@5', 'two@6', 'one@7', 'other@8', 'two@10']);
});

test('object cache - lookup reads the store on a miss only', async () => {
  const reads: string[] = [];
  const cache = new ObjectCache('', 'serviceaccounts', async (ref) => {
    reads.push(`${ref.namespace}/${ref.name}`);
    return ref.name === 'fresh' ? ({ metadata: { name: 'fresh' } } as ApiObject) : null;
  });
  cache.apply(event('ns', 'cached', 3, {}, 'serviceaccounts'));
  assert.equal((await cache.lookup('ns', 'cached'))?.metadata.name, 'cached');
  assert.equal((await cache.lookup('ns', 'fresh'))?.metadata.name, 'fresh');
  assert.equal(await cache.lookup('ns', 'missing'), null);
  assert.deepEqual(reads, ['ns/fresh', 'ns/missing']);
});

test('object cache - ready waits for the first sync and gives up with 503', async () => {
  const cache = new ObjectCache('scheduling.platform.io', 'priorityclasses');
  let sync!: () => void;
  cache.attach(new Promise<void>((r) => (sync = r)));
  await assert.rejects(cache.ready(20), (err: { code?: number; message: string }) => err.code === 503 && /priorityclasses\.scheduling\.platform\.io are still loading/.test(err.message));
  sync();
  await cache.ready(20);
  const unsynced = new ObjectCache('', 'pods');
  unsynced.markSynced();
  await unsynced.ready(1);
});
