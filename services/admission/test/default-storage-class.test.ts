import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createDefaultStorageClassPlugin } from '../plugins/volumes/default-storage-class.js';
import { admitted, cacheOf, request, run, type RequestInit } from './defaulting-fixtures.js';

const STORAGE = 'storage.platform.io';
const sc = (name: string, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: `${STORAGE}/v1`,
  kind: 'StorageClass',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  provisioner: 'example.com/disk',
});
const DEFAULT = { 'storageclass.platform.io/is-default-class': 'true' };
const BETA_DEFAULT = { 'storageclass.beta.platform.io/is-default-class': 'true' };

const claim = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'ns1', ...(annotations ? { annotations } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

const setup = (classes: ApiObject[]) => {
  const plugin = createDefaultStorageClassPlugin(cacheOf(STORAGE, 'storageclasses', classes));
  return (init: RequestInit) => run(plugin, request({ namespace: 'ns1', resource: 'persistentvolumeclaims', ...init }));
};

test('DefaultStorageClass - which claims get which class', async (t) => {
  const cases: Array<{ name: string; classes: ApiObject[]; claim: ApiObject; want: unknown }> = [
    { name: 'no class named: the default', classes: [sc('slow'), sc('fast', DEFAULT)], claim: claim(), want: 'fast' },
    { name: 'the beta annotation marks a default too', classes: [sc('slow'), sc('fast', BETA_DEFAULT)], claim: claim(), want: 'fast' },
    { name: 'only "true" marks a default', classes: [sc('fast', { 'storageclass.platform.io/is-default-class': 'yes' })], claim: claim(), want: undefined },
    { name: 'no default: left alone', classes: [sc('slow')], claim: claim(), want: undefined },
    { name: 'a named class is kept', classes: [sc('fast', DEFAULT)], claim: claim({ storageClassName: 'slow' }), want: 'slow' },
    { name: 'an empty name asks for no class and is kept', classes: [sc('fast', DEFAULT)], claim: claim({ storageClassName: '' }), want: '' },
    { name: 'a class named by the beta annotation is kept', classes: [sc('fast', DEFAULT)], claim: claim({}, { 'volume.beta.platform.io/storage-class': 'slow' }), want: undefined },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const out = admitted(await setup(c.classes)({ object: c.claim }));
      assert.equal((out.spec as any).storageClassName, c.want);
    });
  }
});

test('DefaultStorageClass - two defaults refuse the claim (1.24)', async () => {
  assert.deepEqual(await setup([sc('a', DEFAULT), sc('b', BETA_DEFAULT)])({ object: claim() }), {
    code: 403,
    message: 'persistentvolumeclaims "data" is forbidden: Internal error occurred: 2 default StorageClasses were found',
  });
  // A claim that names its class is not affected.
  admitted(await setup([sc('a', DEFAULT), sc('b', DEFAULT)])({ object: claim({ storageClassName: 'a' }) }));
});

test('DefaultStorageClass - only claim creates, no subresources', async () => {
  const run1 = setup([sc('fast', DEFAULT)]);
  assert.equal((admitted(await run1({ sub: 'status', object: claim() })).spec as any).storageClassName, undefined);
});
