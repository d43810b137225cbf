import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../shared/api/status.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import type { FeedEvent } from '../../../shared/store/object-feed.js';
import { NamespaceCache, type NamespaceState } from '../namespace-cache.js';
import { createNamespaceLifecycle, FORCE_LIVE_LOOKUP_MS } from '../plugins/namespaces/namespace-lifecycle.js';

function nsEntry(name: string, revision: number, phase: string): FeedEvent {
  return { key: `core.namespaces._.${name}`, ref: { group: '', resource: 'namespaces', name }, revision, object: { metadata: { name }, status: { phase } } };
}

function req(over: Partial<AdmissionRequest>): AdmissionRequest {
  return {
    uid: 'u',
    phase: 'mutating',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'cm',
    namespace: 'active',
    operation: 'CREATE',
    userInfo: { username: 'jane', groups: [] },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'active' } },
    oldObject: null,
    dryRun: false,
    ...over,
  };
}
const nsReq = (operation: AdmissionRequest['operation'], name: string): AdmissionRequest =>
  req({ kind: { group: '', version: 'v1', kind: 'Namespace' }, resource: { group: '', version: 'v1', resource: 'namespaces' }, name, namespace: name, operation, object: null });

function setup(live: Record<string, NamespaceState> = {}) {
  const reads: string[] = [];
  const cache = new NamespaceCache(async (n) => {
    reads.push(n);
    return live[n] ?? null;
  });
  cache.apply(nsEntry('active', 1, 'Active'));
  cache.apply(nsEntry('terminating', 2, 'Terminating'));
  let now = 1_000;
  const plugin = createNamespaceLifecycle(cache, { now: () => now });
  const run = async (r: AdmissionRequest): Promise<{ code: number; message: string; causes?: unknown } | 'allowed'> => {
    try {
      await plugin.mutate!(r, { log: undefined as never, warn: () => {}, annotate: () => {} });
      return 'allowed';
    } catch (err) {
      assert.ok(err instanceof StatusError);
      return { code: err.code, message: err.message, ...(err.status.details?.causes ? { causes: err.status.details.causes } : {}) };
    }
  };
  return { cache, reads, run, advance: (ms: number) => (now += ms) };
}

test('namespace lifecycle - decisions', async () => {
  const terminatingWhy = 'unable to create new content in namespace terminating because it is being terminated';
  const cases: Array<{ name: string; req: AdmissionRequest; want: Awaited<ReturnType<ReturnType<typeof setup>['run']>> }> = [
    { name: 'create in an active namespace', req: req({}), want: 'allowed' },
    { name: 'create in a missing namespace', req: req({ namespace: 'gone' }), want: { code: 404, message: 'namespaces "gone" not found' } },
    { name: 'update in a missing namespace', req: req({ namespace: 'gone', operation: 'UPDATE' }), want: { code: 404, message: 'namespaces "gone" not found' } },
    { name: 'delete in a missing namespace', req: req({ namespace: 'gone', operation: 'DELETE' }), want: 'allowed' },
    {
      name: 'create in a terminating namespace',
      req: req({ namespace: 'terminating' }),
      want: { code: 403, message: `configmaps "cm" is forbidden: ${terminatingWhy}`, causes: [{ reason: 'NamespaceTerminating', message: terminatingWhy, field: 'metadata.namespace' }] },
    },
    {
      name: 'create with generateName in a terminating namespace names the prefix',
      req: req({ namespace: 'terminating', name: '', object: { metadata: { generateName: 'cm-' } } }),
      want: { code: 403, message: `configmaps "cm-" is forbidden: ${terminatingWhy}`, causes: [{ reason: 'NamespaceTerminating', message: terminatingWhy, field: 'metadata.namespace' }] },
    },
    { name: 'update in a terminating namespace', req: req({ namespace: 'terminating', operation: 'UPDATE' }), want: 'allowed' },
    { name: 'delete in a terminating namespace', req: req({ namespace: 'terminating', operation: 'DELETE' }), want: 'allowed' },
    { name: 'cluster-scoped object', req: req({ namespace: undefined, resource: { group: 'rbac.authorization.platform.io', version: 'v1', resource: 'clusterroles' } }), want: 'allowed' },
    { name: 'creating a namespace', req: nsReq('CREATE', 'brand-new'), want: 'allowed' },
    { name: 'deleting an ordinary namespace', req: nsReq('DELETE', 'active'), want: 'allowed' },
    { name: 'deleting default', req: nsReq('DELETE', 'default'), want: { code: 403, message: 'namespaces "default" is forbidden: this namespace may not be deleted' } },
    { name: 'deleting platform-system', req: nsReq('DELETE', 'platform-system'), want: { code: 403, message: 'namespaces "platform-system" is forbidden: this namespace may not be deleted' } },
    { name: 'deleting platform-public', req: nsReq('DELETE', 'platform-public'), want: { code: 403, message: 'namespaces "platform-public" is forbidden: this namespace may not be deleted' } },
    { name: 'updating default', req: nsReq('UPDATE', 'default'), want: 'allowed' },
    {
      name: 'access reviews never reveal whether a namespace exists',
      req: req({
        namespace: 'gone',
        kind: { group: 'authorization.platform.io', version: 'v1', kind: 'LocalSubjectAccessReview' },
        resource: { group: 'authorization.platform.io', version: 'v1', resource: 'localsubjectaccessreviews' },
      }),
      want: 'allowed',
    },
  ];
  for (const c of cases) {
    const { run } = setup();
    assert.deepEqual(await run(c.req), c.want, c.name);
  }
});

test('namespace lifecycle - a namespace missing from the cache is read live once before rejecting', async () => {
  const { run, reads } = setup({ fresh: { name: 'fresh', phase: 'Active', terminating: false, revision: 5 } });
  assert.equal(await run(req({ namespace: 'fresh' })), 'allowed');
  assert.deepEqual(reads, ['fresh']);
  assert.deepEqual(await run(req({ namespace: 'nope' })), { code: 404, message: 'namespaces "nope" not found' });
  assert.deepEqual(reads, ['fresh', 'nope']);
  assert.equal(await run(req({})), 'allowed');
  assert.deepEqual(reads, ['fresh', 'nope'], 'a cache hit costs no read');
});

test('namespace lifecycle - right after a namespace delete, a stale Active cache entry is re-read live', async () => {
  const { run, reads, advance } = setup({ active: { name: 'active', phase: 'Terminating', terminating: true, revision: 9 } });
  assert.equal(await run(nsReq('DELETE', 'active')), 'allowed');
  const r = await run(req({}));
  assert.equal(typeof r === 'object' && r.code, 403);
  assert.deepEqual(reads, ['active']);
  advance(FORCE_LIVE_LOOKUP_MS + 1);
  assert.equal(await run(req({})), 'allowed', 'after the window the cache is trusted again');
  assert.deepEqual(reads, ['active']);
});
