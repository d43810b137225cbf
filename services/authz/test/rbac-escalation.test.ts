import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, UserInfo } from '../../../shared/api/types.js';
import type { EscalationCheckRequest, PolicyRule } from '../../../shared/bus/messages.js';
import type { StatusError } from '../../../shared/api/status.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { RbacState } from '../rbac/state.js';
import { AGGREGATION_NEEDS_ADMIN, checkEscalation } from '../rbac/escalation.js';
import { createRbacAuthorizer } from '../authorizers/rbac.js';
import { createPrivilegedGroupsAuthorizer } from '../authorizers/privileged-groups.js';
import { runAuthzChain } from '../chain.js';
import { canonicalGroupNames, RBAC_GROUP } from '../../../shared/api/groups.js';

/** A state plus the real chain (privileged groups, then RBAC), as the service wires them. */
function world() {
  const rbac = new RbacState();
  const chain = [createPrivilegedGroupsAuthorizer(), createRbacAuthorizer(rbac)];
  let rev = 0;
  const put = (resource: string, object: ApiObject) => {
    const ref = { group: RBAC_GROUP, resource, name: object.metadata.name!, ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}) };
    rbac.apply({ key: encodeKey(ref), ref, revision: ++rev, object });
  };
  const deps = { rbac, authorize: (attrs: Parameters<typeof runAuthzChain>[1]) => runAuthzChain(chain, attrs) };
  return {
    rbac,
    check: (req: EscalationCheckRequest) => checkEscalation(req, deps),
    role: (name: string, namespace: string, rules: PolicyRule[]) => put('roles', { kind: 'Role', metadata: { name, namespace }, rules }),
    clusterRole: (name: string, rules: PolicyRule[], extra: object = {}) => put('clusterroles', { kind: 'ClusterRole', metadata: { name }, rules, ...extra }),
    grant: (name: string, namespace: string | undefined, roleRef: { kind: string; name: string }, username: string) =>
      put(namespace ? 'rolebindings' : 'clusterrolebindings', {
        kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
        metadata: { name, ...(namespace ? { namespace } : {}) },
        roleRef: { apiGroup: RBAC_GROUP, ...roleRef },
        subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: username }],
      }),
  };
}

const bob: UserInfo = { username: 'bob', groups: ['dev', 'system:authenticated'] };
const podsReadWrite: PolicyRule = { verbs: ['get', 'list', 'create'], apiGroups: [''], resources: ['pods'] };

const roleObject = (name: string, namespace: string, rules: PolicyRule[]): ApiObject => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name, namespace }, rules });
const roleBinding = (name: string, namespace: string, roleRef: { kind: string; name: string }): ApiObject => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'RoleBinding',
  metadata: { name, namespace },
  roleRef: { apiGroup: RBAC_GROUP, ...roleRef },
  subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'someone' }],
});
const clusterRoleBinding = (name: string, role: string): ApiObject => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
  subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'someone' }],
});

test('rbac escalation - a role granting more than you hold is refused, listing what is missing', async () => {
  const w = world();
  w.role('pods', 'a', [podsReadWrite]);
  w.grant('bob-pods', 'a', { kind: 'Role', name: 'pods' }, 'bob');
  const greedy = roleObject('greedy', 'a', [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['get', 'delete'], apiGroups: [''], resources: ['secrets'] },
    { verbs: ['delete'], apiGroups: [''], resources: ['pods'], resourceNames: ['p1'] },
  ]);
  assert.deepEqual(await w.check({ user: bob, object: greedy, namespace: 'a' }), {
    allowed: false,
    message:
      'user "bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["p1"], Verbs:["delete"]}\n' +
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
  });
  // What bob holds he may hand out, in full or in part.
  assert.deepEqual(await w.check({ user: bob, object: roleObject('subset', 'a', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p1'] }]), namespace: 'a' }), {
    allowed: true,
  });
  // ... but only where he holds it.
  const elsewhere = await w.check({ user: bob, object: roleObject('subset', 'b', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), namespace: 'b' });
  assert.equal(elsewhere.allowed, false);
  assert.match(elsewhere.message!, /not currently held:\n\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["get"\]\}$/);
  // A wildcard is not the sum of the verbs one holds.
  assert.equal((await w.check({ user: bob, object: roleObject('star', 'a', [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }]), namespace: 'a' })).allowed, false);
});

