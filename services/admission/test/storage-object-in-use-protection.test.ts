import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createStorageObjectInUseProtection } from '../plugins/volumes/storage-object-in-use-protection.js';
import { admitted, request, run, type RequestInit } from './defaulting-fixtures.js';

const obj = (kind: string, finalizers?: string[]): ApiObject => ({ apiVersion: 'v1', kind, metadata: { name: 'x', ...(finalizers ? { finalizers } : {}) }, spec: {} });

test('StorageObjectInUseProtection - finalizers on new claims and volumes', async (t) => {
  const plugin = createStorageObjectInUseProtection();
  const cases: Array<{ name: string; init: RequestInit; want: string[] | undefined }> = [
    { name: 'a claim', init: { resource: 'persistentvolumeclaims', namespace: 'ns1', object: obj('PersistentVolumeClaim') }, want: ['platform.io/pvc-protection'] },
    { name: 'a volume', init: { resource: 'persistentvolumes', object: obj('PersistentVolume') }, want: ['platform.io/pv-protection'] },
    { name: 'other finalizers kept', init: { resource: 'persistentvolumeclaims', namespace: 'ns1', object: obj('PersistentVolumeClaim', ['a/b']) }, want: ['a/b', 'platform.io/pvc-protection'] },
    { name: 'not twice', init: { resource: 'persistentvolumes', object: obj('PersistentVolume', ['platform.io/pv-protection']) }, want: ['platform.io/pv-protection'] },
    { name: 'not on a subresource', init: { resource: 'persistentvolumes', sub: 'status', object: obj('PersistentVolume') }, want: undefined },
    { name: 'not on other resources', init: { resource: 'configmaps', namespace: 'ns1', object: obj('ConfigMap') }, want: undefined },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => assert.deepEqual(admitted(await run(plugin, request(c.init))).metadata.finalizers, c.want));
  }
});
