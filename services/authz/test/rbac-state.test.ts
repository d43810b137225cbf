import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, UserInfo } from '../../../shared/api/types.js';
import type { AuthzAttributes, PolicyRule } from '../../../shared/bus/messages.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import type { FeedEvent } from '../../../shared/store/object-feed.js';
import { RbacState, type RbacChange } from '../rbac/state.js';
import { createRbacAuthorizer } from '../authorizers/rbac.js';
import { canonicalGroupNames, RBAC_GROUP } from '../../../shared/api/groups.js';

type Resource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';

/** A feed of synthetic events with increasing revisions. */
function feed(state: RbacState) {
  let rev = 0;
  const event = (resource: Resource, name: string, namespace: string | undefined, object: ApiObject | null): FeedEvent => {
    const ref = { group: RBAC_GROUP, resource, name, ...(namespace ? { namespace } : {}) };
    return { key: encodeKey(ref), ref, revision: ++rev, object };
  };
  const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}) });
  return {
    role(name: string, namespace: string, rules: PolicyRule[]) {
      state.apply(event('roles', name, namespace, { kind: 'Role', metadata: meta(name, namespace), rules }));
    },
    clusterRole(name: string, rules: PolicyRule[]) {
      state.apply(event('clusterroles', name, undefined, { kind: 'ClusterRole', metadata: meta(name), rules }));
    },
    roleBinding(name: string, namespace: string, roleRef: { kind: string; name: string }, subjects: object[]) {
      state.apply(event('rolebindings', name, namespace, { kind: 'RoleBinding', metadata: meta(name, namespace), roleRef: { apiGroup: RBAC_GROUP, ...roleRef }, subjects }));
    },
    clusterRoleBinding(name: string, role: string, subjects: object[]) {
      state.apply(event('clusterrolebindings', name, undefined, { kind: 'ClusterRoleBinding', metadata: meta(name), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role }, subjects }));
    },
    remove(resource: Resource, name: string, namespace?: string) {
      state.apply(event(resource, name, namespace, null));
    },
    other(ref: { group: string; resource: string; name: string; namespace?: string }) {
      state.apply({ key: encodeKey(ref), ref, revision: ++rev, object: { metadata: { name: ref.name }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] } });
    },
  };
}

const user = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, 'system:authenticated'] });
const U = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const G = (name: string) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const SA = (name: string, namespace?: string) => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });

function req(u: UserInfo, verb: string, resource: string, namespace?: string, extra: Partial<AuthzAttributes> = {}): AuthzAttributes {
  return { user: u, verb, isResourceRequest: true, path: '/x', apiGroup: '', resource, ...(namespace ? { namespace } : {}), ...extra };
}

const readPods: PolicyRule[] = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }];

test('rbac state - a binding grants at once, and its removal takes the grant away at once', () => {
  const state = new RbacState();
  const f = feed(state);
  const authz = createRbacAuthorizer(state);
  const alice = user('alice');
  f.role('pod-reader', 'a', readPods);
  assert.equal(authz.authorize(req(alice, 'get', 'pods', 'a', { name: 'p' })).decision, 'NoOpinion', 'nothing bound yet');
  f.roleBinding('alice-reads', 'a', { kind: 'Role', name: 'pod-reader' }, [U('alice')]);
  assert.deepEqual(authz.authorize(req(alice, 'get', 'pods', 'a', { name: 'p' })), { decision: 'Allow' });
  assert.deepEqual(authz.authorize(req(alice, 'delete', 'pods', 'a', { name: 'p' })), { decision: 'NoOpinion' }, 'no match: no opinion and no reason');
  // A role edit applies to every binding of it immediately.
  f.role('pod-reader', 'a', [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]);
  assert.equal(authz.authorize(req(alice, 'delete', 'pods', 'a', { name: 'p' })).decision, 'Allow');
  assert.equal(authz.authorize(req(alice, 'get', 'pods', 'a', { name: 'p' })).decision, 'NoOpinion');
  // Changing the subjects moves the grant.
  f.roleBinding('alice-reads', 'a', { kind: 'Role', name: 'pod-reader' }, [U('bob')]);
  assert.equal(authz.authorize(req(alice, 'delete', 'pods', 'a', { name: 'p' })).decision, 'NoOpinion');
  assert.equal(authz.authorize(req(user('bob'), 'delete', 'pods', 'a', { name: 'p' })).decision, 'Allow');
  f.remove('rolebindings', 'alice-reads', 'a');
  assert.equal(authz.authorize(req(user('bob'), 'delete', 'pods', 'a', { name: 'p' })).decision, 'NoOpinion');
  assert.deepEqual(state.size(), { roles: 1, clusterRoles: 0, bindings: 0 });
});

