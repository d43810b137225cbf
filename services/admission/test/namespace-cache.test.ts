import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import type { FeedEvent } from '../../../shared/store/object-feed.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { NamespaceCache, namespaceStateFromObject, type NamespaceState } from '../namespace-cache.js';

const nsRef = (name: string): ObjectRef => ({ group: '', resource: 'namespaces', name });
const event = (ref: ObjectRef, revision: number, object: ApiObject | null): FeedEvent => ({ key: encodeKey(ref), ref, revision, object });
const put = (name: string, revision: number, status: object = { phase: 'Active' }, metadata: object = {}): FeedEvent =>
  event(nsRef(name), revision, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: `uid-${name}`, resourceVersion: String(revision), ...metadata }, spec: {}, status });
const del = (name: string, revision: number): FeedEvent => event(nsRef(name), revision, null);

function cacheWithLive(live: Record<string, NamespaceState | null> = {}) {
  const reads: string[] = [];
  const bad: string[] = [];
  const cache = new NamespaceCache(
    async (name) => {
      reads.push(name);
      return live[name] ?? null;
    },
    (key) => bad.push(key),
  );
  return { cache, reads, bad };
}

test('namespace cache - states from stored documents', () => {
  const cases: Array<{ name: string; doc: unknown; want: Partial<NamespaceState> | null }> = [
    { name: 'active', doc: { metadata: { uid: 'u' }, status: { phase: 'Active' } }, want: { phase: 'Active', terminating: false, uid: 'u' } },
    { name: 'no status is active', doc: { metadata: {} }, want: { phase: 'Active', terminating: false } },
    { name: 'empty phase is active', doc: { metadata: {}, status: { phase: '' } }, want: { phase: 'Active', terminating: false } },
    { name: 'terminating', doc: { metadata: {}, status: { phase: 'Terminating' } }, want: { phase: 'Terminating', terminating: true } },
    { name: 'deletion requested', doc: { metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' }, status: { phase: 'Active' } }, want: { phase: 'Active', terminating: true } },
    { name: 'not an object', doc: 'nope', want: null },
    { name: 'null', doc: null, want: null },
    { name: 'an array', doc: [], want: null },
  ];
  for (const c of cases) {
    const s = namespaceStateFromObject('n', c.doc, 7);
    assert.deepEqual(s && { phase: s.phase, terminating: s.terminating, ...(s.uid ? { uid: s.uid } : {}) }, c.want, c.name);
    if (s) assert.deepEqual([s.name, s.revision], ['n', 7], c.name);
  }
});

test('namespace cache - applies puts and deletes; an older put never overwrites a newer state', () => {
  const { cache } = cacheWithLive();
  cache.apply(put('a', 1));
  cache.apply(put('b', 2));
  cache.apply(put('a', 3, { phase: 'Terminating' }));
  cache.apply(put('a', 1)); // a stale write must not resurrect the Active state
  assert.equal(cache.cached('a')?.terminating, true);
  assert.equal(cache.cached('a')?.revision, 3);
  assert.equal(cache.cached('b')?.uid, 'uid-b');
  cache.apply(del('b', 4));
  assert.equal(cache.cached('b'), undefined);
  cache.apply(put('b', 6));
  assert.equal(cache.cached('b')?.revision, 6, 'a namespace recreated under the same name is cached again');
  cache.apply(del('a', 5));
  cache.apply(del('b', 7));
  assert.equal(cache.size, 0);
});

test('namespace cache - a restarted watch: the replay re-applies, and a synthesized deletion deletes whatever its revision', () => {
  const { cache } = cacheWithLive();
  cache.apply(put('kept', 4));
  cache.apply(put('gone', 9, { phase: 'Terminating' }));
  // Replay after a restart: the latest value of each remaining key, at revisions already seen.
  cache.apply(put('kept', 4));
  assert.equal(cache.cached('kept')?.revision, 4);
  // 'gone' vanished while the watch was down; its deletion carries no newer revision of its own.
  cache.apply(del('gone', 4));
  assert.equal(cache.cached('gone'), undefined);
  assert.equal(cache.cached('kept')?.name, 'kept');
});

test('namespace cache - events for anything but core namespaces are ignored', () => {
  const { cache, bad } = cacheWithLive();
  cache.apply(put('my.ns', 1));
  assert.equal(cache.cached('my.ns')?.name, 'my.ns');
  const others: ObjectRef[] = [
    { group: '', resource: 'configmaps', namespace: 'my.ns', name: 'my.ns' },
    { group: 'example.platform.io', resource: 'namespaces', name: 'my.ns' },
    { group: '', resource: 'namespaces', namespace: 'x', name: 'my.ns' },
  ];
  for (const ref of others) {
    cache.apply(event(ref, 5, null));
    cache.apply(event(ref, 6, { metadata: { name: 'other' }, status: { phase: 'Terminating' } }));
  }
  assert.equal(cache.size, 1);
  assert.equal(cache.cached('my.ns')?.terminating, false);
  assert.equal(cache.cached('other'), undefined);
  assert.deepEqual(bad, []);
});

test('namespace cache - a stored value that is not a namespace object drops the entry so a live read decides', () => {
  const { cache, bad } = cacheWithLive();
  cache.apply(put('a', 1));
  cache.apply(event(nsRef('a'), 2, 'garbage' as unknown as ApiObject));
  assert.equal(cache.cached('a'), undefined);
  assert.deepEqual(bad, [encodeKey(nsRef('a'))]);
});

test('namespace cache - a miss costs one live read; a hit costs none', async () => {
  const fresh: NamespaceState = { name: 'fresh', phase: 'Active', terminating: false, revision: 9 };
  const { cache, reads } = cacheWithLive({ fresh });
  cache.apply(put('known', 1));
  assert.equal((await cache.lookup('known'))?.name, 'known');
  assert.deepEqual(reads, []);
  assert.deepEqual(await cache.lookup('fresh'), fresh);
  assert.equal(await cache.lookup('missing'), null);
  assert.deepEqual(reads, ['fresh', 'missing']);
  await cache.lookup('known', { forceLive: true });
  assert.deepEqual(reads, ['fresh', 'missing', 'known']);
});
