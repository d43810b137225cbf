// End to end: a namespace grant never reaches other namespaces through a namespace URL.
// `/api/v1/namespaces/<ns>/namespaces[/<name>]` names nothing (namespaces are cluster-scoped), so
// it is 404 for every verb, whatever roles the caller holds in <ns>: before this was fixed, `view`
// in team-a listed every namespace and a RoleBinding to cluster-admin in team-a created, labelled
// and deleted other namespaces. The namespace object's own URL (`/api/v1/namespaces/team-a`) is
// unaffected.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { issueClientCert, type PemPair } from '../../shared/local/pki.js';
import { assertOk, assertStatus, createNamespace, eventually, openWatch, uniq } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';
const TEAM_A = 'team-a';
const NS_V1 = '/api/v1/namespaces';
/** The attack path: namespaces addressed as if they lived inside team-a. */
const inTeamA = (name?: string, sub?: string) => `${NS_V1}/${TEAM_A}/namespaces${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;

const bindInTeamA = (name: string, clusterRole: string, subject: { kind: string; name: string }) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'RoleBinding',
  metadata: { name },
  subjects: [{ ...subject, apiGroup: RBAC }],
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: clusterRole },
});

describe('namespaces under a namespace URL', () => {
  let c: TestCluster;
  /** jane: `view` through a RoleBinding in team-a. */
  let jane: string;
  /** mallory: `cluster-admin` through a RoleBinding in team-a only. */
  let mallory: PemPair;
  let other: string;
  let victim: string;

  const asMallory = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    c.request(method, path, { token: null, cert: mallory, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const notFound = (res: Awaited<ReturnType<TestCluster['request']>>, what: string) => {
    const s = assertStatus(res, 404, 'NotFound');
    assert.equal(s.message, 'the server could not find the requested resource', what);
  };

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    jane = c.userToken;
    mallory = await issueClientCert(c.ca, { commonName: 'mallory', organizations: ['team-a-admins'] });
    other = uniq('other');
    victim = uniq('victim');
    for (const ns of [TEAM_A, other, victim]) await createNamespace(c, ns);
    const bindings = `/apis/${RBAC}/v1/namespaces/${TEAM_A}/rolebindings`;
    assertOk(await c.request('POST', bindings, { body: bindInTeamA('jane-view', 'view', { kind: 'User', name: 'jane' }) }), 201);
    assertOk(await c.request('POST', bindings, { body: bindInTeamA('mallory-admin', 'cluster-admin', { kind: 'User', name: 'mallory' }) }), 201);
    // The grants are in force (the bootstrap ClusterRoles may still be being written).
    await eventually(
      'jane can read team-a and mallory can write there',
      async () => {
        assertOk(await c.request('GET', `${NS_V1}/${TEAM_A}/configmaps`, { token: jane }));
        assertOk(await asMallory('POST', `${NS_V1}/${TEAM_A}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniq('probe') } }), 201);
      },
      { timeoutMs: 10_000 },
    );
  });

  after(async () => {
    await c?.stop();
  });

  it('namespace scope - the grants work where they apply and the direct cluster URLs stay 403', async () => {
    assert.equal(assertOk(await c.request('GET', `${NS_V1}/${TEAM_A}`, { token: jane })).metadata.name, TEAM_A);
    assertStatus(await c.request('GET', NS_V1, { token: jane }), 403, 'Forbidden');
    assertStatus(await c.request('GET', `${NS_V1}/${other}`, { token: jane }), 403, 'Forbidden');
    assertStatus(await asMallory('DELETE', `${NS_V1}/${other}`), 403, 'Forbidden');
    assertStatus(await asMallory('POST', NS_V1, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: uniq('direct') } }), 403, 'Forbidden');
  });

  it('namespace scope - view in team-a cannot list, get or watch namespaces through team-a', async () => {
    notFound(await c.request('GET', inTeamA(), { token: jane }), 'list');
    notFound(await c.request('GET', inTeamA(other), { token: jane }), 'get other');
    notFound(await c.request('GET', inTeamA(TEAM_A), { token: jane }), 'get team-a itself');
    notFound(await c.request('GET', `${inTeamA()}?fieldSelector=metadata.name%3D${other}`, { token: jane }), 'list pinned to other');
    for (const path of [`${inTeamA()}?watch=true`, `/api/v1/watch/namespaces/${TEAM_A}/namespaces`, `/api/v1/watch/namespaces/${TEAM_A}/namespaces/${other}`]) {
      const w = await openWatch(c, path, { token: jane });
      try {
        assert.equal(w.status, 404, `${path}: a watch stream was opened`);
        await w.ended;
        assert.equal(w.events[0]?.object?.reason, 'NotFound', path);
      } finally {
        w.close();
      }
    }
  });

  it('namespace scope - cluster-admin bound in team-a cannot create, change or delete namespaces through team-a', async () => {
    const before = assertOk(await c.request('GET', `${NS_V1}/${other}`));
    const created = uniq('smuggled');

    notFound(await asMallory('GET', inTeamA()), 'list');
    notFound(await asMallory('GET', `${inTeamA()}?watch=true&timeoutSeconds=1`), 'watch');
    notFound(await asMallory('GET', inTeamA(other)), 'get');
    notFound(await asMallory('POST', inTeamA(), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: created } }), 'create');
    notFound(await asMallory('PATCH', inTeamA(other), { metadata: { labels: { pwned: 'true' } } }, { 'content-type': 'application/merge-patch+json' }), 'merge patch');
    notFound(
      await asMallory(
        'PATCH',
        `${inTeamA(other)}?fieldManager=mallory&force=true`,
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: other, labels: { pwned: 'apply' } } },
        { 'content-type': 'application/apply-patch+yaml' },
      ),
      'apply',
    );
    notFound(await asMallory('PUT', inTeamA(other), { ...before, metadata: { ...before.metadata, labels: { ...before.metadata.labels, pwned: 'put' } } }), 'update');
    notFound(await asMallory('PUT', inTeamA(other, 'status'), { ...before, status: { phase: 'Terminating' } }), 'update status');
    notFound(await asMallory('PUT', inTeamA(other, 'finalize'), { ...before, spec: { finalizers: [] } }), 'finalize');
    notFound(await asMallory('DELETE', inTeamA(victim)), 'delete');
    notFound(await asMallory('DELETE', inTeamA()), 'deletecollection');

    // Nothing happened to any namespace.
    assertStatus(await c.request('GET', `${NS_V1}/${created}`), 404, 'NotFound');
    const after = assertOk(await c.request('GET', `${NS_V1}/${other}`));
    assert.deepEqual(after.metadata.labels, before.metadata.labels);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.deepEqual(after.spec, before.spec);
    for (const ns of [victim, TEAM_A, other]) {
      const live = assertOk(await c.request('GET', `${NS_V1}/${ns}`));
      assert.equal(live.status.phase, 'Active', ns);
      assert.equal(live.metadata.deletionTimestamp, undefined, ns);
    }
  });

  it('namespace scope - other cluster-scoped types under team-a are 404 for cluster-admin bound there', async () => {
    const paths = [
      `/api/v1/namespaces/${TEAM_A}/nodes`,
      `/api/v1/namespaces/${TEAM_A}/persistentvolumes`,
      `/apis/${RBAC}/v1/namespaces/${TEAM_A}/clusterroles`,
      `/apis/${RBAC}/v1/namespaces/${TEAM_A}/clusterrolebindings/cluster-admin`,
      `/apis/storage.platform.io/v1/namespaces/${TEAM_A}/storageclasses`,
      `/apis/certificates.platform.io/v1/namespaces/${TEAM_A}/certificatesigningrequests`,
    ];
    for (const p of paths) notFound(await asMallory('GET', p), p);
    notFound(
      await asMallory('POST', `/apis/${RBAC}/v1/namespaces/${TEAM_A}/clusterrolebindings`, {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: uniq('smuggled') },
        subjects: [{ kind: 'User', apiGroup: RBAC, name: 'mallory' }],
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' },
      }),
      'create clusterrolebinding',
    );
  });
});
