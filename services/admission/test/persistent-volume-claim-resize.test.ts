import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createPersistentVolumeClaimResize } from '../plugins/volumes/persistent-volume-claim-resize.js';
import { admitted, cacheOf, request, run, type Outcome } from './defaulting-fixtures.js';

const STORAGE = 'storage.platform.io';
const sc = (name: string, allowVolumeExpansion?: boolean): ApiObject => ({
  apiVersion: `${STORAGE}/v1`,
  kind: 'StorageClass',
  metadata: { name },
  provisioner: 'example.com/disk',
  ...(allowVolumeExpansion !== undefined ? { allowVolumeExpansion } : {}),
});
const CLASSES = [sc('expandable', true), sc('fixed', false), sc('unsaid')];

const claim = (storage: string, o: { cls?: string; phase?: string; annotations?: Record<string, string> } = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'ns1', ...(o.annotations ? { annotations: o.annotations } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...(o.cls !== undefined ? { storageClassName: o.cls } : {}) },
  status: { phase: o.phase ?? 'Bound' },
});

const NOT_RESIZABLE = 'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';

test('PersistentVolumeClaimResize - growing a claim', async (t) => {
  const plugin = createPersistentVolumeClaimResize(cacheOf(STORAGE, 'storageclasses', CLASSES));
  const cases: Array<{ name: string; old: ApiObject; next: ApiObject; want: Outcome | 'allowed' }> = [
    { name: 'a class that allows expansion', old: claim('1Gi', { cls: 'expandable' }), next: claim('2Gi', { cls: 'expandable' }), want: 'allowed' },
    { name: 'a class that forbids it', old: claim('1Gi', { cls: 'fixed' }), next: claim('2Gi', { cls: 'fixed' }), want: { code: 403, message: NOT_RESIZABLE } },
    { name: 'a class that does not say', old: claim('1Gi', { cls: 'unsaid' }), next: claim('2Gi', { cls: 'unsaid' }), want: { code: 403, message: NOT_RESIZABLE } },
    { name: 'a class that does not exist', old: claim('1Gi', { cls: 'gone' }), next: claim('2Gi', { cls: 'gone' }), want: { code: 403, message: NOT_RESIZABLE } },
    { name: 'no class', old: claim('1Gi'), next: claim('2Gi'), want: { code: 403, message: NOT_RESIZABLE } },
    {
      name: 'the class by its beta annotation',
      old: claim('1Gi', { annotations: { 'volume.beta.platform.io/storage-class': 'expandable' } }),
      next: claim('2Gi', { annotations: { 'volume.beta.platform.io/storage-class': 'expandable' } }),
      want: 'allowed',
    },
    {
      name: 'an unbound claim',
      old: claim('1Gi', { cls: 'expandable', phase: 'Pending' }),
      next: claim('2Gi', { cls: 'expandable', phase: 'Pending' }),
      want: { code: 403, message: 'persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded' },
    },
    { name: 'the same size in other units is no resize', old: claim('1Gi', { cls: 'fixed' }), next: claim('1024Mi', { cls: 'fixed' }), want: 'allowed' },
    { name: "shrinking is validation's to refuse", old: claim('2Gi', { cls: 'fixed' }), next: claim('1Gi', { cls: 'fixed' }), want: 'allowed' },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const out = await run(plugin, request({ phase: 'validating', operation: 'UPDATE', namespace: 'ns1', resource: 'persistentvolumeclaims', object: c.next, old: c.old }));
      if (c.want === 'allowed') admitted(out);
      else assert.deepEqual(out, c.want);
    });
  }
});

test('PersistentVolumeClaimResize - the status subresource is not judged', async () => {
  const plugin = createPersistentVolumeClaimResize(cacheOf(STORAGE, 'storageclasses', CLASSES));
  admitted(
    await run(
      plugin,
      request({
        phase: 'validating',
        operation: 'UPDATE',
        sub: 'status',
        namespace: 'ns1',
        resource: 'persistentvolumeclaims',
        object: claim('2Gi', { cls: 'fixed' }),
        old: claim('1Gi', { cls: 'fixed' }),
      }),
    ),
  );
});
