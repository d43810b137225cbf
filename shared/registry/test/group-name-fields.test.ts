// A binding's group-name fields between the spellings of the RBAC group: the pure renaming, and
// the targets of the aliased bindings that store canonical and show the URL's spelling.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renameGroupNameFields } from '../group-name-fields.js';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { Targets } from '../target.js';
import type { ApiObject } from '../../api/types.js';

const K8S = 'rbac.authorization.k8s.io';
const BRAND = 'rbac.authorization.platform.io';
const PATHS = ['roleRef.apiGroup', 'subjects[].apiGroup'];

const binding = (group: string, subjects: unknown[]): ApiObject => ({
  apiVersion: `${group}/v1`,
  kind: 'RoleBinding',
  metadata: { name: 'b', namespace: 'ns' },
  roleRef: { apiGroup: group, kind: 'Role', name: 'r' },
  subjects,
});

const cases: { name: string; input: ApiObject; paths: readonly string[] | undefined; want: Record<string, unknown> }[] = [
  {
    name: 'roleRef and User/Group subjects are renamed, a ServiceAccount subject ("" group) is not',
    input: binding(K8S, [
      { kind: 'User', apiGroup: K8S, name: 'jane' },
      { kind: 'ServiceAccount', apiGroup: '', name: 'default', namespace: 'ns' },
      { kind: 'Group', apiGroup: K8S, name: 'devs' },
    ]),
    paths: PATHS,
    want: {
      roleRef: { apiGroup: BRAND, kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'User', apiGroup: BRAND, name: 'jane' },
        { kind: 'ServiceAccount', apiGroup: '', name: 'default', namespace: 'ns' },
        { kind: 'Group', apiGroup: BRAND, name: 'devs' },
      ],
    },
  },
  {
    name: 'a value in another spelling than `from` is left as written',
    input: binding(BRAND, [{ kind: 'User', apiGroup: 'example.com', name: 'x' }]),
    paths: PATHS,
    want: { roleRef: { apiGroup: BRAND, kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', apiGroup: 'example.com', name: 'x' }] },
  },
  {
    name: 'missing fields and malformed shapes are left alone',
    input: { apiVersion: 'v1', kind: 'RoleBinding', metadata: {}, roleRef: 'not-an-object', subjects: { apiGroup: K8S } },
    paths: PATHS,
    want: { roleRef: 'not-an-object', subjects: { apiGroup: K8S } },
  },
  {
    name: 'a type without group-name fields is unchanged',
    input: binding(K8S, [{ kind: 'User', apiGroup: K8S, name: 'jane' }]),
    paths: undefined,
    want: { roleRef: { apiGroup: K8S, kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', apiGroup: K8S, name: 'jane' }] },
  },
];

for (const c of cases) {
  test(`group-name fields - ${c.name}`, () => {
    const before = JSON.stringify(c.input);
    const out = renameGroupNameFields(c.input, c.paths, K8S, BRAND);
    assert.deepEqual({ roleRef: out.roleRef, subjects: out.subjects }, c.want);
    assert.equal(JSON.stringify(c.input), before, 'the input is not changed');
  });
}

test('group-name fields - an object with nothing to rename is returned as it is', () => {
  const o = binding(BRAND, [{ kind: 'User', apiGroup: BRAND, name: 'jane' }]);
  assert.equal(renameGroupNameFields(o, PATHS, K8S, BRAND), o);
});

test('group-name fields - bindings through the alias store the canonical group and read back in the alias spelling', () => {
  const targets = new Targets(createBuiltinRegistry({ upstreamGroupAliases: true }));
  for (const resource of ['rolebindings', 'clusterrolebindings']) {
    const alias = targets.of(K8S, 'v1', resource)!;
    const canonical = targets.of(BRAND, 'v1', resource)!;
    const stored = alias.toStored(binding(K8S, [{ kind: 'User', apiGroup: K8S, name: 'jane' }]));
    assert.equal(stored.apiVersion, `${BRAND}/v1`, resource);
    assert.deepEqual(stored.roleRef, { apiGroup: BRAND, kind: 'Role', name: 'r' }, resource);
    assert.deepEqual(stored.subjects, [{ kind: 'User', apiGroup: BRAND, name: 'jane' }], resource);
    const viaAlias = alias.fromStored!(stored);
    assert.deepEqual([viaAlias.apiVersion, (viaAlias.roleRef as { apiGroup: string }).apiGroup], [`${K8S}/v1`, K8S], resource);
    assert.deepEqual(viaAlias.subjects, [{ kind: 'User', apiGroup: K8S, name: 'jane' }], resource);
    const viaCanonical = canonical.fromStored ? canonical.fromStored(stored) : stored;
    assert.equal((viaCanonical.roleRef as { apiGroup: string }).apiGroup, BRAND, resource);
  }
});
