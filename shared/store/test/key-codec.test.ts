import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeKey, encodeKey, escapeToken, resourcePrefix } from '../key-codec.js';

const validKey = /^[-/_=.a-zA-Z0-9]+$/;

test('key codec - round-trips names holding every awkward character', () => {
  const cases = [
    { group: '', resource: 'configmaps', namespace: 'default', name: 'plain' },
    { group: 'rbac.authorization.platform.io', resource: 'clusterroles', name: 'system:node:n1' },
    { group: '', resource: 'configmaps', namespace: 'ns', name: 'my.config' },
    { group: 'apps', resource: 'deployments', namespace: 'a-b', name: 'x_y' },
    { group: '', resource: 'secrets', namespace: 'ns', name: 'bootstrap-token-abcdef' },
    { group: '', resource: 'configmaps', namespace: 'ns', name: 'with space/and%percent@at' },
    { group: '', resource: 'configmaps', namespace: 'ns', name: 'ünïcødé-名前' },
    { group: '', resource: 'configmaps', namespace: 'ns', name: '_5F' },
  ];
  for (const ref of cases) {
    const key = encodeKey(ref);
    assert.match(key, validKey, key);
    assert.equal(key.split('.').length, 4, key);
    assert.deepEqual(decodeKey(key), ref);
  }
});

test('key codec - cluster-scoped and namespaced keys never collide', () => {
  assert.notEqual(encodeKey({ group: '', resource: 'x', name: 'a' }), encodeKey({ group: '', resource: 'x', namespace: '_', name: 'a' }));
  assert.equal(escapeToken('_'), '_5F');
});

test('key codec - resource prefix selects exactly one resource', () => {
  const p = resourcePrefix('apps', 'deployments');
  assert.ok(encodeKey({ group: 'apps', resource: 'deployments', namespace: 'd', name: 'n' }).startsWith(p));
  assert.ok(!encodeKey({ group: 'apps', resource: 'deploymentsx', namespace: 'd', name: 'n' }).startsWith(p));
});