test('rbac escalation - the escalate verb allows granting anything, at its scope only', async () => {
  const w = world();
  w.role('role-escalator', 'a', [{ verbs: ['escalate'], apiGroups: [RBAC_GROUP], resources: ['roles'] }]);
  w.grant('bob-escalates', 'a', { kind: 'Role', name: 'role-escalator' }, 'bob');
  const mighty = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
  assert.deepEqual(await w.check({ user: bob, object: roleObject('mighty', 'a', mighty), namespace: 'a' }), { allowed: true });
  assert.equal((await w.check({ user: bob, object: roleObject('mighty', 'b', mighty), namespace: 'b' })).allowed, false, 'escalate in a is not escalate in b');
  const clusterRole: ApiObject = { kind: 'ClusterRole', metadata: { name: 'mighty' }, rules: mighty };
  assert.equal((await w.check({ user: bob, object: clusterRole })).allowed, false, 'escalate on roles is not escalate on clusterroles');
  // escalate limited to one role name
  w.clusterRole('cr-escalator', [{ verbs: ['escalate'], apiGroups: [RBAC_GROUP], resources: ['clusterroles'], resourceNames: ['mighty'] }]);
  w.grant('bob-cr', undefined, { kind: 'ClusterRole', name: 'cr-escalator' }, 'bob');
  assert.deepEqual(await w.check({ user: bob, object: clusterRole }), { allowed: true });
  assert.equal((await w.check({ user: bob, object: { ...clusterRole, metadata: { name: 'other' } } })).allowed, false);
});

test('rbac escalation - binding needs the bound role’s permissions or the bind verb', async () => {
  const w = world();
  w.clusterRole('cluster-admin', [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]);
  w.clusterRole('pod-worker', [podsReadWrite]);
  w.clusterRole('secret-admin', [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }]);
  w.role('pods', 'a', [podsReadWrite]);
  w.grant('bob-pods', 'a', { kind: 'Role', name: 'pods' }, 'bob');

  // Binding cluster-admin without holding it or `bind` on it.
  assert.deepEqual(await w.check({ user: bob, object: clusterRoleBinding('root', 'cluster-admin') }), {
    allowed: false,
    message:
      'user "bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n' +
      '{NonResourceURLs:["*"], Verbs:["*"]}',
  });
  const nsAdmin = await w.check({ user: bob, object: roleBinding('root', 'a', { kind: 'ClusterRole', name: 'cluster-admin' }), namespace: 'a' });
  assert.equal(
    nsAdmin.message,
    'user "bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}',
    'URLs grant nothing in a RoleBinding, so they are not required',
  );

  // A role whose rules bob holds in a: bindable there (to a Role or a ClusterRole), not in b.
  assert.deepEqual(await w.check({ user: bob, object: roleBinding('share', 'a', { kind: 'Role', name: 'pods' }), namespace: 'a' }), { allowed: true });
  assert.deepEqual(await w.check({ user: bob, object: roleBinding('share', 'a', { kind: 'ClusterRole', name: 'pod-worker' }), namespace: 'a' }), { allowed: true });
  assert.equal((await w.check({ user: bob, object: roleBinding('share', 'b', { kind: 'ClusterRole', name: 'pod-worker' }), namespace: 'b' })).allowed, false);
  assert.equal((await w.check({ user: bob, object: clusterRoleBinding('share', 'pod-worker') })).allowed, false, 'holding it in a namespace is not holding it cluster-wide');

  // `bind` on cluster-admin only (resourceNames): cluster-admin yes, secret-admin still no.
  w.clusterRole('bind-cluster-admin', [{ verbs: ['bind'], apiGroups: [RBAC_GROUP], resources: ['clusterroles'], resourceNames: ['cluster-admin'] }]);
  w.grant('bob-binds', undefined, { kind: 'ClusterRole', name: 'bind-cluster-admin' }, 'bob');
  assert.deepEqual(await w.check({ user: bob, object: clusterRoleBinding('root', 'cluster-admin') }), { allowed: true });
  assert.deepEqual(await w.check({ user: bob, object: roleBinding('root', 'a', { kind: 'ClusterRole', name: 'cluster-admin' }), namespace: 'a' }), { allowed: true });
  const secrets = await w.check({ user: bob, object: clusterRoleBinding('s', 'secret-admin') });
  assert.equal(secrets.allowed, false);
  assert.match(secrets.message!, /\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["\*"\]\}$/);

  // `bind` granted in one namespace counts for RoleBindings there only.
  w.role('binder', 'c', [{ verbs: ['bind'], apiGroups: [RBAC_GROUP], resources: ['clusterroles'] }]);
  w.grant('bob-binder', 'c', { kind: 'Role', name: 'binder' }, 'bob');
  assert.deepEqual(await w.check({ user: bob, object: roleBinding('x', 'c', { kind: 'ClusterRole', name: 'secret-admin' }), namespace: 'c' }), { allowed: true });
  assert.equal((await w.check({ user: bob, object: roleBinding('x', 'd', { kind: 'ClusterRole', name: 'secret-admin' }), namespace: 'd' })).allowed, false);
});

