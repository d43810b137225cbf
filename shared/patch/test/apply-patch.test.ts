import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../api/status.js';
import { PatchType, applyPatch, isPatchType, resolvePatchSchema, childSchema, listMergeKind } from '../index.js';

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    return { code: err.status.code, reason: err.status.reason, message: err.status.message };
  }
  assert.fail('expected the patch to be refused');
}

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: '1' }, finalizers: ['x'] }, data: { k: 'v' } };

test('apply patch - dispatches on the content type', () => {
  const cases: Array<{ type: string; patch: unknown; want: unknown }> = [
    { type: PatchType.Merge, patch: { data: { k: null, n: 'm' } }, want: { ...cm, data: { n: 'm' } } },
    { type: 'application/merge-patch+json; charset=utf-8', patch: { data: { k: 'w' } }, want: { ...cm, data: { k: 'w' } } },
    { type: PatchType.JSON, patch: [{ op: 'add', path: '/data/n', value: 'm' }], want: { ...cm, data: { k: 'v', n: 'm' } } },
    // Strategic merge without a type schema still knows ObjectMeta's finalizers merge as a set.
    { type: PatchType.Strategic, patch: { metadata: { finalizers: ['y'] } }, want: { ...cm, metadata: { ...cm.metadata, finalizers: ['x', 'y'] } } },
    { type: 'Application/Strategic-Merge-Patch+JSON', patch: { data: { k: 'w' } }, want: { ...cm, data: { k: 'w' } } },
  ];
  for (const c of cases) assert.deepEqual(applyPatch(c.type, cm, c.patch, { type: 'object', properties: { data: { type: 'object' } } }), c.want, c.type);
  // Merge patch of a list value replaces it (unlike the strategic merge of finalizers above).
  assert.deepEqual((applyPatch(PatchType.Merge, cm, { metadata: { finalizers: ['y'] } }) as typeof cm).metadata.finalizers, ['y']);
});

test('apply patch - refused patch types and shapes', () => {
  const apply = statusOf(() => applyPatch(PatchType.Apply, cm, 'apiVersion: v1'));
  assert.equal(apply.code, 415);
  assert.equal(apply.reason, 'UnsupportedMediaType');
  assert.match(apply.message, /server-side apply/);
  const unknown = statusOf(() => applyPatch('application/json', cm, {}));
  assert.equal(unknown.code, 415);
  assert.match(unknown.message, /application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json/);
  assert.equal(statusOf(() => applyPatch(PatchType.Merge, cm, ['x'])).code, 400);
  assert.equal(statusOf(() => applyPatch(PatchType.Strategic, cm, 'x')).code, 400);
  assert.equal(statusOf(() => applyPatch(PatchType.JSON, cm, { op: 'add' })).code, 400);
  assert.ok(isPatchType('application/apply-patch+yaml; charset=utf-8'));
  assert.ok(!isPatchType('application/json'));
});

test('apply patch - schema resolver', () => {
  const resolved = resolvePatchSchema({ type: 'object', properties: { spec: { type: 'object' } } });
  assert.deepEqual(listMergeKind(childSchema(childSchema(resolved, 'metadata'), 'ownerReferences')), { kind: 'map', keys: ['uid'] });
  assert.deepEqual(listMergeKind(childSchema(childSchema(resolved, 'metadata'), 'finalizers')), { kind: 'set' });
  // A schema that describes metadata itself is used as it is.
  const own = resolvePatchSchema({ type: 'object', properties: { metadata: { type: 'object', properties: { finalizers: { type: 'array' } } } } });
  assert.deepEqual(listMergeKind(childSchema(childSchema(own, 'metadata'), 'finalizers')), { kind: 'replace' });
  const cases: Array<[Record<string, unknown>, unknown]> = [
    [
      { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a', 'b'] },
      { kind: 'map', keys: ['a', 'b'] },
    ],
    [{ 'x-kubernetes-list-type': 'set' }, { kind: 'replace' }],
    [
      { 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' },
      { kind: 'map', keys: ['name'] },
    ],
    [{ 'x-kubernetes-patch-strategy': 'replace' }, { kind: 'replace' }],
    [{ 'x-kubernetes-list-type': 'atomic' }, { kind: 'replace' }],
  ];
  for (const [schema, want] of cases) assert.deepEqual(listMergeKind({ type: 'array', ...schema }), want, JSON.stringify(schema));
  // Members reached through allOf branches and additionalProperties.
  assert.deepEqual(childSchema({ allOf: [{ properties: { x: { type: 'string' } } }] }, 'x'), { type: 'string' });
  assert.deepEqual(childSchema({ additionalProperties: { type: 'integer' } }, 'any'), { type: 'integer' });
  assert.equal(childSchema({ properties: {}, 'x-kubernetes-preserve-unknown-fields': true }, 'constructor'), undefined);
});

test('apply patch - list-map-keys with several keys match on all of them', () => {
  const schema = {
    type: 'object',
    properties: { items: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'] } },
  };
  const live = {
    items: [
      { port: 53, protocol: 'UDP', n: 1 },
      { port: 53, protocol: 'TCP', n: 2 },
    ],
  };
  assert.deepEqual(applyPatch(PatchType.Strategic, live, { items: [{ port: 53, protocol: 'TCP', n: 3 }] }, schema), {
    items: [
      { port: 53, protocol: 'UDP', n: 1 },
      { port: 53, protocol: 'TCP', n: 3 },
    ],
  });
});
