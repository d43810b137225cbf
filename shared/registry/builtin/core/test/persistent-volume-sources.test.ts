// The volume sources of a PersistentVolume are declared only so that they carry descriptions: the
// server must treat each of them exactly as it treats a field of the spec it does not declare
// (kept as sent, null included, never an unknown field, never a schema error).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/types.js';
import { createBuiltinRegistry } from '../../../builtin-registry.js';
import { PERSISTENT_VOLUME_SOURCE_DOCS } from '../persistent-volume-sources.js';

const registry = createBuiltinRegistry();
const served = registry.lookup('', 'v1', 'persistentvolumes')!;

const pv = (source: Record<string, unknown>): ApiObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv-1' },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...source },
});

/** What validation, unknown-field detection and pruning make of one value under one spec key. */
function treatment(key: string, value: unknown): { errors: string[]; unknown: string[]; stored: unknown } {
  const obj = pv({ [key]: value });
  const stored = structuredClone(obj);
  registry.prune(served, stored);
  const spec = stored.spec as Record<string, unknown>;
  return {
    errors: registry.validate(served, obj).map((e) => `${e.field}: ${e.type}`),
    unknown: registry.unknownFields(served, obj),
    stored: Object.hasOwn(spec, key) ? spec[key] : '<dropped>',
  };
}

const VALUES: Array<[what: string, value: unknown]> = [
  ['a source with its settings', { server: 'nfs.example', path: '/export', readOnly: true }],
  ['settings the server does not know', { driver: 'd.example.com', volumeHandle: 'h-1', future: { nested: [1, 'two'] } }],
  ['a null', null],
  ['a value of another type', 'not-an-object'],
  ['an empty object', {}],
];

test('PersistentVolume sources - each is treated exactly like an undeclared field of the spec', () => {
  const sources = Object.keys(PERSISTENT_VOLUME_SOURCE_DOCS);
  assert.ok(sources.includes('csi') && sources.includes('local') && sources.includes('nfs'));
  for (const source of sources) {
    for (const [what, value] of VALUES) {
      assert.deepEqual(treatment(source, value), treatment('notDeclaredAnywhere', value), `${source}: ${what}`);
    }
  }
});

test('PersistentVolume sources - a source is kept as sent, a null included', () => {
  assert.deepEqual(treatment('csi', { driver: 'd.example.com', volumeHandle: 'h-1', extra: 1 }), {
    errors: [],
    unknown: [],
    stored: { driver: 'd.example.com', volumeHandle: 'h-1', extra: 1 },
  });
  assert.deepEqual(treatment('nfs', null), { errors: [], unknown: [], stored: null });
});
