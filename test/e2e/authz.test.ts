// End to end: authorization through the real HTTPS gateway with `--authorization-mode=Node,RBAC`.
// What a user sees: default deny and its upstream-shaped 403, the bootstrap roles, grants and
// revocations taking effect quickly (decision caches invalidated by RBAC changes), resourceNames
// and subresources, roleRef immutability, the escalation and bind checks on RBAC writes, role
// aggregation, the four access reviews, the Node authorizer's pod graph, special verbs, and
// `kubectl auth can-i`.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { createCA, issueClientCert, type PemPair } from '../../shared/local/pki.js';
import { kubeconfigYaml } from '../../shared/local/kubeconfig.js';
import { assertOk, assertStatus, configMap, createNamespace, eventually, uniq } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';
const RBAC_V1 = `/apis/${RBAC}/v1`;
const AUTHZ = 'authorization.platform.io';
const AUTHZ_V1 = `/apis/${AUTHZ}/v1`;
const TEAM_A = 'team-a';
const TEAM_B = 'team-b';

type Res = Awaited<ReturnType<TestCluster['request']>>;
type Rule = { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };

const role = (name: string, rules: Rule[], labels?: Record<string, string>) => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name, ...(labels ? { labels } : {}) }, rules });
const clusterRole = (name: string, rules: Rule[], labels?: Record<string, string>) => ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name, ...(labels ? { labels } : {}) }, rules });
const user = (name: string) => ({ kind: 'User', apiGroup: RBAC, name });
const roleBinding = (name: string, ref: { kind: 'Role' | 'ClusterRole'; name: string }, subjects = [user('jane')]) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'RoleBinding',
  metadata: { name },
  subjects,
  roleRef: { apiGroup: RBAC, ...ref },
});
const clusterRoleBinding = (name: string, roleName: string, subjects: unknown[]) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  subjects,
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: roleName },
});

const PODS_READ: Rule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };

function forbiddenMessage(res: Res): string {
  return assertStatus(res, 403, 'Forbidden').message as string;
}

