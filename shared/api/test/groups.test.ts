import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brandSpelling, canonicalGroupNames, exactGroupNames, isRbacGroupName, renameApiVersionGroup, upstreamSpelling } from '../groups.js';

const spellings: Array<[string, string | undefined, string | undefined]> = [
  // group, its upstream spelling, the branded group it spells
  ['rbac.authorization.platform.io', 'rbac.authorization.k8s.io', undefined],
  ['rbac.authorization.k8s.io', undefined, 'rbac.authorization.platform.io'],
  ['storage.platform.io', 'storage.k8s.io', undefined],
  ['events.k8s.io', undefined, 'events.platform.io'],
  ['', undefined, undefined],
  ['apps', undefined, undefined],
  ['policy', undefined, undefined],
  ['example.com', undefined, undefined],
  // Only the whole last labels count: a group merely containing the words is no alias.
  ['platform.io.example.com', undefined, undefined],
  ['myk8s.io', undefined, undefined],
  ['notplatform.io', undefined, undefined],
];

for (const [group, upstream, brand] of spellings) {
  test(`groups - spellings of ${JSON.stringify(group)}`, () => {
    assert.equal(upstreamSpelling(group), upstream);
    assert.equal(brandSpelling(group), brand);
  });
}

test('groups - with aliases an upstream spelling means its branded group; without, every name means itself', () => {
  const on = canonicalGroupNames(true);
  const off = canonicalGroupNames(false);
  assert.equal(off, exactGroupNames);
  for (const [g, want] of [
    ['rbac.authorization.k8s.io', 'rbac.authorization.platform.io'],
    ['rbac.authorization.platform.io', 'rbac.authorization.platform.io'],
    ['apps', 'apps'],
    ['', ''],
    ['*', '*'],
  ] as const) {
    assert.equal(on(g), want, g);
    assert.equal(off(g), g, g);
  }
});

test('groups - renaming the group of an apiVersion leaves other groups and the core version alone', () => {
  const cases: Array<[string, string]> = [
    ['rbac.authorization.platform.io/v1', 'rbac.authorization.k8s.io/v1'],
    ['rbac.authorization.platform.io/v1beta1', 'rbac.authorization.k8s.io/v1beta1'],
    ['apps/v1', 'apps/v1'],
    ['v1', 'v1'],
    ['', ''],
    ['rbac.authorization.platform.iox/v1', 'rbac.authorization.platform.iox/v1'],
  ];
  for (const [from, want] of cases) assert.equal(renameApiVersionGroup(from, 'rbac.authorization.platform.io', 'rbac.authorization.k8s.io'), want, from);
});

test('groups - the RBAC group is named by either spelling, and by nothing else', () => {
  for (const g of ['rbac.authorization.platform.io', 'rbac.authorization.k8s.io']) assert.equal(isRbacGroupName(g), true, g);
  for (const g of ['', 'rbac.authorization', 'rbac.example.com', undefined, null, 1]) assert.equal(isRbacGroupName(g), false, String(g));
});