test('rbac state - a binding to a missing role is reported, and the search goes on', () => {
  const state = new RbacState();
  const f = feed(state);
  const authz = createRbacAuthorizer(state);
  const alice = user('alice', 'dev');
  f.roleBinding('dangling', 'a', { kind: 'Role', name: 'ghost' }, [U('alice')]);
  f.clusterRoleBinding('dangling-cluster', 'phantom', [G('dev')]);
  const d = authz.authorize(req(alice, 'get', 'pods', 'a', { name: 'p' }));
  assert.equal(d.decision, 'NoOpinion');
  assert.equal(d.error, `RBAC: [clusterrole.${RBAC_GROUP} "phantom" not found, role.${RBAC_GROUP} "ghost" not found]`);
  assert.equal(d.reason, d.error, 'the 403 names the missing roles, as upstream');
  // Another binding that does grant still allows, whatever the dangling ones.
  f.clusterRole('reader', readPods);
  f.roleBinding('works', 'a', { kind: 'ClusterRole', name: 'reader' }, [G('dev')]);
  assert.deepEqual(authz.authorize(req(alice, 'get', 'pods', 'a', { name: 'p' })), { decision: 'Allow' });
  // The missing role appearing fixes the dangling binding without touching it.
  f.role('ghost', 'a', [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }]);
  assert.equal(authz.authorize(req(alice, 'create', 'configmaps', 'a')).decision, 'Allow');
  // A Role of the same name in another namespace is not the binding's role.
  f.roleBinding('cross', 'b', { kind: 'Role', name: 'ghost' }, [U('alice')]);
  assert.equal(authz.authorize(req(alice, 'create', 'configmaps', 'b')).error, `RBAC: [clusterrole.${RBAC_GROUP} "phantom" not found, role.${RBAC_GROUP} "ghost" not found]`);
});

test('rbac state - a RoleBinding to a ClusterRole grants only inside its namespace; a ClusterRoleBinding everywhere', () => {
  const state = new RbacState();
  const f = feed(state);
  const authz = createRbacAuthorizer(state);
  const alice = user('alice');
  const carol = user('carol');
  f.clusterRole('everything', [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['get'], nonResourceURLs: ['*'] },
  ]);
  f.roleBinding('alice-admin', 'a', { kind: 'ClusterRole', name: 'everything' }, [U('alice')]);
  f.clusterRoleBinding('carol-admin', 'everything', [U('carol')]);
  const cases: Array<{ name: string; attrs: AuthzAttributes; alice: string; carol: string }> = [
    { name: 'inside the namespace', attrs: req(alice, 'delete', 'secrets', 'a', { name: 's' }), alice: 'Allow', carol: 'Allow' },
    { name: 'another namespace', attrs: req(alice, 'delete', 'secrets', 'b', { name: 's' }), alice: 'NoOpinion', carol: 'Allow' },
    { name: 'across all namespaces', attrs: req(alice, 'list', 'secrets'), alice: 'NoOpinion', carol: 'Allow' },
    { name: 'a cluster-scoped resource', attrs: req(alice, 'get', 'nodes', undefined, { name: 'n1' }), alice: 'NoOpinion', carol: 'Allow' },
    { name: 'a non-resource URL', attrs: { user: alice, verb: 'get', isResourceRequest: false, path: '/metrics' }, alice: 'NoOpinion', carol: 'Allow' },
    { name: 'a non-resource URL that carries a namespace anyway', attrs: { user: alice, verb: 'get', isResourceRequest: false, path: '/metrics', namespace: 'a' }, alice: 'NoOpinion', carol: 'Allow' },
  ];
  for (const c of cases) {
    assert.equal(authz.authorize(c.attrs).decision, c.alice, `alice (RoleBinding): ${c.name}`);
    assert.equal(authz.authorize({ ...c.attrs, user: carol }).decision, c.carol, `carol (ClusterRoleBinding): ${c.name}`);
  }
  // A ClusterRoleBinding cannot name a Role.
  f.role('local', 'a', readPods);
  state.apply({
    key: 'k',
    ref: { group: RBAC_GROUP, resource: 'clusterrolebindings', name: 'bad' },
    revision: 99,
    object: { metadata: { name: 'bad' }, roleRef: { kind: 'Role', name: 'local' }, subjects: [U('dave')] },
  });
  assert.equal(authz.authorize(req(user('dave'), 'get', 'pods', 'a', { name: 'p' })).decision, 'NoOpinion');
});

