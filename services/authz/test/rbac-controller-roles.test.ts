import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { PolicyRule } from '../../../shared/bus/messages.js';
import { CONTROLLER_ACCOUNT_NAMESPACE, CONTROLLER_ACCOUNTS, CONTROLLER_ROLE_PREFIX } from '../../../shared/api/controller-accounts.js';
import { CONTROLLER_MANAGER_USER } from '../../../shared/api/groups.js';
import { roles } from '../../../shared/registry/builtin/rbac/role.js';
import { rolebindings } from '../../../shared/registry/builtin/rbac/role-binding.js';
import { covers } from '../rbac/covers.js';
import { BOOTSTRAP_LABEL, bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapRoleBindings, bootstrapRoles, CONTROLLER_MANAGER_CONTROLLERS_ROLE } from '../rbac/bootstrap-policy.js';

const byName = (list: ApiObject[]) => new Map(list.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
const rulesOf = (o: ApiObject | undefined) => (o?.rules ?? []) as PolicyRule[];

test('rbac bootstrap policy - every controller account has its system:controller: role, bound to that account only', () => {
  const clusterRoles = byName(bootstrapClusterRoles());
  const clusterBindings = byName(bootstrapClusterRoleBindings());
  const nsRoles = bootstrapRoles();
  const nsBindings = bootstrapRoleBindings();
  for (const account of new Set(Object.values(CONTROLLER_ACCOUNTS))) {
    const name = `${CONTROLLER_ROLE_PREFIX}${account}`;
    const subject = [{ kind: 'ServiceAccount', name: account, namespace: CONTROLLER_ACCOUNT_NAMESPACE }];
    const cluster = clusterRoles.get(`/${name}`);
    const namespaced = nsRoles.filter((r) => r.metadata.name === name);
    assert.ok(cluster || namespaced.length, `${name}: a ClusterRole or Roles`);
    if (cluster) {
      const b = clusterBindings.get(`/${name}`);
      assert.deepEqual(b?.roleRef, { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name }, `${name} binding`);
      assert.deepEqual(b?.subjects, subject, `${name} subjects`);
    }
    for (const r of namespaced) {
      const b = nsBindings.find((x) => x.metadata.name === name && x.metadata.namespace === r.metadata.namespace);
      assert.deepEqual(b?.roleRef, { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name }, `${name} binding in ${r.metadata.namespace}`);
      assert.deepEqual(b?.subjects, subject);
    }
  }
  for (const r of nsRoles) {
    assert.deepEqual(roles.strategy!.validate!(r), [], `${r.metadata.namespace}/${r.metadata.name}`);
    assert.equal(r.metadata.labels?.[BOOTSTRAP_LABEL], 'rbac-defaults');
  }
  for (const b of nsBindings) assert.deepEqual(rolebindings.strategy!.validate!(b), [], `${b.metadata.namespace}/${b.metadata.name}`);
  // As upstream's: the token cleaner may delete secrets only where bootstrap tokens live.
  assert.deepEqual(
    nsRoles.filter((r) => r.metadata.name === `${CONTROLLER_ROLE_PREFIX}token-cleaner`).map((r) => r.metadata.namespace),
    [CONTROLLER_ACCOUNT_NAMESPACE],
  );
  assert.deepEqual(
    nsRoles
      .filter((r) => r.metadata.name === `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`)
      .map((r) => r.metadata.namespace)
      .sort(),
    ['platform-public', CONTROLLER_ACCOUNT_NAMESPACE],
  );
});

test("rbac bootstrap policy - the controller manager's own role holds upstream's rights only; with its controllers role it holds every controller's", () => {
  const clusterRoles = byName(bootstrapClusterRoles());
  const own = rulesOf(clusterRoles.get(`/${CONTROLLER_MANAGER_USER}`));
  const controllers = rulesOf(clusterRoles.get(`/${CONTROLLER_MANAGER_CONTROLLERS_ROLE}`));
  const want = (verbs: string[], group: string, resource: string, names?: string[]): PolicyRule => ({ verbs, apiGroups: [group], resources: [resource], ...(names ? { resourceNames: names } : {}) });
  // What --use-service-account-credentials needs from it: accounts, their tokens, the lease, token secrets.
  for (const r of [
    want(['create', 'get'], '', 'serviceaccounts'),
    want(['create'], '', 'serviceaccounts/token'),
    want(['create'], 'coordination.platform.io', 'leases'),
    want(['get', 'update'], 'coordination.platform.io', 'leases', ['platform-controller-manager']),
    want(['list', 'watch', 'update', 'delete'], '', 'secrets'),
    want(['create'], 'authentication.platform.io', 'tokenreviews'),
    want(['create'], 'authorization.platform.io', 'subjectaccessreviews'),
  ])
    assert.ok(covers(own, [r]).covered, JSON.stringify(r));
  // None of the controllers' own work: each of their roles is refused to it alone.
  const controllerRoles = [...clusterRoles.values()].filter((r) => r.metadata.name!.startsWith(CONTROLLER_ROLE_PREFIX));
  assert.equal(controllerRoles.length, 11);
  for (const r of controllerRoles) assert.equal(covers(own, rulesOf(r)).covered, false, `${r.metadata.name} is not covered by ${CONTROLLER_MANAGER_USER} alone`);
  for (const r of [want(['update'], '', 'namespaces/finalize'), want(['delete'], 'apps', 'deployments'), want(['update'], 'certificates.platform.io', 'certificatesigningrequests/status')]) {
    assert.equal(covers(own, [r]).covered, false, JSON.stringify(r));
  }
  // Without the flag it runs them all: its two roles together cover every controller role.
  const controllerNsRoles = bootstrapRoles().filter((r) => r.metadata.name!.startsWith(CONTROLLER_ROLE_PREFIX));
  for (const r of [...controllerRoles, ...controllerNsRoles]) assert.ok(covers([...own, ...controllers], rulesOf(r)).covered, `${r.metadata.name} covered without the flag`);
  const bound = bootstrapClusterRoleBindings().filter((b) => (b.subjects as Array<{ name: string }>).some((s) => s.name === CONTROLLER_MANAGER_USER));
  assert.deepEqual(bound.map((b) => (b.roleRef as { name: string }).name).sort(), [CONTROLLER_MANAGER_USER, CONTROLLER_MANAGER_CONTROLLERS_ROLE].sort());
});
