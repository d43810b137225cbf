import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { clusterroles } from '../../../shared/registry/builtin/rbac/cluster-role.js';
import { clusterrolebindings } from '../../../shared/registry/builtin/rbac/cluster-role-binding.js';
import { reconcileBinding, reconcileRole } from '../rbac/reconcile.js';
import { AUTOUPDATE_ANNOTATION, BOOTSTRAP_LABEL, bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapPolicy, bootstrapRoleBindings, bootstrapRoles } from '../rbac/bootstrap-policy.js';
import { RBAC_GROUP } from '../../../shared/api/groups.js';

const expectedRole: ApiObject = {
  kind: 'ClusterRole',
  metadata: { name: 'r', labels: { [BOOTSTRAP_LABEL]: 'rbac-defaults' }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
  rules: [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['get'], nonResourceURLs: ['/healthz'] },
  ],
};

test('rbac reconcile - roles get missing rules and labels, and keep whatever the administrator added', () => {
  const cases: Array<{ name: string; existing: ApiObject; want: ApiObject | null }> = [
    { name: 'identical', existing: structuredClone(expectedRole), want: null },
    {
      name: 'a rule trimmed by an administrator comes back; their own rule and label stay',
      existing: {
        kind: 'ClusterRole',
        metadata: { name: 'r', labels: { mine: 'yes', [BOOTSTRAP_LABEL]: 'custom' }, resourceVersion: '7' },
        rules: [
          { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
          { verbs: ['delete'], apiGroups: [''], resources: ['secrets'] },
        ],
      },
      want: {
        kind: 'ClusterRole',
        metadata: { name: 'r', labels: { mine: 'yes', [BOOTSTRAP_LABEL]: 'custom' }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' }, resourceVersion: '7' },
        rules: [
          { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
          { verbs: ['delete'], apiGroups: [''], resources: ['secrets'] },
          { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
          { verbs: ['get'], nonResourceURLs: ['/healthz'] },
        ],
      },
    },
    {
      name: 'rules covered by broader ones are not added',
      existing: {
        ...structuredClone(expectedRole),
        rules: [
          { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
          { verbs: ['*'], nonResourceURLs: ['*'] },
        ],
      },
      want: null,
    },
    {
      name: 'autoupdate "false" leaves the role alone',
      existing: { kind: 'ClusterRole', metadata: { name: 'r', annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } }, rules: [] },
      want: null,
    },
  ];
  for (const c of cases) {
    const r = reconcileRole(c.existing, expectedRole, AUTOUPDATE_ANNOTATION);
    if (c.want === null) assert.deepEqual(r, { op: 'none' }, c.name);
    else assert.deepEqual(r, { op: 'update', object: c.want }, c.name);
  }
});

test('rbac reconcile - aggregation selectors are added, never removed; aggregated rules are left to the controller', () => {
  const sel = (v: string) => ({ matchLabels: { [`${RBAC_GROUP}/aggregate-to-${v}`]: 'true' } });
  const expected: ApiObject = { kind: 'ClusterRole', metadata: { name: 'view' }, aggregationRule: { clusterRoleSelectors: [sel('view')] }, rules: [] };
  const aggregated = { kind: 'ClusterRole', metadata: { name: 'view' }, aggregationRule: { clusterRoleSelectors: [sel('view')] }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
  assert.deepEqual(reconcileRole(aggregated, expected, AUTOUPDATE_ANNOTATION), { op: 'none' });
  const extended = { ...aggregated, aggregationRule: { clusterRoleSelectors: [sel('custom')] } };
  const r = reconcileRole(extended, expected, AUTOUPDATE_ANNOTATION);
  assert.equal(r.op, 'update');
  assert.deepEqual((r as { object: ApiObject }).object.aggregationRule, { clusterRoleSelectors: [sel('custom'), sel('view')] });
});

test('rbac reconcile - bindings get missing subjects; a different roleRef means re-creating them', () => {
  const expected: ApiObject = {
    kind: 'ClusterRoleBinding',
    metadata: { name: 'b', annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'r' },
    subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'system:authenticated' }],
  };
  assert.deepEqual(reconcileBinding(structuredClone(expected), expected, AUTOUPDATE_ANNOTATION), { op: 'none' });
  const extra = { kind: 'User', apiGroup: RBAC_GROUP, name: 'added-by-admin' };
  const withExtra = { ...structuredClone(expected), subjects: [extra] };
  assert.deepEqual(reconcileBinding(withExtra, expected, AUTOUPDATE_ANNOTATION), { op: 'update', object: { ...withExtra, subjects: [extra, expected.subjects![0 as never]] } });
  const moved = { ...structuredClone(expected), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'other' }, subjects: [extra] };
  const r = reconcileBinding(moved, expected, AUTOUPDATE_ANNOTATION);
  assert.equal(r.op, 'recreate');
  assert.deepEqual((r as { object: ApiObject }).object.roleRef, expected.roleRef);
  assert.equal(((r as { object: ApiObject }).object.subjects as unknown[]).length, 2, 'the administrator’s subject survives the re-creation');
  const frozen = { ...moved, metadata: { name: 'b', annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } } };
  assert.deepEqual(reconcileBinding(frozen, expected, AUTOUPDATE_ANNOTATION), { op: 'none' });
});

test('rbac bootstrap policy - every default object is valid, labelled, and every binding names a default role', () => {
  const roles = bootstrapClusterRoles();
  const names = new Set(roles.map((r) => r.metadata.name));
  assert.equal(names.size, roles.length, 'no duplicate names');
  for (const r of roles) {
    assert.deepEqual(clusterroles.strategy!.validate!(r), [], r.metadata.name);
    assert.equal(r.metadata.labels?.[BOOTSTRAP_LABEL], 'rbac-defaults');
    assert.equal(r.apiVersion, `${RBAC_GROUP}/v1`);
  }
  for (const b of bootstrapClusterRoleBindings()) {
    assert.deepEqual(clusterrolebindings.strategy!.validate!(b), [], b.metadata.name);
    assert.ok(names.has((b.roleRef as { name: string }).name), `${b.metadata.name} names a default role`);
  }
  for (const name of [
    'cluster-admin',
    'admin',
    'edit',
    'view',
    'system:discovery',
    'system:basic-user',
    'system:public-info-viewer',
    'system:node',
    'system:node-bootstrapper',
    'system:auth-delegator',
  ]) {
    assert.ok(names.has(name), name);
  }
  assert.deepEqual(
    bootstrapPolicy().map((t) => t.resource),
    [
      ...roles.map(() => 'clusterroles'),
      ...bootstrapClusterRoleBindings().map(() => 'clusterrolebindings'),
      ...bootstrapRoles().map(() => 'roles'),
      ...bootstrapRoleBindings().map(() => 'rolebindings'),
    ],
    'roles are written before the bindings that name them',
  );
});