test('rbac state - service accounts, groups and user names as subjects', () => {
  const state = new RbacState();
  const f = feed(state);
  const authz = createRbacAuthorizer(state);
  const builder: UserInfo = { username: 'system:serviceaccount:ci:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'] };
  f.clusterRole('reader', readPods);
  f.roleBinding('sa-local', 'ci', { kind: 'ClusterRole', name: 'reader' }, [SA('builder')]);
  f.roleBinding('sa-elsewhere', 'prod', { kind: 'ClusterRole', name: 'reader' }, [SA('builder', 'ci')]);
  f.roleBinding('sa-wrong-ns', 'stage', { kind: 'ClusterRole', name: 'reader' }, [SA('builder')]);
  f.clusterRoleBinding('sa-no-ns', 'reader', [SA('builder')]);
  f.roleBinding('all-sas-of-ci', 'shared', { kind: 'ClusterRole', name: 'reader' }, [G('system:serviceaccounts:ci')]);
  const allowedIn = (u: UserInfo) => ['ci', 'prod', 'stage', 'shared', 'other'].filter((ns) => authz.authorize(req(u, 'list', 'pods', ns)).decision === 'Allow');
  assert.deepEqual(allowedIn(builder), ['ci', 'prod', 'shared'], 'namespace defaults to the binding’s; a ClusterRoleBinding SA without namespace names nobody');
  assert.deepEqual(allowedIn({ ...builder, username: 'system:serviceaccount:other:builder', groups: ['system:serviceaccounts:other'] }), [], 'same name, other namespace');
  assert.deepEqual(allowedIn(user('builder')), [], 'a user named like the account');
  assert.deepEqual(allowedIn(user('System:ServiceAccount:ci:builder')), [], 'user names are case-sensitive');
});

test('rbac state - rulesFor lists cluster-wide rules and the namespace’s, for rules reviews', () => {
  const state = new RbacState();
  const f = feed(state);
  const authz = createRbacAuthorizer(state);
  const alice = user('alice', 'dev');
  f.clusterRole('discovery', [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }]);
  f.clusterRole('urls-and-pods', [
    { verbs: ['get'], nonResourceURLs: ['/secret-url'] },
    { verbs: ['watch'], apiGroups: [''], resources: ['pods'] },
  ]);
  f.role('cm', 'a', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }]);
  f.role('cm', 'b', [{ verbs: ['delete'], apiGroups: [''], resources: ['configmaps'] }]);
  f.clusterRoleBinding('discovery', 'discovery', [G('system:authenticated')]);
  f.roleBinding('cm', 'a', { kind: 'Role', name: 'cm' }, [U('alice')]);
  f.roleBinding('cm', 'b', { kind: 'Role', name: 'cm' }, [U('alice')]);
  f.roleBinding('mixed', 'a', { kind: 'ClusterRole', name: 'urls-and-pods' }, [G('dev')]);
  f.roleBinding('gone', 'a', { kind: 'Role', name: 'gone' }, [U('alice')]);
  const rules = authz.rulesFor(alice, 'a');
  assert.deepEqual(rules, {
    resourceRules: [
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] },
      { verbs: ['watch'], apiGroups: [''], resources: ['pods'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
    incomplete: false,
    evaluationError: `RBAC: role.${RBAC_GROUP} "gone" not found`,
  });
  assert.deepEqual(authz.rulesFor(user('nobody'), 'a'), { resourceRules: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }], incomplete: false });
});