describe('authorization (Node, RBAC)', () => {
  let c: TestCluster;
  let jane: string;

  const post = (p: string, body: unknown, token?: string | null) => c.request('POST', p, { body, ...(token !== undefined ? { token } : {}) });
  const create = async (p: string, body: unknown) => assertOk(await post(p, body), 201);
  /** Admin creates a namespace-scoped RBAC object. */
  const nsRbac = (ns: string, plural: 'roles' | 'rolebindings') => `${RBAC_V1}/namespaces/${ns}/${plural}`;
  /** Grants `rules` to jane in `ns` through a fresh Role and RoleBinding; returns the binding name. */
  const grantJane = async (ns: string, rules: Rule[], prefix = 'grant'): Promise<string> => {
    const name = uniq(prefix);
    await create(nsRbac(ns, 'roles'), role(name, rules));
    await create(nsRbac(ns, 'rolebindings'), roleBinding(name, { kind: 'Role', name }));
    return name;
  };
  const selfReview = async (token: string, resourceAttributes: Record<string, string>): Promise<any> =>
    assertOk(await post(`${AUTHZ_V1}/selfsubjectaccessreviews`, { apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } }, token), 201).status;
  const subjectReview = async (spec: Record<string, unknown>): Promise<any> =>
    assertOk(await post(`${AUTHZ_V1}/subjectaccessreviews`, { apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', spec }), 201).status;
  /** Waits until jane's SelfSubjectAccessReview for `attrs` says `allowed`. */
  const janeEventually = (attrs: Record<string, string>, allowed = true, timeoutMs = 2_000) =>
    eventually(
      `jane ${attrs.verb} ${attrs.resource} in ${attrs.namespace ?? 'the cluster'} allowed=${allowed}`,
      async () => {
        assert.equal((await selfReview(jane, attrs)).allowed, allowed);
      },
      { timeoutMs },
    );

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    jane = c.userToken;
    await createNamespace(c, TEAM_A);
    await createNamespace(c, TEAM_B);
    // The authz service writes the default policy in the background after start-up, and the
    // gateway's readiness does not wait for it: wait here, so the cases below see a settled
    // cluster. The bootstrap case still checks the outcome.
    await waitForBootstrap();
  });

  /** Waits (at most 10 s, never failing) until the default bindings the cases rely on exist. */
  const waitForBootstrap = async () => {
    const bindings = ['cluster-admin', 'system:basic-user', 'system:public-info-viewer', 'system:discovery'];
    await eventually(
      'the default policy is written',
      async () => {
        for (const b of bindings) assertOk(await c.request('GET', `${RBAC_V1}/clusterrolebindings/${encodeURIComponent(b)}`));
        const view = assertOk(await c.request('GET', `${RBAC_V1}/clusterroles/view`));
        assert.ok(view.rules?.length, 'view has its aggregated rules');
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    ).catch(() => undefined);
  };

  after(async () => {
    await c?.stop();
  });

  // ---- default deny and the bootstrap policy ---------------------------------------------------

  it('default deny - jane listing secrets gets the upstream-shaped 403', async () => {
    const msg = forbiddenMessage(await c.request('GET', '/api/v1/namespaces/default/secrets', { token: jane }));
    assert.equal(msg, 'secrets is forbidden: User "jane" cannot list resource "secrets" in API group "" in the namespace "default"');
    const named = forbiddenMessage(await c.request('GET', '/api/v1/namespaces/default/secrets/x', { token: jane }));
    assert.equal(named, 'secrets "x" is forbidden: User "jane" cannot get resource "secrets" in API group "" in the namespace "default"');
    const cluster = forbiddenMessage(await c.request('GET', `${RBAC_V1}/clusterroles`, { token: jane }));
    assert.equal(cluster, `clusterroles.${RBAC} is forbidden: User "jane" cannot list resource "clusterroles" in API group "${RBAC}" at the cluster scope`);
  });

  it('default deny - anonymous may read /healthz and /version but not namespaces', async () => {
    const health = await c.request('GET', '/healthz', { token: null });
    assert.equal(health.status, 200, health.text);
    assert.equal(health.text, 'ok');
    const version = assertOk(await c.request('GET', '/version', { token: null }));
    assert.equal(typeof version.gitVersion, 'string');
    const msg = forbiddenMessage(await c.request('GET', '/api/v1/namespaces', { token: null }));
    assert.equal(msg, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
  });

  it('default deny - jane may create a SelfSubjectAccessReview (system:basic-user), anonymous may not', async () => {
    const st = await selfReview(jane, { namespace: 'default', verb: 'list', resource: 'secrets' });
    assert.equal(st.allowed, false);
    assert.notEqual(st.denied, true, 'no module actively denied: RBAC has no opinion');
    const anon = await post(
      `${AUTHZ_V1}/selfsubjectaccessreviews`,
      { apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', resource: 'pods' } } },
      null,
    );
    assert.match(forbiddenMessage(anon), /^selfsubjectaccessreviews\.authorization\.platform\.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectaccessreviews"/);
  });

  it('bootstrap - the default ClusterRoles exist and cluster-admin is bound to system:masters', async () => {
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:public-info-viewer', 'system:node', 'system:discovery']) {
      const r = await c.request('GET', `${RBAC_V1}/clusterroles/${encodeURIComponent(name)}`);
      assert.equal(r.status, 200, `ClusterRole ${name}: ${r.text.slice(0, 300)}`);
      assert.equal(r.json.kind, 'ClusterRole');
    }
    const ca = assertOk(await c.request('GET', `${RBAC_V1}/clusterroles/cluster-admin`));
    assert.ok(
      ca.rules.some((r: Rule) => r.verbs.includes('*') && r.apiGroups?.includes('*') && r.resources?.includes('*')),
      `cluster-admin rules: ${JSON.stringify(ca.rules)}`,
    );
    assert.ok(
      ca.rules.some((r: Rule) => r.verbs.includes('*') && r.nonResourceURLs?.includes('*')),
      `cluster-admin rules: ${JSON.stringify(ca.rules)}`,
    );
    const crb = assertOk(await c.request('GET', `${RBAC_V1}/clusterrolebindings/cluster-admin`));
    assert.deepEqual(crb.roleRef, { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' });
    assert.ok(
      crb.subjects.some((s: any) => s.kind === 'Group' && s.name === 'system:masters' && s.apiGroup === RBAC),
      `subjects: ${JSON.stringify(crb.subjects)}`,
    );
  });

  // ---- grants ------------------------------------------------------------------------------------

  it('grant and revoke - a RoleBinding grants pods in team-a only, and deleting it revokes within 1 s', async () => {
    const pods = (ns?: string) => (ns ? `/api/v1/namespaces/${ns}/pods` : '/api/v1/pods');
    assertStatus(await c.request('GET', pods(TEAM_A), { token: jane }), 403, 'Forbidden');
    await create(nsRbac(TEAM_A, 'roles'), role('pod-reader', [PODS_READ]));
    await create(nsRbac(TEAM_A, 'rolebindings'), roleBinding('jane-pod-reader', { kind: 'Role', name: 'pod-reader' }));
    await eventually('jane lists pods in team-a', async () => {
      assert.equal(assertOk(await c.request('GET', pods(TEAM_A), { token: jane })).kind, 'PodList');
    });
    assert.equal(forbiddenMessage(await c.request('GET', pods(TEAM_B), { token: jane })), 'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "team-b"');
    assert.equal(forbiddenMessage(await c.request('GET', pods(), { token: jane })), 'pods is forbidden: User "jane" cannot list resource "pods" in API group "" at the cluster scope');
    // The Role grants reads only.
    assertStatus(
      await c.request('POST', pods(TEAM_A), { token: jane, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'i' }] } } }),
      403,
      'Forbidden',
    );

    // An allowed decision cached just now must not outlive the binding: only the gateway's
    // invalidation on RBAC changes makes this prompt whatever its cache TTL.
    assertOk(await c.request('GET', pods(TEAM_A), { token: jane }));
    assertOk(await c.request('DELETE', `${nsRbac(TEAM_A, 'rolebindings')}/jane-pod-reader`));
    const t0 = Date.now();
    await eventually(
      'jane is refused pods in team-a after the binding is deleted',
      async () => {
        assertStatus(await c.request('GET', pods(TEAM_A), { token: jane }), 403, 'Forbidden');
      },
      { timeoutMs: 1_000, intervalMs: 20 },
    );
    assert.ok(Date.now() - t0 <= 1_000, `revocation took ${Date.now() - t0} ms`);
  });

  it('grant - a RoleBinding to ClusterRole view grants reads only inside its namespace', async () => {
    const ns = uniq('view');
    const other = uniq('view-other');
    await createNamespace(c, ns);
    await createNamespace(c, other);
    await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('cfg', { a: 'b' }));
    await create(nsRbac(ns, 'rolebindings'), roleBinding('jane-view', { kind: 'ClusterRole', name: 'view' }));
    await eventually('jane reads configmaps through view', async () => {
      assert.deepEqual(assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/cfg`, { token: jane })).data, { a: 'b' });
    });
    assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: jane }));
    assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/pods`, { token: jane }));
    assertStatus(await c.request('GET', `/api/v1/namespaces/${other}/configmaps`, { token: jane }), 403, 'Forbidden');
    assertStatus(await c.request('GET', '/api/v1/configmaps', { token: jane }), 403, 'Forbidden');
    // view is read-only and, as upstream, excludes secrets.
    assertStatus(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { token: jane, body: configMap(uniq('nope')) }), 403, 'Forbidden');
    assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}/secrets`, { token: jane }), 403, 'Forbidden');
  });

  it('resourceNames - a rule naming configmap a allows get a only: not b, not list', async () => {
    const ns = uniq('names');
    await createNamespace(c, ns);
    const cm = `/api/v1/namespaces/${ns}/configmaps`;
    await create(cm, configMap('a', { which: 'a' }));
    await create(cm, configMap('b', { which: 'b' }));
    await grantJane(ns, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }]);
    await eventually('jane gets configmap a', async () => {
      assert.equal(assertOk(await c.request('GET', `${cm}/a`, { token: jane })).data.which, 'a');
    });
    assert.equal(
      forbiddenMessage(await c.request('GET', `${cm}/b`, { token: jane })),
      `configmaps "b" is forbidden: User "jane" cannot get resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
    // A list has no name: a rule restricted to names never matches it.
    assertStatus(await c.request('GET', cm, { token: jane }), 403, 'Forbidden');
  });

  it('subresources - a rule on pods/log does not grant pods', async () => {
    const ns = uniq('sub');
    await createNamespace(c, ns);
    await create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] } });
    await grantJane(ns, [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }]);
    await janeEventually({ namespace: ns, verb: 'get', resource: 'pods', subresource: 'log', name: 'p' });
    assert.equal((await selfReview(jane, { namespace: ns, verb: 'get', resource: 'pods', name: 'p' })).allowed, false);
    assert.equal(
      forbiddenMessage(await c.request('GET', `/api/v1/namespaces/${ns}/pods/p`, { token: jane })),
      `pods "p" is forbidden: User "jane" cannot get resource "pods" in API group "" in the namespace "${ns}"`,
    );
    // The other subresources are not covered either.
    assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}/pods/p/status`, { token: jane }), 403, 'Forbidden');
  });

  it('roleRef - changing a RoleBinding roleRef is 422; changing its subjects is fine', async () => {
    const ns = uniq('ref');
    await createNamespace(c, ns);
    await create(nsRbac(ns, 'roles'), role('r1', [PODS_READ]));
    await create(nsRbac(ns, 'roles'), role('r2', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]));
    const rb = await create(nsRbac(ns, 'rolebindings'), roleBinding('rb', { kind: 'Role', name: 'r1' }));
    const st = assertStatus(await c.request('PUT', `${nsRbac(ns, 'rolebindings')}/rb`, { body: { ...rb, roleRef: { ...rb.roleRef, name: 'r2' } } }), 422, 'Invalid');
    assert.ok(
      st.details?.causes?.some((x: any) => x.field === 'roleRef'),
      `causes: ${JSON.stringify(st.details)}`,
    );
    assert.equal(assertOk(await c.request('GET', `${nsRbac(ns, 'rolebindings')}/rb`)).roleRef.name, 'r1');
    const updated = assertOk(await c.request('PUT', `${nsRbac(ns, 'rolebindings')}/rb`, { body: { ...rb, subjects: [user('jane'), user('bob')] } }));
    assert.deepEqual(
      updated.subjects.map((s: any) => s.name),
      ['jane', 'bob'],
    );
  });

  // ---- escalation prevention --------------------------------------------------------------------

  it('escalation - jane may write only roles and bindings within what she holds, unless granted escalate or bind', async () => {
    const ns = uniq('esc');
    await createNamespace(c, ns);
    await grantJane(ns, [{ verbs: ['create', 'update', 'get', 'list'], apiGroups: [RBAC], resources: ['roles', 'rolebindings'] }], 'rbac-writer');
    await grantJane(ns, [PODS_READ], 'pod-reader');
    await janeEventually({ namespace: ns, verb: 'create', group: RBAC, resource: 'roles' });
    await janeEventually({ namespace: ns, verb: 'list', resource: 'pods' });
    const roles = nsRbac(ns, 'roles');
    const bindings = nsRbac(ns, 'rolebindings');
    const secretReader = role('secret-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);

    // A role granting what she lacks: refused, and nothing stored.
    const refused = forbiddenMessage(await post(roles, secretReader, jane));
    assert.match(refused, new RegExp(`^roles\\.rbac\\.authorization\\.platform\\.io "secret-reader" is forbidden: `));
    assert.match(refused, /attempting to grant RBAC permissions not currently held/);
    assert.match(refused, /secrets/);
    assertStatus(await c.request('GET', `${roles}/secret-reader`), 404, 'NotFound');

    // A role within what she holds.
    assertOk(await post(roles, role('my-pod-reader', [PODS_READ]), jane), 201);
    // Widening it by update is refused the same way.
    const mine = assertOk(await c.request('GET', `${roles}/my-pod-reader`, { token: jane }));
    assert.match(
      forbiddenMessage(await c.request('PUT', `${roles}/my-pod-reader`, { token: jane, body: { ...mine, rules: [PODS_READ, { verbs: ['list'], apiGroups: [''], resources: ['secrets'] }] } })),
      /attempting to grant RBAC permissions not currently held/,
    );

    // Binding herself to cluster-admin: refused.
    const toClusterAdmin = roleBinding('jane-cluster-admin', { kind: 'ClusterRole', name: 'cluster-admin' });
    assertStatus(await post(bindings, toClusterAdmin, jane), 403, 'Forbidden');
    assertStatus(await c.request('GET', `${bindings}/jane-cluster-admin`), 404, 'NotFound');
    // Binding herself to a role she holds entirely is fine.
    assertOk(await post(bindings, roleBinding('jane-my-pod-reader', { kind: 'Role', name: 'my-pod-reader' }), jane), 201);

    // `escalate` on roles lets her write a role beyond her permissions.
    await grantJane(ns, [{ verbs: ['escalate'], apiGroups: [RBAC], resources: ['roles'] }], 'escalator');
    await eventually('jane creates the secret-reader role once she may escalate', async () => {
      assertOk(await post(roles, secretReader, jane), 201);
    });
    // ... but `escalate` is not `bind`.
    assertStatus(await post(bindings, roleBinding('jane-secret-reader', { kind: 'Role', name: 'secret-reader' }), jane), 403, 'Forbidden');

    // `bind` on clusterroles named cluster-admin lets her bind exactly that role.
    const binder = uniq('bind-cluster-admin');
    await create(`${RBAC_V1}/clusterroles`, clusterRole(binder, [{ verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['cluster-admin'] }]));
    await create(bindings, roleBinding(binder, { kind: 'ClusterRole', name: binder }));
    await eventually('jane binds cluster-admin once she may bind it', async () => {
      assertOk(await post(bindings, toClusterAdmin, jane), 201);
    });
    // The binding is namespaced: she is admin of this namespace only.
    await janeEventually({ namespace: ns, verb: 'get', resource: 'secrets' });
    assertStatus(await c.request('GET', `/api/v1/namespaces/${TEAM_B}/secrets`, { token: jane }), 403, 'Forbidden');
  });

  it('escalation - a ClusterRoleBinding to cluster-admin by a user without bind is refused', async () => {
    const ns = uniq('esc-crb');
    await createNamespace(c, ns);
    // jane may create clusterrolebindings, nothing more.
    const writer = uniq('crb-writer');
    await create(`${RBAC_V1}/clusterroles`, clusterRole(writer, [{ verbs: ['create'], apiGroups: [RBAC], resources: ['clusterrolebindings', 'clusterroles'] }]));
    await create(`${RBAC_V1}/clusterrolebindings`, clusterRoleBinding(writer, writer, [user('jane')]));
    await janeEventually({ verb: 'create', group: RBAC, resource: 'clusterrolebindings' });
    const name = uniq('jane-root');
    const msg = forbiddenMessage(await post(`${RBAC_V1}/clusterrolebindings`, clusterRoleBinding(name, 'cluster-admin', [user('jane')]), jane));
    assert.match(msg, new RegExp(`^clusterrolebindings\\.rbac\\.authorization\\.platform\\.io "${name}" is forbidden: `));
    assertStatus(await c.request('GET', `${RBAC_V1}/clusterrolebindings/${name}`), 404, 'NotFound');
    // Nor may she create a ClusterRole granting everything.
    const wide = forbiddenMessage(await post(`${RBAC_V1}/clusterroles`, clusterRole(uniq('root'), [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), jane));
    assert.match(wide, /attempting to grant RBAC permissions not currently held/);
  });

  // ---- aggregation ------------------------------------------------------------------------------

  it('aggregation - a ClusterRole labelled aggregate-to-view adds its rules to view, and removing it takes them away', async () => {
    const name = uniq('widgets-view');
    const widgets: Rule = { verbs: ['get', 'list', 'watch'], apiGroups: ['example.com'], resources: ['widgets'] };
    await create(`${RBAC_V1}/clusterroles`, clusterRole(name, [widgets], { [`${RBAC}/aggregate-to-view`]: 'true' }));
    const hasWidgets = (rules: Rule[] | undefined) => (rules ?? []).some((r) => r.apiGroups?.includes('example.com') && r.resources?.includes('widgets') && r.verbs.includes('list'));
    await eventually(
      'view aggregates the widgets rule',
      async () => {
        const view = assertOk(await c.request('GET', `${RBAC_V1}/clusterroles/view`));
        assert.ok(hasWidgets(view.rules), `view rules: ${JSON.stringify(view.rules)}`);
        assert.ok(view.aggregationRule?.clusterRoleSelectors?.length, 'view has an aggregationRule');
      },
      { timeoutMs: 5_000, intervalMs: 100 },
    );
    // Whoever holds view now reads widgets.
    const ns = uniq('agg');
    await createNamespace(c, ns);
    await create(nsRbac(ns, 'rolebindings'), roleBinding('jane-view', { kind: 'ClusterRole', name: 'view' }));
    await janeEventually({ namespace: ns, verb: 'list', group: 'example.com', resource: 'widgets' });

    assertOk(await c.request('DELETE', `${RBAC_V1}/clusterroles/${name}`));
    await eventually(
      'view drops the widgets rule',
      async () => {
        const view = assertOk(await c.request('GET', `${RBAC_V1}/clusterroles/view`));
        assert.ok(!hasWidgets(view.rules), `view rules: ${JSON.stringify(view.rules)}`);
      },
      { timeoutMs: 5_000, intervalMs: 100 },
    );
  });

  // ---- access reviews ---------------------------------------------------------------------------

  it('access reviews - SelfSubjectAccessReview and SubjectAccessReview answer for jane', async () => {
    const ns = uniq('ar');
    await createNamespace(c, ns);
    await grantJane(ns, [PODS_READ], 'pod-reader');
    await janeEventually({ namespace: ns, verb: 'list', resource: 'pods' });
    const denied = await selfReview(jane, { namespace: ns, verb: 'delete', resource: 'pods', name: 'p' });
    assert.equal(denied.allowed, false);

    const pods = { namespace: ns, verb: 'list', resource: 'pods' };
    const forJane = await subjectReview({ user: 'jane', groups: ['developers', 'qa'], resourceAttributes: pods });
    assert.equal(forJane.allowed, true);
    assert.equal((await subjectReview({ user: 'bob', groups: ['developers'], resourceAttributes: pods })).allowed, false);
    assert.equal((await subjectReview({ user: 'jane', groups: ['developers'], resourceAttributes: { ...pods, namespace: TEAM_B } })).allowed, false);
    // A group alone may be asked about: system:masters may do anything.
    assert.equal((await subjectReview({ groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes', name: 'n1' } })).allowed, true);
    // Non-resource attributes: /healthz is public information.
    assert.equal((await subjectReview({ user: 'system:anonymous', groups: ['system:unauthenticated'], nonResourceAttributes: { path: '/healthz', verb: 'get' } })).allowed, true);
    assert.equal((await subjectReview({ user: 'jane', groups: ['system:authenticated'], nonResourceAttributes: { path: '/metrics', verb: 'get' } })).allowed, false);

    // Asking about somebody else is itself a privilege jane lacks.
    const janeAsks = await post(`${AUTHZ_V1}/subjectaccessreviews`, { apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', spec: { user: 'jane', resourceAttributes: pods } }, jane);
    assertStatus(janeAsks, 403, 'Forbidden');
  });

  it('access reviews - LocalSubjectAccessReview checks its namespace; reviews without a subject or attributes are 422', async () => {
    const ns = uniq('lsar');
    await createNamespace(c, ns);
    await grantJane(ns, [PODS_READ], 'pod-reader');
    const local = (resourceNs: string) => ({
      apiVersion: `${AUTHZ}/v1`,
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: ns },
      spec: { user: 'jane', groups: ['developers'], resourceAttributes: { namespace: resourceNs, verb: 'get', resource: 'pods', name: 'x' } },
    });
    const lsar = `${AUTHZ_V1}/namespaces/${ns}/localsubjectaccessreviews`;
    await eventually('LocalSubjectAccessReview allows jane', async () => {
      assert.equal(assertOk(await post(lsar, local(ns)), 201).status.allowed, true);
    });
    const st = assertStatus(await post(lsar, local(TEAM_B)), 422, 'Invalid');
    assert.ok(
      st.details?.causes?.some((x: any) => x.field === 'spec.resourceAttributes.namespace'),
      JSON.stringify(st.details),
    );

    const noSubject = await post(`${AUTHZ_V1}/subjectaccessreviews`, { apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } });
    assertStatus(noSubject, 422, 'Invalid');
    const noAttributes = await post(`${AUTHZ_V1}/subjectaccessreviews`, { apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', spec: { user: 'jane' } });
    assertStatus(noAttributes, 422, 'Invalid');
  });

  it("access reviews - SelfSubjectRulesReview lists jane's rules, complete (Node lists nothing for a user who is no node); no namespace is 400", async () => {
    const ns = uniq('ssrr');
    await createNamespace(c, ns);
    await grantJane(ns, [PODS_READ], 'pod-reader');
    const ssrr = (spec: Record<string, unknown>) => post(`${AUTHZ_V1}/selfsubjectrulesreviews`, { apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectRulesReview', spec }, jane);
    await eventually('the rules review shows pod-reader', async () => {
      const st = assertOk(await ssrr({ namespace: ns }), 201).status;
      assert.equal(st.incomplete, false);
      const rule = st.resourceRules.find((r: Rule) => r.resources?.includes('pods'));
      assert.ok(rule, `resourceRules: ${JSON.stringify(st.resourceRules)}`);
      assert.deepEqual([...rule.verbs].sort(), ['get', 'list']);
      assert.deepEqual(rule.apiGroups, ['']);
      // system:basic-user (through system:authenticated) lets her ask these questions.
      assert.ok(
        st.resourceRules.some((r: Rule) => r.resources?.includes('selfsubjectaccessreviews') && r.verbs.includes('create')),
        `resourceRules: ${JSON.stringify(st.resourceRules)}`,
      );
    });
    // Rules of another namespace do not leak in.
    const other = assertOk(await ssrr({ namespace: TEAM_B }), 201).status;
    assert.ok(!other.resourceRules.some((r: Rule) => r.resources?.includes('pods')), `team-b rules: ${JSON.stringify(other.resourceRules)}`);
    assertStatus(await ssrr({}), 400, 'BadRequest');
  });

  // ---- the Node authorizer ----------------------------------------------------------------------

  it('Node - a node reads secrets of pods bound to it, and only those; it may read its own node', async () => {
    const node = async (name: string): Promise<PemPair> => issueClientCert(c.ca, { commonName: `system:node:${name}`, organizations: ['system:nodes'] });
    const [n1, n2] = await Promise.all([node('n1'), node('n2')]);
    await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    const secrets = '/api/v1/namespaces/default/secrets';
    await create(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { k: 'v' } });
    await create(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2' }, stringData: { k: 'v' } });
    await create('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'on-n1' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'registry.example/app:1' }], volumes: [{ name: 's', secret: { secretName: 's1' } }] },
    });

    await eventually('node n1 reads secret s1 of its pod', async () => {
      assert.equal(assertOk(await c.request('GET', `${secrets}/s1`, { token: null, cert: n1 })).metadata.name, 's1');
    });
    const n2Msg = forbiddenMessage(await c.request('GET', `${secrets}/s1`, { token: null, cert: n2 }));
    assert.equal(
      n2Msg,
      'secrets "s1" is forbidden: User "system:node:n2" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node \'n2\' and this object',
    );
    // The node name alone is not enough: without group system:nodes it is just a user.
    const notInGroup = await issueClientCert(c.ca, { commonName: 'system:node:n1', organizations: ['developers'] });
    assertStatus(await c.request('GET', `${secrets}/s1`, { token: null, cert: notInGroup }), 403, 'Forbidden');
    // A certificate from another CA claiming to be n1 is not a node at all.
    const rogue = await issueClientCert(await createCA('rogue-ca'), { commonName: 'system:node:n1', organizations: ['system:nodes'] });
    assertStatus(await c.request('GET', `${secrets}/s1`, { token: null, cert: rogue }), 401, 'Unauthorized');
    assertStatus(await c.request('GET', `${secrets}/s2`, { token: null, cert: n1 }), 403, 'Forbidden');
    assert.match(forbiddenMessage(await c.request('GET', secrets, { token: null, cert: n1 })), /^secrets is forbidden: User "system:node:n1" cannot list resource "secrets"/);

    const own = assertOk(await c.request('GET', '/api/v1/nodes/n1', { token: null, cert: n1 }));
    assert.equal(own.metadata.name, 'n1');
    const relabelled = assertOk(await c.request('PUT', '/api/v1/nodes/n1', { token: null, cert: n1, body: { ...own, metadata: { ...own.metadata, labels: { 'node.platform.io/pool': 'a' } } } }));
    assert.equal(relabelled.metadata.labels['node.platform.io/pool'], 'a');
    const other = assertOk(await c.request('GET', '/api/v1/nodes/n2'));
    assertStatus(await c.request('PUT', '/api/v1/nodes/n2', { token: null, cert: n1, body: { ...other, metadata: { ...other.metadata, labels: { hijacked: 'yes' } } } }), 403, 'Forbidden');
    assert.equal(assertOk(await c.request('GET', '/api/v1/nodes/n2')).metadata.labels?.hijacked, undefined);

    // Deleting the pod cuts the path from n1 to s1.
    assertOk(await c.request('DELETE', '/api/v1/namespaces/default/pods/on-n1?gracePeriodSeconds=0'));
    await eventually('node n1 loses secret s1 with its pod', async () => {
      assertStatus(await c.request('GET', `${secrets}/s1`, { token: null, cert: n1 }), 403, 'Forbidden');
    });
  });

  // ---- special verbs ----------------------------------------------------------------------------

  it('special verbs - use on podsecuritypolicies and approve on signers, via SubjectAccessReview', async () => {
    const psp = uniq('psp-user');
    await create(`${RBAC_V1}/clusterroles`, clusterRole(psp, [{ verbs: ['use'], apiGroups: ['policy'], resources: ['podsecuritypolicies'], resourceNames: ['restricted'] }]));
    await create(`${RBAC_V1}/clusterrolebindings`, clusterRoleBinding(psp, psp, [user('psp-tester')]));
    const use = (name: string) => ({ user: 'psp-tester', resourceAttributes: { verb: 'use', group: 'policy', resource: 'podsecuritypolicies', name } });
    await eventually('psp-tester may use restricted', async () => assert.equal((await subjectReview(use('restricted'))).allowed, true));
    assert.equal((await subjectReview(use('privileged'))).allowed, false);
    assert.equal((await subjectReview({ ...use('restricted'), resourceAttributes: { ...use('restricted').resourceAttributes, verb: 'create' } })).allowed, false);

    // Upstream RBAC matches resourceNames exactly; treating `<domain>/*` as covering every signer
    // of the domain is the CertificateApproval admission plugin's job (it asks for both names).
    const approver = uniq('signer-approver');
    await create(`${RBAC_V1}/clusterroles`, clusterRole(approver, [{ verbs: ['approve'], apiGroups: ['certificates.platform.io'], resources: ['signers'], resourceNames: ['platform.io/*'] }]));
    await create(`${RBAC_V1}/clusterrolebindings`, clusterRoleBinding(approver, approver, [user('approver')]));
    const approve = (name: string, verb = 'approve') => ({ user: 'approver', resourceAttributes: { verb, group: 'certificates.platform.io', resource: 'signers', name } });
    await eventually('approver may approve platform.io/*', async () => assert.equal((await subjectReview(approve('platform.io/*'))).allowed, true));
    assert.equal((await subjectReview(approve('example.com/*'))).allowed, false);
    assert.equal((await subjectReview(approve('platform.io/*', 'sign'))).allowed, false);
  });

  // ---- kubectl ----------------------------------------------------------------------------------

  const kubectl = findKubectl();
  it('kubectl - auth can-i as jane answers yes and no', { skip: kubectl ? false : 'kubectl not on PATH' }, async (t) => {
    // kubectl asks through the upstream group name; a server that only serves the branded
    // group cannot answer it.
    const upstreamGroup = await c.request('GET', '/apis/authorization.k8s.io/v1');
    if (upstreamGroup.status === 404) {
      t.skip('kubectl posts SelfSubjectAccessReviews to authorization.k8s.io/v1, which this server does not serve (it serves authorization.platform.io/v1)');
      return;
    }
    const ns = uniq('can-i');
    await createNamespace(c, ns);
    await grantJane(ns, [PODS_READ], 'pod-reader');
    await janeEventually({ namespace: ns, verb: 'list', resource: 'pods' });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'authz-kubectl-'));
    const kubeconfig = path.join(dir, 'jane.kubeconfig');
    await writeFile(kubeconfig, kubeconfigYaml({ server: c.url, caPem: c.caPem, token: jane }), { mode: 0o600 });
    const k = new Kubectl(kubectl!, kubeconfig);
    try {
      const yes = await k.run(['auth', 'can-i', 'list', 'pods', '-n', ns]);
      assert.equal(yes.stdout.trim(), 'yes', `stderr: ${yes.stderr}`);
      assert.equal(yes.code, 0);
      const no = await k.run(['auth', 'can-i', 'list', 'secrets', '-n', ns]);
      assert.equal(no.stdout.trim(), 'no', `stderr: ${no.stderr}`);
      assert.equal(no.code, 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(k.cacheDir, { recursive: true, force: true });
    }
  });
});
