import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { AuthzAttributes, PolicyRule } from '../../../shared/bus/messages.js';
import { CONTROLLER_MANAGER_USER } from '../../../shared/api/groups.js';
import { PLATFORM_NAMES, UPSTREAM_NAMES } from '../../../shared/api/well-known-names.js';
import { roles } from '../../../shared/registry/builtin/rbac/role.js';
import { rolebindings } from '../../../shared/registry/builtin/rbac/role-binding.js';
import { AUTHENTICATION_READER_ROLE, controllerNamespacedRoleRules } from '../rbac/bootstrap-namespace-policy.js';
import { bootstrapPolicy, bootstrapRoleBindings, bootstrapRoles } from '../rbac/bootstrap-policy.js';
import { ruleAllows } from '../rbac/rules.js';

const SIGNER_ROLE = 'system:controller:bootstrap-signer';
const READER_BINDING = `system::${AUTHENTICATION_READER_ROLE}`;
const key = (o: ApiObject) => `${o.metadata.namespace}/${o.metadata.name}`;
const keys = (objects: ApiObject[]) => objects.map(key).sort();
const find = (objects: ApiObject[], namespace: string, name: string) => objects.find((o) => key(o) === `${namespace}/${name}`);
const request = (verb: string, namespace: string, resource: string, name: string): AuthzAttributes =>
  ({ user: { username: 'x', groups: [] }, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource, namespace, name }) as AuthzAttributes;
const allows = (role: ApiObject | undefined, attrs: AuthzAttributes) => ((role?.rules ?? []) as PolicyRule[]).some((r) => ruleAllows(r, attrs));

test("rbac bootstrap policy - the namespaced Roles and RoleBindings per --upstream-group-aliases: kube-system's and kube-public's twins only when on", () => {
  const platformOnly = [`platform-public/${SIGNER_ROLE}`, `platform-system/${SIGNER_ROLE}`, `platform-system/${AUTHENTICATION_READER_ROLE}`, 'platform-system/system:controller:token-cleaner'].sort();
  const upstreamToo = [...platformOnly, `kube-public/${SIGNER_ROLE}`, `kube-system/${AUTHENTICATION_READER_ROLE}`].sort();
  const cases: Array<[string, () => ApiObject[], string[]]> = [
    ['roles, off', () => bootstrapRoles(PLATFORM_NAMES), platformOnly],
    ['roles, default', () => bootstrapRoles(), platformOnly],
    ['roles, on', () => bootstrapRoles(UPSTREAM_NAMES), upstreamToo],
    ['bindings, off', () => bootstrapRoleBindings(PLATFORM_NAMES), platformOnly.map((k) => k.replace(`/${AUTHENTICATION_READER_ROLE}`, `/${READER_BINDING}`)).sort()],
    ['bindings, on', () => bootstrapRoleBindings(UPSTREAM_NAMES), upstreamToo.map((k) => k.replace(`/${AUTHENTICATION_READER_ROLE}`, `/${READER_BINDING}`)).sort()],
  ];
  for (const [what, objects, want] of cases) assert.deepEqual(keys(objects()), want, what);
  // Nothing upstream keeps there but the reader is added to kube-system (no token-cleaner or signer secrets role).
  assert.deepEqual(
    controllerNamespacedRoleRules(UPSTREAM_NAMES)
      .filter(([ns]) => ns.startsWith('kube-'))
      .map(([ns, account]) => `${ns}/${account}`),
    ['kube-public/bootstrap-signer'],
  );
});

test('rbac bootstrap policy - with upstream names the kube-system reader Role and binding are the platform-system ones, namespace aside', () => {
  const roleIn = (ns: string) => find(bootstrapRoles(UPSTREAM_NAMES), ns, AUTHENTICATION_READER_ROLE);
  const bindingIn = (ns: string) => find(bootstrapRoleBindings(UPSTREAM_NAMES), ns, READER_BINDING);
  const role = roleIn('kube-system');
  const binding = bindingIn('kube-system');
  assert.ok(role && binding);
  assert.deepEqual({ ...role, metadata: { ...role.metadata, namespace: 'platform-system' } }, roleIn('platform-system'));
  assert.deepEqual({ ...binding, metadata: { ...binding.metadata, namespace: 'platform-system' } }, bindingIn('platform-system'));
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: AUTHENTICATION_READER_ROLE });
  assert.deepEqual(binding.subjects, [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: CONTROLLER_MANAGER_USER }]);
  assert.deepEqual(roles.strategy!.validate!(role), []);
  assert.deepEqual(rolebindings.strategy!.validate!(binding), []);
  const cases: Array<[string, AuthzAttributes, boolean]> = [
    ['get the kube-system copy', request('get', 'kube-system', 'configmaps', 'extension-apiserver-authentication'), true],
    ['watch it', request('watch', 'kube-system', 'configmaps', 'extension-apiserver-authentication'), true],
    ['list every kube-system ConfigMap', request('list', 'kube-system', 'configmaps', ''), false],
    ['update it', request('update', 'kube-system', 'configmaps', 'extension-apiserver-authentication'), false],
  ];
  for (const [what, attrs, want] of cases) assert.equal(allows(role, attrs), want, what);
});

test("rbac bootstrap policy - with upstream names the bootstrap signer's kube-public Role lets it sign cluster-info there, bound to its own account", () => {
  const role = find(bootstrapRoles(UPSTREAM_NAMES), 'kube-public', SIGNER_ROLE);
  const binding = find(bootstrapRoleBindings(UPSTREAM_NAMES), 'kube-public', SIGNER_ROLE);
  assert.ok(role && binding);
  assert.deepEqual(role.rules, find(bootstrapRoles(UPSTREAM_NAMES), 'platform-public', SIGNER_ROLE)?.rules);
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: SIGNER_ROLE });
  // The controller's account lives in the spec's system namespace whatever the names.
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'bootstrap-signer', namespace: 'platform-system' }]);
  assert.deepEqual(rolebindings.strategy!.validate!(binding), []);
  const cases: Array<[string, AuthzAttributes, boolean]> = [
    ['watch ConfigMaps', request('watch', 'kube-public', 'configmaps', ''), true],
    ['update cluster-info', request('update', 'kube-public', 'configmaps', 'cluster-info'), true],
    ['update another ConfigMap', request('update', 'kube-public', 'configmaps', 'other'), false],
    ['read Secrets', request('list', 'kube-public', 'secrets', ''), false],
  ];
  for (const [what, attrs, want] of cases) assert.equal(allows(role, attrs), want, what);
});

test('rbac bootstrap policy - the start-up job writes the twins only with upstream names, each Role before its binding', () => {
  const written = (names: typeof UPSTREAM_NAMES) => bootstrapPolicy(names).map((t) => `${t.resource}/${t.object.metadata.namespace ?? ''}/${t.object.metadata.name}`);
  const off = written(PLATFORM_NAMES);
  assert.ok(!off.some((k) => k.includes('/kube-')), off.join(' '));
  const on = written(UPSTREAM_NAMES);
  const pairs: Array<[string, string]> = [
    [`roles/kube-system/${AUTHENTICATION_READER_ROLE}`, `rolebindings/kube-system/${READER_BINDING}`],
    [`roles/kube-public/${SIGNER_ROLE}`, `rolebindings/kube-public/${SIGNER_ROLE}`],
  ];
  for (const [role, binding] of pairs) {
    assert.ok(on.includes(role) && on.indexOf(role) < on.indexOf(binding), `${role} before ${binding}`);
  }
  assert.deepEqual(
    on.filter((k) => !k.includes('/kube-')),
    off,
    'the spec namespaces get the same objects either way',
  );
});
