// End to end: a server-side apply that creates the object needs `create` as well as `patch`, as
// upstream's patch handler asks (createAuthorizerAttributes); without it the answer is upstream's
// 403 and nothing is stored, dry run or not, and impersonation is respected. An apply to an
// existing object still needs only `patch`.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type RequestOptions, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, createNamespace, eventually, uniq } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';
const RBAC_V1 = `/apis/${RBAC}/v1`;
const APPLY = 'application/apply-patch+yaml';

describe('authorization - an apply that creates needs create', () => {
  let c: TestCluster;
  let jane: string;
  /** jane may get and patch configmaps here, not create them. */
  const patchOnly = uniq('apply-patch-only');
  /** jane may get, patch and create configmaps here. */
  const withCreate = uniq('apply-with-create');

  const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
  const apply = (ns: string, name: string, opts: RequestOptions & { query?: string } = {}) =>
    c.request('PATCH', `${cmPath(ns, name)}?fieldManager=e2e${opts.query ?? ''}`, {
      token: jane,
      ...opts,
      headers: { 'content-type': APPLY, ...(opts.headers ?? {}) },
      rawBody: JSON.stringify(configMap(name, { k: 'v' })),
    });
  const grantJane = async (ns: string, verbs: string[]) => {
    const role = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'configmap-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }] };
    const binding = {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'configmap-writer' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'jane' }],
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'configmap-writer' },
    };
    assertOk(await c.request('POST', `${RBAC_V1}/namespaces/${ns}/roles`, { body: role }), 201);
    assertOk(await c.request('POST', `${RBAC_V1}/namespaces/${ns}/rolebindings`, { body: binding }), 201);
  };

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['RBAC'] });
    jane = c.userToken;
    await createNamespace(c, patchOnly);
    await createNamespace(c, withCreate);
    await grantJane(patchOnly, ['get', 'patch']);
    await grantJane(withCreate, ['get', 'patch', 'create']);
    // The authorizer reads RBAC objects from its watch: wait until the grants are in force.
    const seed = uniq('seed');
    assertOk(await c.request('POST', cmPath(patchOnly), { body: configMap(seed) }), 201);
    await eventually('jane may patch configmaps', async () => assertOk(await apply(patchOnly, seed)), { timeoutMs: 5_000, intervalMs: 100 });
  });

  after(async () => {
    await c?.stop();
  });

  it('apply - a user with get and patch only cannot create by applying, and nothing is stored', async () => {
    const name = uniq('new');
    const st = assertStatus(await apply(patchOnly, name), 403, 'Forbidden');
    assert.equal(st.message, `configmaps "${name}" is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "${patchOnly}"`);
    assert.deepEqual(st.details, { name, kind: 'configmaps' });
    assertStatus(await c.request('GET', cmPath(patchOnly, name)), 404, 'NotFound');
  });

  it('apply - a dry-run create is refused the same way', async () => {
    const name = uniq('dry');
    const st = assertStatus(await apply(patchOnly, name, { query: '&dryRun=All' }), 403, 'Forbidden');
    assert.match(st.message, /cannot create resource "configmaps"/);
    assertStatus(await c.request('GET', cmPath(patchOnly, name)), 404, 'NotFound');
  });

  it('apply - an impersonated user is checked, not the impersonator', async () => {
    const name = uniq('imp');
    const st = assertStatus(await apply(patchOnly, name, { token: c.adminToken, headers: { 'Impersonate-User': 'jane' } }), 403, 'Forbidden');
    assert.match(st.message, /User "jane" cannot create resource "configmaps"/);
    assertStatus(await c.request('GET', cmPath(patchOnly, name)), 404, 'NotFound');
  });

  it('apply - with create granted the apply creates the object (201)', async () => {
    const name = uniq('new');
    const created = assertOk(await apply(withCreate, name), 201);
    assert.deepEqual(created.data, { k: 'v' });
    assert.deepEqual(assertOk(await c.request('GET', cmPath(withCreate, name))).data, { k: 'v' });
  });

  it('apply - an existing object needs only patch (200)', async () => {
    const name = uniq('existing');
    assertOk(await c.request('POST', cmPath(patchOnly), { body: configMap(name, { other: 'x' }) }), 201);
    const applied = assertOk(await apply(patchOnly, name), 200);
    assert.deepEqual(applied.data, { other: 'x', k: 'v' });
  });

  it('apply - to the status of a missing object is still 404', async () => {
    const res = await c.request('PATCH', `/api/v1/namespaces/${patchOnly}/pods/${uniq('nopod')}/status?fieldManager=e2e`, {
      headers: { 'content-type': APPLY },
      rawBody: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', status: { phase: 'Running' } }),
    });
    assertStatus(res, 404, 'NotFound');
  });
});
