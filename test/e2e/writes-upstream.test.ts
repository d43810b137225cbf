// End to end: writes and request parsing as kube-apiserver 1.24 answers them. A PUT creates the
// objects of the types whose upstream strategy allows create on update (201, create admission, the
// create verb asked too) and is 404 for every other type; a dry run sees the conflicts storage
// would raise; a collection refuses PUT and PATCH with the router's 405, a PATCH in a media type
// that is no patch type is upstream's 415; query booleans and a negative limit read as upstream's
// parameter codec reads them.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { assertOk, assertStatus, configMap, createNamespace, eventually, openWatch, uniq } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';
const bin = findKubectl();

describe('writes as upstream answers them', () => {
  let c: TestCluster;
  const ns = uniq('writes');
  /** jane may get and update leases here, not create them. */
  const updateOnly = uniq('lease-update-only');
  /** jane may get, update and create leases here. */
  const withCreate = uniq('lease-with-create');
  const cm = (name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
  const leasePath = (namespace: string, name: string) => `/apis/coordination.platform.io/v1/namespaces/${namespace}/leases/${name}`;
  const lease = (name: string, holder = 'a') => ({ apiVersion: 'coordination.platform.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: holder } });

  const grantJane = async (namespace: string, verbs: string[]) => {
    const role = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'lease-writer' }, rules: [{ apiGroups: ['coordination.platform.io'], resources: ['leases'], verbs }] };
    const binding = {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'lease-writer' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'jane' }],
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'lease-writer' },
    };
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/namespaces/${namespace}/roles`, { body: role }), 201);
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/namespaces/${namespace}/rolebindings`, { body: binding }), 201);
  };

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['RBAC'] });
    for (const n of [ns, updateOnly, withCreate]) await createNamespace(c, n);
    await grantJane(updateOnly, ['get', 'update']);
    await grantJane(withCreate, ['get', 'update', 'create']);
    // The authorizer reads RBAC objects from its watch: wait until the grants are in force.
    await eventually('jane may get leases', async () => assertStatus(await c.request('GET', leasePath(withCreate, 'none'), { token: c.userToken }), 404, 'NotFound'), {
      timeoutMs: 5_000,
      intervalMs: 100,
    });
  });

  after(async () => {
    await c?.stop();
  });

  // ---- 1. PUT creates -----------------------------------------------------------------------------

  const putCreatable: Array<{ what: string; path: (name: string) => string; body: (name: string) => Record<string, unknown> }> = [
    { what: 'leases', path: (n) => leasePath(ns, n), body: (n) => lease(n) },
    { what: 'endpoints', path: (n) => `/api/v1/namespaces/${ns}/endpoints/${n}`, body: (n) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: n } }) },
    {
      what: 'limitranges',
      path: (n) => `/api/v1/namespaces/${ns}/limitranges/${n}`,
      body: (n) => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: n }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }),
    },
    {
      what: 'events (core)',
      path: (n) => `/api/v1/namespaces/${ns}/events/${n}`,
      body: (n) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: n }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Test', message: 'put' }),
    },
    {
      what: 'events (events group)',
      path: (n) => `/apis/events.platform.io/v1/namespaces/${ns}/events/${n}`,
      body: (n) => ({
        apiVersion: 'events.platform.io/v1',
        kind: 'Event',
        metadata: { name: n },
        eventTime: '2024-01-01T00:00:00.000000Z',
        reportingController: 'example.com/e2e',
        reportingInstance: 'e2e-1',
        action: 'Test',
        reason: 'Test',
        type: 'Normal',
        regarding: { kind: 'Pod', name: 'p', namespace: ns },
      }),
    },
    { what: 'roles', path: (n) => `/apis/${RBAC}/v1/namespaces/${ns}/roles/${n}`, body: (n) => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: n }, rules: [] }) },
    {
      what: 'rolebindings',
      path: (n) => `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings/${n}`,
      body: (n) => ({
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: n },
        roleRef: { apiGroup: RBAC, kind: 'Role', name: 'any' },
        subjects: [{ kind: 'User', apiGroup: RBAC, name: 'nobody' }],
      }),
    },
    { what: 'clusterroles', path: (n) => `/apis/${RBAC}/v1/clusterroles/${n}`, body: (n) => ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: n }, rules: [] }) },
    {
      what: 'clusterrolebindings',
      path: (n) => `/apis/${RBAC}/v1/clusterrolebindings/${n}`,
      body: (n) => ({
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: n },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'any' },
        subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'nobody' }],
      }),
    },
    {
      what: 'poddisruptionbudgets',
      path: (n) => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${n}`,
      body: (n) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: n }, spec: { minAvailable: 1, selector: { matchLabels: { app: n } } } }),
    },
    {
      what: 'runtimeclasses',
      path: (n) => `/apis/node.platform.io/v1/runtimeclasses/${n}`,
      body: (n) => ({ apiVersion: 'node.platform.io/v1', kind: 'RuntimeClass', metadata: { name: n }, handler: 'runc' }),
    },
  ];

  for (const k of putCreatable) {
    it(`put - a PUT of a missing ${k.what} creates it with 201, a second PUT updates it with 200`, async () => {
      const name = uniq('put');
      const created = assertOk(await c.request('PUT', k.path(name), { body: k.body(name) }), 201);
      assert.equal(created.metadata.name, name);
      assert.match(created.metadata.uid, /^[0-9a-f-]{36}$/);
      const got = assertOk(await c.request('GET', k.path(name)));
      assert.equal(got.metadata.uid, created.metadata.uid);
      const again = assertOk(await c.request('PUT', k.path(name), { body: { ...created, metadata: { ...created.metadata, labels: { again: 'yes' } } } }), 200);
      assert.equal(again.metadata.uid, created.metadata.uid);
      assert.equal(again.metadata.labels.again, 'yes');
    });
  }

  it('put - every other type stays 404 NotFound on a PUT of a missing object', async () => {
    const name = uniq('missing');
    const st = assertStatus(await c.request('PUT', cm(name), { body: configMap(name) }), 404, 'NotFound');
    assert.equal(st.message, `configmaps "${name}" not found`);
    assertStatus(await c.request('PUT', `/api/v1/namespaces/${ns}/secrets/${name}`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name } } }), 404, 'NotFound');
    assertStatus(await c.request('GET', cm(name)), 404, 'NotFound');
  });

  it('put - a dry-run PUT of a missing lease answers 201 and stores nothing; a resourceVersion in the body does not stop the create', async () => {
    const name = uniq('dry');
    const dry = assertOk(await c.request('PUT', `${leasePath(ns, name)}?dryRun=All`, { body: lease(name) }), 201);
    assert.equal(dry.spec.holderIdentity, 'a');
    assertStatus(await c.request('GET', leasePath(ns, name)), 404, 'NotFound');
    const withRv = assertOk(await c.request('PUT', leasePath(ns, name), { body: { ...lease(name), metadata: { name, resourceVersion: '12345' } } }), 201);
    assert.notEqual(withRv.metadata.resourceVersion, '12345');
  });

  it('put - a PUT that creates needs create as well as update: 403 with update only, 201 with both', async () => {
    const name = uniq('jane');
    const st = assertStatus(await c.request('PUT', leasePath(updateOnly, name), { token: c.userToken, body: lease(name) }), 403, 'Forbidden');
    assert.equal(
      st.message,
      `leases.coordination.platform.io "${name}" is forbidden: User "jane" cannot create resource "leases" in API group "coordination.platform.io" in the namespace "${updateOnly}"`,
    );
    assertStatus(await c.request('GET', leasePath(updateOnly, name)), 404, 'NotFound');
    assertOk(await c.request('PUT', leasePath(withCreate, name), { token: c.userToken, body: lease(name) }), 201);
    // Updating an existing lease needs update only.
    assertOk(await c.request('PUT', leasePath(updateOnly, 'held'), { body: lease('held') }), 201);
    assertOk(await c.request('PUT', leasePath(updateOnly, 'held'), { token: c.userToken, body: lease('held', 'jane') }), 200);
  });

  it('put - a PUT that creates goes through create admission: a terminating namespace refuses it, as it does a POST', async () => {
    const dying = uniq('dying');
    await createNamespace(c, dying);
    assertOk(await c.request('PUT', leasePath(dying, 'kept'), { body: lease('kept') }), 201);
    // No namespace controller runs here: the namespace stays Terminating.
    assertOk(await c.request('DELETE', `/api/v1/namespaces/${dying}`));
    const st = assertStatus(await c.request('PUT', leasePath(dying, 'new'), { body: lease('new') }), 403, 'Forbidden');
    assert.match(st.message, /because it is being terminated/);
    // An update of what is there is no create, and NamespaceLifecycle lets it through.
    assertOk(await c.request('PUT', leasePath(dying, 'kept'), { body: lease('kept', 'b') }), 200);
  });

  // ---- 2. Dry run sees conflicts --------------------------------------------------------------------

  it('dry run - creating a name in use is 409 AlreadyExists, as the real create would be', async () => {
    const name = uniq('taken');
    assertOk(await c.request('POST', cm(), { body: configMap(name, { v: '1' }) }), 201);
    const st = assertStatus(await c.request('POST', `${cm()}?dryRun=All`, { body: configMap(name, { v: '2' }) }), 409, 'AlreadyExists');
    assert.equal(st.message, `configmaps "${name}" already exists`);
    assert.deepEqual(assertOk(await c.request('GET', cm(name))).data, { v: '1' });
    // A free name still dry-runs to 201 and is not stored.
    const free = uniq('free');
    assertOk(await c.request('POST', `${cm()}?dryRun=All`, { body: configMap(free) }), 201);
    assertStatus(await c.request('GET', cm(free)), 404, 'NotFound');
  });

  it('dry run - kubectl create --dry-run=server of an existing object fails as AlreadyExists', { skip: bin ? false : 'kubectl not on PATH' }, async () => {
    const k = new Kubectl(bin!, c.kubeconfigPath);
    const name = uniq('kc');
    assertOk(await c.request('POST', cm(), { body: configMap(name) }), 201);
    const r = await k.run(['create', 'configmap', name, '-n', ns, '--dry-run=server']);
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, new RegExp(`configmaps "${name}" already exists`));
  });

  it('dry run - an update with a stale resourceVersion is 409 Conflict and changes nothing, right after the write that made it stale', async () => {
    const name = uniq('stale');
    let obj = assertOk(await c.request('POST', cm(), { body: configMap(name, { n: '0' }) }), 201);
    for (let i = 1; i <= 5; i++) {
      const stale = obj.metadata.resourceVersion;
      obj = assertOk(await c.request('PUT', cm(name), { body: { ...obj, data: { n: String(i) } } }));
      const st = assertStatus(await c.request('PUT', `${cm(name)}?dryRun=All`, { body: { ...obj, metadata: { ...obj.metadata, resourceVersion: stale }, data: { n: 'dry' } } }), 409, 'Conflict');
      assert.match(st.message, /the object has been modified/);
      const patch = { metadata: { resourceVersion: stale }, data: { n: 'dry' } };
      assertStatus(await c.request('PATCH', `${cm(name)}?dryRun=All`, { body: patch, headers: { 'content-type': 'application/merge-patch+json' } }), 409, 'Conflict');
    }
    assert.deepEqual(assertOk(await c.request('GET', cm(name))).data, { n: '5' });
  });

  // ---- 5. Collections refuse PUT and PATCH; a PATCH must be a patch type ---------------------------

  it('collections - PUT and PATCH of a collection are the router 405 MethodNotAllowed', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const r = await c.request(method, cm(), { body: { data: { a: '1' } }, headers: { 'content-type': 'application/merge-patch+json' } });
      assertStatus(r, 405, 'MethodNotAllowed');
      assert.deepEqual(r.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server does not allow this method on the requested resource',
        reason: 'MethodNotAllowed',
        details: {},
        code: 405,
      });
    }
    assertStatus(await c.request('PUT', `/apis/${RBAC}/v1/clusterroles`, { body: { rules: [] } }), 405, 'MethodNotAllowed');
  });

  it('patch - a PATCH sent as application/json is 415 naming the patch media types, as upstream words it', async () => {
    const name = uniq('p');
    assertOk(await c.request('POST', cm(), { body: configMap(name) }), 201);
    const r = await c.request('PATCH', cm(name), { body: { data: { a: '1' } }, headers: { 'content-type': 'application/json' } });
    const st = assertStatus(r, 415, 'UnsupportedMediaType');
    assert.equal(
      st.message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });

  // ---- 6. Query parsing ------------------------------------------------------------------------------

  it('query - watch=yes is a watch, as upstream reads any value but 0 and false as true', async () => {
    const name = uniq('w');
    assertOk(await c.request('POST', cm(), { body: configMap(name) }), 201);
    for (const spelling of ['yes', 'on', 'TRUE']) {
      const w = await openWatch(c, `${cm()}?watch=${spelling}&timeoutSeconds=5`);
      try {
        assert.equal(w.status, 200);
        const ev = await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === name, 5_000, `the ADDED event of ${name}`);
        assert.equal(ev.object.kind, 'ConfigMap');
      } finally {
        w.close();
      }
    }
    // watch=false and watch=0 are lists.
    for (const spelling of ['false', 'FALSE', '0']) assert.equal(assertOk(await c.request('GET', `${cm()}?watch=${spelling}`)).kind, 'ConfigMapList');
  });

  it('query - limit=-1 is no limit: the whole list with no continue', async () => {
    const names = [uniq('l'), uniq('l')];
    for (const n of names) assertOk(await c.request('POST', cm(), { body: configMap(n, {}, { batch: 'limit' }) }), 201);
    const list = assertOk(await c.request('GET', `${cm()}?labelSelector=batch%3Dlimit&limit=-1`));
    assert.deepEqual(list.items.map((o: { metadata: { name: string } }) => o.metadata.name).sort(), [...names].sort());
    assert.equal(list.metadata.continue, undefined);
  });
});
