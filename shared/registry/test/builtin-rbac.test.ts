import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorMessage } from '../../api/status.js';
import type { ApiObject } from '../../api/types.js';
import { clusterrolebindings as crb } from '../builtin/rbac/cluster-role-binding.js';
import { clusterroles } from '../builtin/rbac/cluster-role.js';
import { rolebindings as rb } from '../builtin/rbac/role-binding.js';
import { roles } from '../builtin/rbac/role.js';
import { createFlow, fields, schemaErrors } from './builtin-helpers.js';
import { samples } from './builtin-samples.js';

const G = 'rbac.authorization.platform.io';
const rbSample = samples[`${G}/rolebindings`]!;
const crbSample = samples[`${G}/clusterrolebindings`]!;

describe('rbac types', () => {
  it('use path-segment names', () => {
    for (const t of [roles, rb, clusterroles, crb]) assert.equal(t.nameRule, 'path-segment');
  });

  it('default apiGroup for User/Group subjects and roleRef', () => {
    const { obj } = createFlow(rb, {
      metadata: { name: 'b', namespace: 'd' },
      subjects: [
        { kind: 'User', name: 'u' },
        { kind: 'Group', name: 'g' },
        { kind: 'ServiceAccount', name: 'sa' },
      ],
      roleRef: { kind: 'Role', name: 'r' },
    });
    assert.deepEqual(obj.subjects, [
      { kind: 'User', name: 'u', apiGroup: G },
      { kind: 'Group', name: 'g', apiGroup: G },
      { kind: 'ServiceAccount', name: 'sa', apiGroup: '' },
    ]);
    assert.deepEqual(obj.roleRef, { kind: 'Role', name: 'r', apiGroup: G });
  });

  it('roleRef is immutable', () => {
    const old = createFlow(rb, rbSample).obj;
    const next = structuredClone(old);
    (next.roleRef as Record<string, string>).name = 'admin';
    const errs = rb.strategy!.validateUpdate!(next, old);
    assert.deepEqual(fields(errs), ['roleRef: Invalid value']);
    assert.match(fieldErrorMessage(errs[0]!), /^roleRef: Invalid value: .*: cannot change roleRef$/);
    const subjectsOnly = structuredClone(old);
    (subjectsOnly.subjects as unknown[]).push({ kind: 'User', name: 'bob', apiGroup: G });
    assert.deepEqual(rb.strategy!.validateUpdate!(subjectsOnly, old), []);
    const oldCrb = createFlow(crb, crbSample).obj;
    const nextCrb = structuredClone(oldCrb);
    (nextCrb.roleRef as Record<string, string>).name = 'view';
    assert.deepEqual(fields(crb.strategy!.validateUpdate!(nextCrb, oldCrb)), ['roleRef: Invalid value']);
  });

  const bindingCases: Array<[string, typeof rb, ApiObject, string[]]> = [
    ['valid rolebinding', rb, rbSample, []],
    ['rolebinding to a ClusterRole', rb, { ...rbSample, roleRef: { kind: 'ClusterRole', name: 'view', apiGroup: G } }, []],
    ['rolebinding SA without namespace', rb, { ...rbSample, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }, []],
    ['clusterrolebinding SA without namespace', crb, { ...crbSample, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }, ['subjects[0].namespace: Required value']],
    ['clusterrolebinding to a Role', crb, { ...crbSample, roleRef: { kind: 'Role', name: 'r', apiGroup: G } }, ['roleRef.kind: Unsupported value']],
    ['unknown subject kind', rb, { ...rbSample, subjects: [{ kind: 'Robot', name: 'r2' }] }, ['subjects[0].kind: Unsupported value']],
    ['user with wrong apiGroup', rb, { ...rbSample, subjects: [{ kind: 'User', name: 'u', apiGroup: 'example.com' }] }, ['subjects[0].apiGroup: Unsupported value']],
    ['SA with apiGroup', rb, { ...rbSample, subjects: [{ kind: 'ServiceAccount', name: 'sa', apiGroup: G }] }, ['subjects[0].apiGroup: Unsupported value']],
    ['SA with bad name', rb, { ...rbSample, subjects: [{ kind: 'ServiceAccount', name: 'Bad_Name' }] }, ['subjects[0].name: Invalid value']],
    ['roleRef with other group', rb, { ...rbSample, roleRef: { kind: 'Role', name: 'r', apiGroup: 'example.com' } }, ['roleRef.apiGroup: Unsupported value']],
    ['roleRef name with slash', rb, { ...rbSample, roleRef: { kind: 'Role', name: 'a/b', apiGroup: G } }, ['roleRef.name: Invalid value']],
  ];
  for (const [name, type, obj, want] of bindingCases) it(name, () => assert.deepEqual(fields(createFlow(type, obj).errors), want));

  it('requires roleRef in the schema', () => {
    const { roleRef: _r, ...noRef } = rbSample;
    assert.equal(schemaErrors(rb, noRef as ApiObject).length, 1);
  });

  const ruleCases: Array<[string, typeof roles, ApiObject, string[]]> = [
    ['role with non-resource URLs', roles, { metadata: { name: 'r', namespace: 'd' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }, ['rules[0].nonResourceURLs: Invalid value']],
    ['clusterrole with non-resource URLs', clusterroles, { metadata: { name: 'r' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }, []],
    [
      'mixed resource and URL rule',
      clusterroles,
      { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/x'], verbs: ['get'] }] },
      ['rules[0].nonResourceURLs: Invalid value'],
    ],
    ['rule without verbs', roles, { metadata: { name: 'r', namespace: 'd' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] }, ['rules[0].verbs: Required value']],
    ['rule without apiGroups', roles, { metadata: { name: 'r', namespace: 'd' }, rules: [{ resources: ['pods'], verbs: ['get'] }] }, ['rules[0].apiGroups: Required value']],
    ['aggregation with no selectors', clusterroles, { metadata: { name: 'r' }, aggregationRule: { clusterRoleSelectors: [] } }, ['aggregationRule.clusterRoleSelectors: Required value']],
  ];
  for (const [name, type, obj, want] of ruleCases) it(name, () => assert.deepEqual(fields(createFlow(type, obj).errors), want));
});
