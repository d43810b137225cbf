// End to end: impersonation under RBAC. The caller needs `impersonate` on every attribute it asks
// for (users, groups by resourceNames), the request then runs as the impersonated user with that
// user's own rights, and a refusal is a 403 that says `impersonate`. Also client certificates
// under RBAC: system:masters may do anything, a certificate user with no bindings may not.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type RequestOptions, type TestCluster } from '../support/cluster.js';
import { issueClientCert } from '../../shared/local/pki.js';
import { assertOk, assertStatus, eventually, uniq } from './helpers.js';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const AUTHENTICATED = 'system:authenticated';

type Res = Awaited<ReturnType<TestCluster['request']>>;

function clusterRole(name: string, rules: unknown[]) {
  return { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
}

function clusterRoleBinding(name: string, role: string, subject: { kind: 'User' | 'Group'; name: string }) {
  return {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.platform.io', ...subject }],
  };
}

describe('impersonation and certificates under RBAC', () => {
  let c: TestCluster;
  const whoamiRaw = (opts: RequestOptions): Promise<Res> => c.request('POST', SSR, { token: null, ...opts, body: SSR_BODY });
  const whoami = async (opts: RequestOptions) => {
    const r = await whoamiRaw(opts);
    return assertOk(r, 201).status.userInfo as { username: string; groups?: string[] };
  };
  const asJane = (headers: Record<string, string | string[]>): RequestOptions => ({ token: c.userToken, headers });

  before(async () => {
    c = await startTestCluster({ fullAuthn: true, authorizationModes: ['RBAC'] });
    // Every authenticated user may ask who it is (upstream's system:basic-user grants the same),
    // so a 403 below can only come from the impersonation check.
    const create = async (p: string, body: unknown) => assertOk(await c.request('POST', `${RBAC}/${p}`, { body }), 201);
    await create('clusterroles', clusterRole('e2e-whoami', [{ apiGroups: ['authentication.platform.io'], resources: ['selfsubjectreviews'], verbs: ['create'] }]));
    await create('clusterrolebindings', clusterRoleBinding('e2e-whoami', 'e2e-whoami', { kind: 'Group', name: AUTHENTICATED }));
    await create(
      'clusterroles',
      clusterRole('e2e-impersonate-alice', [
        { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice'] },
        { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: ['team-a'] },
      ]),
    );
    await create('clusterrolebindings', clusterRoleBinding('e2e-jane-impersonates-alice', 'e2e-impersonate-alice', { kind: 'User', name: 'jane' }));
    // The authorizer reads RBAC objects from its watch: wait until the grants are in force.
    await eventually('jane may impersonate alice', async () => assert.equal((await whoami(asJane({ 'Impersonate-User': 'alice' }))).username, 'alice'), { timeoutMs: 5000, intervalMs: 100 });
  });
  after(async () => {
    await c?.stop();
  });

  it('RBAC impersonation - jane may impersonate alice (resourceNames) and runs as alice', async () => {
    assert.equal((await whoami({ token: c.userToken })).username, 'jane');
    const u = await whoami(asJane({ 'Impersonate-User': 'alice' }));
    assert.equal(u.username, 'alice');
    assert.deepEqual(u.groups, [AUTHENTICATED]);
    const withGroup = await whoami(asJane({ 'Impersonate-User': 'alice', 'Impersonate-Group': 'team-a' }));
    assert.deepEqual(withGroup.groups, ['team-a', AUTHENTICATED]);
  });

  it('RBAC impersonation - jane may not impersonate bob: 403 naming impersonate', async () => {
    const st = assertStatus(await whoamiRaw(asJane({ 'Impersonate-User': 'bob' })), 403, 'Forbidden');
    assert.match(st.message, /impersonate/);
    assert.match(st.message, /User "jane"/);
    assert.match(st.message, /users/);
  });

  it('RBAC impersonation - alice with a group jane may not impersonate is 403', async () => {
    const st = assertStatus(await whoamiRaw(asJane({ 'Impersonate-User': 'alice', 'Impersonate-Group': 'system:masters' })), 403, 'Forbidden');
    assert.match(st.message, /impersonate/);
    assert.match(st.message, /groups/);
    // Not even one denied group among allowed ones.
    assertStatus(await whoamiRaw(asJane({ 'Impersonate-User': 'alice', 'Impersonate-Group': ['team-a', 'system:masters'] })), 403, 'Forbidden');
  });

  it('RBAC impersonation - a service account, a uid or an extra jane holds no grant for is 403', async () => {
    const sa = assertStatus(await whoamiRaw(asJane({ 'Impersonate-User': 'system:serviceaccount:ns1:sa1' })), 403, 'Forbidden');
    assert.match(sa.message, /cannot impersonate resource "serviceaccounts"/);
    const uid = assertStatus(await whoamiRaw(asJane({ 'Impersonate-User': 'alice', 'Impersonate-Uid': 'alice-uid' })), 403, 'Forbidden');
    assert.match(uid.message, /cannot impersonate resource "uids"/);
    const extra = assertStatus(await whoamiRaw(asJane({ 'Impersonate-User': 'alice', 'Impersonate-Extra-Scopes': 'admin' })), 403, 'Forbidden');
    assert.match(extra.message, /cannot impersonate resource "userextras\/scopes"/);
  });

  it('RBAC impersonation - the request is then authorized as alice, not jane', async () => {
    const name = uniq('as-alice');
    const st = assertStatus(
      await c.request('POST', '/api/v1/namespaces', { ...asJane({ 'Impersonate-User': 'alice' }), body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }),
      403,
      'Forbidden',
    );
    assert.match(st.message, /User "alice" cannot create resource "namespaces"/);
  });

  it('RBAC impersonation - anonymous and bad-token callers cannot impersonate', async () => {
    const anon = assertStatus(await whoamiRaw({ headers: { 'Impersonate-User': 'alice' } }), 403, 'Forbidden');
    assert.match(anon.message, /User "system:anonymous" cannot impersonate/);
    assertStatus(await whoamiRaw({ token: 'not-a-valid-token', headers: { 'Impersonate-User': 'alice' } }), 401, 'Unauthorized');
  });

  it('RBAC client certificate - system:masters creates a namespace; a certificate user without bindings is 403', async () => {
    const admin = await issueClientCert(c.ca, { commonName: 'cert-admin', organizations: ['system:masters'] });
    const name = uniq('by-cert');
    assertOk(await c.request('POST', '/api/v1/namespaces', { token: null, cert: admin, body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201);
    const nobody = await issueClientCert(c.ca, { commonName: 'nobody', organizations: ['nothing'] });
    assert.equal((await whoami({ cert: nobody })).username, 'nobody');
    const st = assertStatus(
      await c.request('POST', '/api/v1/namespaces', { token: null, cert: nobody, body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: uniq('nope') } } }),
      403,
      'Forbidden',
    );
    assert.match(st.message, /User "nobody" cannot create resource "namespaces"/);
  });
});
