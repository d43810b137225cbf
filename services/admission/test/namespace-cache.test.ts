import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NamespaceCache, namespaceStateFromJson, type NamespaceEntry, type NamespaceState } from '../namespace-cache.js';

const enc = new TextEncoder();
const put = (name: string, revision: number, status: object = { phase: 'Active' }, metadata: object = {}): NamespaceEntry => ({
  key: `core.namespaces._.${name}`,
  revision,
  operation: 'PUT',
  value: enc.encode(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: `uid-${name}`, ...metadata }, spec: {}, status })),
});
const del = (name: string, revision: number): NamespaceEntry => ({ key: `core.namespaces._.${name}`, revision, operation: 'DEL', value: new Uint8Array() });

function cacheWithLive(live: Record<string, NamespaceState | null> = {}) {
  const reads: string[] = [];
  const cache = new NamespaceCache(async (name) => {
    reads.push(name);
    return live[name] ?? null;
  });
  return { cache, reads };
}

test('namespace cache - states from stored documents', () => {
  const cases: Array<{ name: string; doc: unknown; want: Partial<NamespaceState> | null }> = [
    { name: 'active', doc: { metadata: { uid: 'u' }, status: { phase: 'Active' } }, want: { phase: 'Active', terminating: false, uid: 'u' } },
    { name: 'no status is active', doc: { metadata: {} }, want: { phase: 'Active', terminating: false } },
    { name: 'terminating', doc: { metadata: {}, status: { phase: 'Terminating' } }, want: { phase: 'Terminating', terminating: true } },
    { name: 'deletion requested', doc: { metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' }, status: { phase: 'Active' } }, want: { phase: 'Active', terminating: true } },
  ];
  for (const c of cases) {
    const s = namespaceStateFromJson('n', enc.encode(JSON.stringify(c.doc)), 7);
    assert.deepEqual(s && { phase: s.phase, terminating: s.terminating, ...(s.uid ? { uid: s.uid } : {}) }, c.want, c.name);
  }
  assert.equal(namespaceStateFromJson('n', enc.encode('{not json'), 1), null);
});

test('namespace cache - applies puts and deletes in revision order, ignoring redeliveries', () => {
  const { cache } = cacheWithLive();
  cache.apply(put('a', 1));
  cache.apply(put('b', 2));
  cache.apply(put('a', 3, { phase: 'Terminating' }));
  cache.apply(put('a', 1)); // redelivered old entry must not resurrect the Active state
  assert.equal(cache.cached('a')?.terminating, true);
  cache.apply(del('b', 4));
  cache.apply(put('b', 2));
  assert.equal(cache.cached('b'), undefined);
  cache.apply({ ...del('a', 5), operation: 'PURGE' });
  assert.equal(cache.size, 0);
  assert.equal(cache.revision, 5);
});

test('namespace cache - names that need escaping are decoded from their keys', () => {
  const { cache } = cacheWithLive();
  cache.apply({ ...put('x', 1), key: 'core.namespaces._.my_2Ens' });
  assert.equal(cache.cached('my.ns')?.name, 'my.ns');
  cache.apply({ ...put('x', 2), key: 'core.configmaps.a.b' });
  assert.equal(cache.size, 1);
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

test('namespace cache - reset forgets states and revisions for a restarted watch', () => {
  const { cache } = cacheWithLive();
  cache.apply(put('a', 10));
  cache.reset();
  assert.equal(cache.cached('a'), undefined);
  cache.apply(put('a', 10));
  assert.equal(cache.cached('a')?.revision, 10);
});