test('rbac state - revision, change notifications and foreign objects', () => {
  const state = new RbacState();
  const f = feed(state);
  const changes: RbacChange[] = [];
  const off = state.onChange((c) => changes.push(c));
  state.onChange(() => {
    throw new Error('a broken listener must not break the feed');
  });
  f.clusterRole('x', readPods);
  f.roleBinding('b', 'ns', { kind: 'ClusterRole', name: 'x' }, [U('alice')]);
  f.other({ group: '', resource: 'configmaps', namespace: 'ns', name: 'roles' });
  f.other({ group: 'example.com', resource: 'roles', namespace: 'ns', name: 'evil' });
  assert.deepEqual(
    changes.map((c) => [c.kind, c.namespace, c.name, c.object !== null]),
    [
      ['ClusterRole', '', 'x', true],
      ['RoleBinding', 'ns', 'b', true],
    ],
  );
  assert.equal(state.revision(), 2, 'only RBAC objects move the revision');
  assert.deepEqual(state.size(), { roles: 0, clusterRoles: 1, bindings: 1 });
  off();
  f.remove('clusterroles', 'x');
  assert.equal(changes.length, 2);
  assert.equal(state.clusterRole('x'), undefined);
});

test('rbac state - users and groups named like Object.prototype members are ordinary names', () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
  const state = new RbacState();
  const f = feed(state);
  const authz = createRbacAuthorizer(state);
  f.role('pod-reader', 'a', readPods);
  f.clusterRole('pod-reader', readPods);
  for (const n of names) {
    // Nothing bound: no name may find a grant through an inherited member.
    assert.equal(authz.authorize(req(user(n), 'get', 'pods', 'a')).decision, 'NoOpinion', `user ${n} unbound`);
    assert.equal(authz.authorize(req(user('x', n), 'get', 'pods', 'a')).decision, 'NoOpinion', `group ${n} unbound`);
  }
  for (const n of names) {
    f.roleBinding(`u-${n.replace(/_/g, 'x')}`, 'a', { kind: 'Role', name: 'pod-reader' }, [U(n)]);
    f.clusterRoleBinding(`g-${n.replace(/_/g, 'x')}`, 'pod-reader', [G(n)]);
  }
  for (const n of names) {
    assert.equal(authz.authorize(req(user(n), 'get', 'pods', 'a')).decision, 'Allow', `user ${n}`);
    assert.equal(authz.authorize(req(user(n), 'get', 'pods', 'b')).decision, 'NoOpinion', `user ${n} in another namespace`);
    assert.equal(authz.authorize(req(user('x', n), 'get', 'pods', 'b')).decision, 'Allow', `group ${n}`);
  }
  assert.equal(authz.authorize(req(user('someone-else'), 'get', 'pods', 'a')).decision, 'NoOpinion');
  f.remove('rolebindings', 'u-constructor', 'a');
  assert.equal(authz.authorize(req(user('constructor'), 'get', 'pods', 'a')).decision, 'NoOpinion');
  assert.equal(authz.authorize(req(user('__proto__'), 'get', 'pods', 'a')).decision, 'Allow');
});

test('rbac state - with upstream aliases, rules and subjects naming upstream spellings mean the branded groups; without, they name other groups', () => {
  const rules: PolicyRule[] = [{ verbs: ['list'], apiGroups: ['rbac.authorization.k8s.io', 'networking.k8s.io'], resources: ['roles', 'ingresses'] }];
  const subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }];
  const alice = user('alice');
  const decide = (state: RbacState, group: string, resource: string) => createRbacAuthorizer(state).authorize(req(alice, 'list', resource, 'a', { apiGroup: group })).decision;

  const on = new RbacState(canonicalGroupNames(true));
  const f = feed(on);
  f.role('lister', 'a', rules);
  f.roleBinding('alice', 'a', { kind: 'Role', name: 'lister' }, subjects);
  assert.equal(decide(on, RBAC_GROUP, 'roles'), 'Allow');
  assert.equal(decide(on, 'networking.platform.io', 'ingresses'), 'Allow');
  assert.equal(decide(on, 'apps', 'roles'), 'NoOpinion', 'no other group is granted');
  assert.deepEqual(on.rulesFor(alice, 'a').rules.find((r) => r.resources?.includes('roles'))?.apiGroups, [RBAC_GROUP, 'networking.platform.io'], 'a rules review names the branded groups');

  const off = new RbacState();
  const g = feed(off);
  g.role('lister', 'a', rules);
  g.roleBinding('alice', 'a', { kind: 'Role', name: 'lister' }, subjects);
  assert.equal(decide(off, RBAC_GROUP, 'roles'), 'NoOpinion');
  assert.equal(decide(off, 'rbac.authorization.k8s.io', 'roles'), 'Allow', 'the subject in either spelling still names alice');
});