test('rbac escalation - a binding to a missing role is refused with a message', async () => {
  const w = world();
  assert.deepEqual(await w.check({ user: bob, object: roleBinding('x', 'a', { kind: 'Role', name: 'nope' }), namespace: 'a' }), {
    allowed: false,
    message: `roles.${RBAC_GROUP} "nope" not found`,
  });
  assert.deepEqual(await w.check({ user: bob, object: clusterRoleBinding('x', 'nope') }), { allowed: false, message: `clusterroles.${RBAC_GROUP} "nope" not found` });
});

test('rbac escalation - an aggregationRule needs escalate or full authority; system:masters may do anything', async () => {
  const w = world();
  const aggregating: ApiObject = { kind: 'ClusterRole', metadata: { name: 'gatherer' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: 'x' } }] }, rules: [] };
  // No rules to cover, but the selector could gather anything.
  assert.deepEqual(await w.check({ user: bob, object: aggregating }), { allowed: false, message: AGGREGATION_NEEDS_ADMIN });
  assert.match(AGGREGATION_NEEDS_ADMIN, /must have cluster-admin privileges to use the aggregationRule/);
  // Removing the aggregationRule of a stored aggregating role needs the same.
  w.clusterRole('gatherer', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: 'x' } }] } });
  assert.equal((await w.check({ user: bob, object: { kind: 'ClusterRole', metadata: { name: 'gatherer' }, rules: [] } })).allowed, false);

  const masters: UserInfo = { username: 'root', groups: ['system:masters'] };
  assert.deepEqual(await w.check({ user: masters, object: aggregating }), { allowed: true });
  assert.deepEqual(await w.check({ user: masters, object: clusterRoleBinding('x', 'does-not-exist') }), { allowed: true });

  w.clusterRole('cluster-admin', [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]);
  w.grant('alice-admin', undefined, { kind: 'ClusterRole', name: 'cluster-admin' }, 'alice');
  assert.deepEqual(await w.check({ user: { username: 'alice', groups: [] }, object: aggregating }), { allowed: true }, 'full authority through RBAC');

  w.clusterRole('cr-escalator', [{ verbs: ['escalate'], apiGroups: [RBAC_GROUP], resources: ['clusterroles'] }]);
  w.grant('bob-cr', undefined, { kind: 'ClusterRole', name: 'cr-escalator' }, 'bob');
  assert.deepEqual(await w.check({ user: bob, object: aggregating }), { allowed: true }, 'escalate');
});

