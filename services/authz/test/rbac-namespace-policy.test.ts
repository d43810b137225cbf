import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { AuthzAttributes, PolicyRule } from '../../../shared/bus/messages.js';
import { CONTROLLER_MANAGER_USER } from '../../../shared/api/groups.js';
import { roles } from '../../../shared/registry/builtin/rbac/role.js';
import { rolebindings } from '../../../shared/registry/builtin/rbac/role-binding.js';
import { AUTHENTICATION_INFO_NAME, AUTHENTICATION_INFO_NAMESPACE } from '../../gateway/authentication-info.js';
import { AUTHENTICATION_READER_ROLE } from '../rbac/bootstrap-namespace-policy.js';
import { BOOTSTRAP_LABEL, bootstrapPolicy, bootstrapRoleBindings, bootstrapRoles } from '../rbac/bootstrap-policy.js';
import { ruleAllows } from '../rbac/rules.js';

const reader = (): ApiObject | undefined => bootstrapRoles().find((r) => r.metadata.name === AUTHENTICATION_READER_ROLE);
const configMapRequest = (verb: string, namespace: string, name: string, over: Partial<AuthzAttributes> = {}): AuthzAttributes =>
  ({
    user: { username: 'system:serviceaccount:wardle:apiserver', groups: [] },
    verb,
    isResourceRequest: true,
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'configmaps',
    namespace,
    name,
    ...over,
  }) as AuthzAttributes;

test('rbac bootstrap policy - extension-apiserver-authentication-reader is a Role in the namespace of the ConfigMap the gateway publishes', () => {
  const role = reader();
  assert.ok(role, 'the Role exists');
  assert.equal(role.metadata.namespace, AUTHENTICATION_INFO_NAMESPACE);
  assert.deepEqual(role.rules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: [AUTHENTICATION_INFO_NAME] }]);
  assert.equal(role.metadata.labels?.[BOOTSTRAP_LABEL], 'rbac-defaults');
  assert.deepEqual(roles.strategy!.validate!(role), []);
  // Written at start-up with the rest, after the cluster-wide objects and before the bindings.
  const order = bootstrapPolicy().map((t) => `${t.resource}/${t.object.metadata.namespace ?? ''}/${t.object.metadata.name}`);
  const at = order.indexOf(`roles/${AUTHENTICATION_INFO_NAMESPACE}/${AUTHENTICATION_READER_ROLE}`);
  assert.ok(at > 0 && at < order.indexOf(`rolebindings/${AUTHENTICATION_INFO_NAMESPACE}/system::${AUTHENTICATION_READER_ROLE}`), order.join(' '));
});

test('rbac bootstrap policy - the reader Role grants reading that one ConfigMap and nothing else', () => {
  const rules = (reader()?.rules ?? []) as PolicyRule[];
  const allows = (a: AuthzAttributes) => rules.some((r) => ruleAllows(r, a));
  const cases: Array<[string, AuthzAttributes, boolean]> = [
    ['get it', configMapRequest('get', AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME), true],
    // A list or watch pinned to its name by fieldSelector carries the name (as informers of one ConfigMap ask).
    ['watch it', configMapRequest('watch', AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME), true],
    ['list it', configMapRequest('list', AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME), true],
    ['list every ConfigMap', configMapRequest('list', AUTHENTICATION_INFO_NAMESPACE, ''), false],
    ['get another ConfigMap', configMapRequest('get', AUTHENTICATION_INFO_NAMESPACE, 'cluster-info'), false],
    ['update it', configMapRequest('update', AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME), false],
    ['get a Secret of that name', configMapRequest('get', AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME, { resource: 'secrets' }), false],
  ];
  for (const [what, attrs, want] of cases) assert.equal(allows(attrs), want, what);
});

test("rbac bootstrap policy - the reader's default binding names the controller manager only, as upstream's names its own components", () => {
  const binding = bootstrapRoleBindings().find((b) => b.metadata.name === `system::${AUTHENTICATION_READER_ROLE}`);
  assert.ok(binding);
  assert.equal(binding.metadata.namespace, AUTHENTICATION_INFO_NAMESPACE);
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: AUTHENTICATION_READER_ROLE });
  assert.deepEqual(binding.subjects, [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: CONTROLLER_MANAGER_USER }]);
  assert.deepEqual(rolebindings.strategy!.validate!(binding), []);
});
