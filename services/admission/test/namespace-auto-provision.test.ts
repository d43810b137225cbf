import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { alreadyExists, serviceUnavailable } from '../../../shared/api/status.js';
import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import type { StorageWriteReply } from '../../../shared/bus/messages.js';
import { NamespaceCache } from '../namespace-cache.js';
import { createNamespaceAutoProvision, newNamespace } from '../plugins/namespaces/namespace-auto-provision.js';
import type { StorageWriter } from '../storage-writer.js';
import { CTX, rejects, request } from './scheduling-fixtures.js';

describe('NamespaceAutoProvision', () => {
  const created: Array<{ ref: ObjectRef; object: ApiObject }> = [];
  const write: StorageWriter = {
    async create(ref, object) {
      if (ref.name === 'racing') throw alreadyExists({ group: '', resource: 'namespaces' }, ref.name);
      if (ref.name === 'down') throw serviceUnavailable('storage is unavailable');
      created.push({ ref, object });
      return { object: { ...object, metadata: { ...object.metadata, resourceVersion: '7' } }, revision: 7 } as unknown as StorageWriteReply;
    },
    update: async () => assert.fail('no updates'),
  };
  const cache = new NamespaceCache(async () => null);
  cache.apply({ key: 'ns.team', ref: { group: '', resource: 'namespaces', name: 'team' }, revision: 1, object: { metadata: { name: 'team' } } as never });
  const plugin = createNamespaceAutoProvision(cache, write);
  const cm = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }) as ApiObject;

  it('creates the missing namespace as the API would, then lets the request through unchanged', async () => {
    const object = cm();
    const out = await plugin.mutate!(request('configmaps', { namespace: 'new-team', object }), CTX);
    assert.equal(out, undefined);
    assert.deepEqual(object, cm());
    assert.equal(created.length, 1);
    const { ref, object: ns } = created[0]!;
    assert.deepEqual(ref, { group: '', resource: 'namespaces', name: 'new-team' });
    assert.equal(ns.apiVersion, 'v1');
    assert.equal(ns.kind, 'Namespace');
    assert.equal(ns.metadata.name, 'new-team');
    assert.match(ns.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.match(ns.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(ns.metadata.labels, { 'platform.io/metadata.name': 'new-team' });
    assert.deepEqual(ns.spec, { finalizers: ['platform'] });
    assert.deepEqual(ns.status, { phase: 'Active' });
  });

  it('does nothing for a namespace it knows, a dry run, cluster-scoped objects or namespaces themselves', async () => {
    created.length = 0;
    await plugin.mutate!(request('configmaps', { namespace: 'team', object: cm() }), CTX);
    await plugin.mutate!(request('configmaps', { namespace: 'dry', object: cm(), dryRun: true }), CTX);
    await plugin.mutate!(request('nodes', { object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } } }), CTX);
    await plugin.mutate!(request('namespaces', { namespace: 'x', name: 'x', object: newNamespace('x') }), CTX);
    assert.deepEqual(created, []);
    assert.equal(plugin.sideEffects, 'NoneOnDryRun');
  });

  it('takes a namespace created meanwhile as found, and refuses when it cannot create one', async () => {
    await plugin.mutate!(request('configmaps', { namespace: 'racing', object: cm() }), CTX);
    await rejects(() => plugin.mutate!(request('configmaps', { namespace: 'down', object: cm() }), CTX), 403, 'configmaps "c" is forbidden: storage is unavailable');
    await rejects(
      () => plugin.mutate!(request('configmaps', { namespace: 'Bad_Name', object: cm() }), CTX),
      403,
      /^configmaps "c" is forbidden: Namespace "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label/,
    );
  });
});