test('rbac escalation - malformed requests are 400s', async () => {
  const w = world();
  const cases: Array<{ name: string; req: unknown }> = [
    { name: 'no body', req: null },
    { name: 'no user', req: { object: roleObject('r', 'a', []) } },
    { name: 'groups not a list', req: { user: { username: 'x', groups: 'dev' }, object: roleObject('r', 'a', []) } },
    { name: 'no object', req: { user: bob } },
    { name: 'no name', req: { user: bob, object: { kind: 'Role', metadata: {}, rules: [] }, namespace: 'a' } },
    { name: 'a Role without namespace', req: { user: bob, object: { kind: 'Role', metadata: { name: 'r' }, rules: [] } } },
    { name: 'not an RBAC kind', req: { user: bob, object: { kind: 'Pod', metadata: { name: 'p' } }, namespace: 'a' } },
    { name: 'rules not a list', req: { user: bob, object: { kind: 'ClusterRole', metadata: { name: 'r' }, rules: {} } } },
    { name: 'a rule that is not a rule', req: { user: bob, object: { kind: 'ClusterRole', metadata: { name: 'r' }, rules: [{ verbs: 'get' }] } } },
    { name: 'binding without roleRef', req: { user: bob, object: { kind: 'ClusterRoleBinding', metadata: { name: 'b' } } } },
    { name: 'ClusterRoleBinding to a Role', req: { user: bob, object: { kind: 'ClusterRoleBinding', metadata: { name: 'b' }, roleRef: { kind: 'Role', name: 'r' } } } },
  ];
  for (const c of cases) await assert.rejects(w.check(c.req as EscalationCheckRequest), (err: StatusError) => err.code === 400, c.name);
});

test('rbac escalation - with upstream aliases a role naming either spelling of a group is covered by a grant naming the other', async () => {
  const rbac = new RbacState(canonicalGroupNames(true));
  const chain = [createPrivilegedGroupsAuthorizer(), createRbacAuthorizer(rbac)];
  const ref = { group: RBAC_GROUP, resource: 'roles', name: 'held', namespace: 'a' };
  // bob holds `create roles` and `get rolebindings` in upstream's spelling of the RBAC group.
  rbac.apply({
    key: encodeKey(ref),
    ref,
    revision: 1,
    object: {
      kind: 'Role',
      metadata: { name: 'held', namespace: 'a' },
      rules: [
        { verbs: ['create'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] },
        { verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'] },
      ],
    },
  });
  const bref = { group: RBAC_GROUP, resource: 'rolebindings', name: 'bob', namespace: 'a' };
  rbac.apply({
    key: encodeKey(bref),
    ref: bref,
    revision: 2,
    object: {
      kind: 'RoleBinding',
      metadata: { name: 'bob', namespace: 'a' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'held' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
    },
  });
  const deps = { rbac, authorize: (attrs: Parameters<typeof runAuthzChain>[1]) => runAuthzChain(chain, attrs) };
  const role = (rules: PolicyRule[]) => ({ user: bob, namespace: 'a', object: { kind: 'Role', metadata: { name: 'new', namespace: 'a' }, rules } as ApiObject });
  // The canonical spelling of what bob holds is covered …
  assert.deepEqual(await checkEscalation(role([{ verbs: ['get'], apiGroups: [RBAC_GROUP], resources: ['rolebindings'] }]), deps), { allowed: true });
  assert.deepEqual(await checkEscalation(role([{ verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'] }]), deps), { allowed: true });
  // … and more than bob holds is refused in either spelling.
  for (const g of [RBAC_GROUP, 'rbac.authorization.k8s.io']) {
    const r = await checkEscalation(role([{ verbs: ['delete'], apiGroups: [g], resources: ['rolebindings'] }]), deps);
    assert.equal(r.allowed, false, g);
    assert.match(r.message ?? '', /attempting to grant RBAC permissions not currently held/);
  }
  // Without aliases, upstream's spelling is just another group: what bob holds there does not cover the RBAC group.
  const exact = new RbacState();
  exact.apply({
    key: encodeKey(ref),
    ref,
    revision: 1,
    object: { kind: 'Role', metadata: { name: 'held', namespace: 'a' }, rules: [{ verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'] }] },
  });
  exact.apply({
    key: encodeKey(bref),
    ref: bref,
    revision: 2,
    object: {
      kind: 'RoleBinding',
      metadata: { name: 'bob', namespace: 'a' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'held' },
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }],
    },
  });
  const exactChain = [createPrivilegedGroupsAuthorizer(), createRbacAuthorizer(exact)];
  const exactDeps = { rbac: exact, authorize: (attrs: Parameters<typeof runAuthzChain>[1]) => runAuthzChain(exactChain, attrs) };
  assert.equal((await checkEscalation(role([{ verbs: ['get'], apiGroups: [RBAC_GROUP], resources: ['rolebindings'] }]), exactDeps)).allowed, false);
});
