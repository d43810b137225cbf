// End to end: create/read/update/delete through the gateway for namespaced, cluster-scoped and
// grouped types, subresources, finalizers, dry run, field validation, media types, namespace
// lifecycle and validation errors, as a user of kube-apiserver would expect them.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, createNamespace, deployment, names, openWatch, uniq } from './helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const SECRETS = '/api/v1/namespaces/default/secrets';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const CLUSTERROLES = '/apis/rbac.authorization.platform.io/v1/clusterroles';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let c: TestCluster;

before(async () => {
  c = await startTestCluster();
});

after(async () => {
  await c?.stop();
});

describe('configmaps', () => {
  it('configmaps - create answers 201 with server-set metadata', async () => {
    const name = uniq('cm');
    const body = assertOk(await c.request('POST', CM, { body: configMap(name, { a: '1' }) }), 201);
    assert.equal(body.kind, 'ConfigMap');
    assert.equal(body.apiVersion, 'v1');
    assert.equal(body.metadata.name, name);
    assert.equal(body.metadata.namespace, 'default');
    assert.match(body.metadata.uid, UUID);
    assert.match(body.metadata.creationTimestamp, RFC3339);
    assert.match(body.metadata.resourceVersion, /^[1-9]\d*$/);
    assert.deepEqual(body.data, { a: '1' });
    assert.equal(body.metadata.generation, undefined, 'configmaps have no spec, so no generation (as upstream)');
  });

  it('configmaps - generateName gives distinct names with the prefix', async () => {
    const a = assertOk(await c.request('POST', CM, { body: { metadata: { generateName: 'gen-' }, data: {} } }), 201);
    const b = assertOk(await c.request('POST', CM, { body: { metadata: { generateName: 'gen-' }, data: {} } }), 201);
    assert.match(a.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.match(b.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.notEqual(a.metadata.name, b.metadata.name);
    assert.equal(a.metadata.generateName, 'gen-');
    assertOk(await c.request('GET', `${CM}/${a.metadata.name}`));
  });

  it('configmaps - get and list return the stored object', async () => {
    const name = uniq('cm');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { k: 'v' }) }), 201);
    const got = assertOk(await c.request('GET', `${CM}/${name}`));
    assert.equal(got.metadata.uid, created.metadata.uid);
    assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(got.data, { k: 'v' });
    const list = assertOk(await c.request('GET', CM));
    assert.equal(list.kind, 'ConfigMapList');
    assert.equal(list.apiVersion, 'v1');
    assert.match(list.metadata.resourceVersion, /^\d+$/);
    assert.ok(Number(list.metadata.resourceVersion) >= Number(created.metadata.resourceVersion));
    const item = list.items.find((i: any) => i.metadata.name === name);
    assert.ok(item, 'created configmap is listed');
    assert.equal(item.metadata.uid, created.metadata.uid);
  });

  it('configmaps - update with the current resourceVersion succeeds and a stale one is a 409 Conflict', async () => {
    const name = uniq('cm');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { v: '1' }) }), 201);
    const updated = assertOk(await c.request('PUT', `${CM}/${name}`, { body: { ...created, data: { v: '2' } } }));
    assert.deepEqual(updated.data, { v: '2' });
    assert.equal(updated.metadata.uid, created.metadata.uid);
    assert.equal(updated.metadata.creationTimestamp, created.metadata.creationTimestamp);
    assert.ok(Number(updated.metadata.resourceVersion) > Number(created.metadata.resourceVersion));

    const stale = await c.request('PUT', `${CM}/${name}`, { body: { ...created, data: { v: 'stale' } } });
    const st = assertStatus(stale, 409, 'Conflict');
    assert.match(st.message, /the object has been modified; please apply your changes to the latest version and try again/);
    assert.equal(st.details.name, name);
    assert.deepEqual(assertOk(await c.request('GET', `${CM}/${name}`)).data, { v: '2' });
  });

  it('configmaps - server-owned metadata in a request is replaced; a different uid on update is 409', async () => {
    const name = uniq('owned');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, {}, undefined, { uid: 'client-chosen', creationTimestamp: '2001-01-01T00:00:00Z', resourceVersion: '' }) }), 201);
    assert.notEqual(created.metadata.uid, 'client-chosen');
    assert.match(created.metadata.uid, UUID);
    assert.notEqual(created.metadata.creationTimestamp, '2001-01-01T00:00:00Z');
    const kept = assertOk(await c.request('PUT', `${CM}/${name}`, { body: { ...created, metadata: { ...created.metadata, creationTimestamp: '2001-01-01T00:00:00Z' }, data: { a: '1' } } }));
    assert.equal(kept.metadata.creationTimestamp, created.metadata.creationTimestamp, 'creationTimestamp cannot be changed');
    const r = assertStatus(await c.request('PUT', `${CM}/${name}`, { body: { ...kept, metadata: { ...kept.metadata, uid: '00000000-0000-0000-0000-000000000000' } } }), 409, 'Conflict');
    assert.match(r.message, /Precondition failed: UID in precondition/);
  });

  it('configmaps - immutable data cannot change and the flag cannot be cleared', async () => {
    const name = uniq('frozen');
    const created = assertOk(await c.request('POST', CM, { body: { ...configMap(name, { a: '1' }), immutable: true } }), 201);
    const change = assertStatus(await c.request('PUT', `${CM}/${name}`, { body: { ...created, data: { a: '2' } } }), 422, 'Invalid');
    assert.ok(
      change.details.causes.some((x: any) => x.field === 'data'),
      JSON.stringify(change.details.causes),
    );
    assertStatus(await c.request('PUT', `${CM}/${name}`, { body: { ...created, immutable: false } }), 422, 'Invalid');
    // Metadata stays mutable, and the object can be deleted.
    assertOk(await c.request('PATCH', `${CM}/${name}`, { body: { metadata: { labels: { still: 'mutable' } } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    assert.equal((await c.request('DELETE', `${CM}/${name}`)).status, 200);
  });

  it('configmaps - an update that changes nothing keeps the resourceVersion', async () => {
    const name = uniq('noop');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { v: '1' }) }), 201);
    const same = assertOk(await c.request('PUT', `${CM}/${name}`, { body: created }));
    assert.equal(same.metadata.resourceVersion, created.metadata.resourceVersion);
    const patched = assertOk(await c.request('PATCH', `${CM}/${name}`, { body: { data: { v: '1' } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    assert.equal(patched.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  it('configmaps - PUT without resourceVersion is an unconditional update', async () => {
    const name = uniq('cm');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { v: '1' }) }), 201);
    const updated = assertOk(await c.request('PUT', `${CM}/${name}`, { body: configMap(name, { v: 'unconditional' }) }));
    assert.deepEqual(updated.data, { v: 'unconditional' });
    assert.equal(updated.metadata.uid, created.metadata.uid);
    assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  it('configmaps - delete answers 200 and the object is gone', async () => {
    const name = uniq('cm');
    assertOk(await c.request('POST', CM, { body: configMap(name) }), 201);
    const del = await c.request('DELETE', `${CM}/${name}`);
    assert.equal(del.status, 200, del.text);
    const gone = assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
    assert.equal(gone.message, `configmaps "${name}" not found`);
    assert.equal(gone.details.name, name);
    assert.equal(gone.details.kind, 'configmaps');
    assertStatus(await c.request('DELETE', `${CM}/${name}`), 404, 'NotFound');
    // The name can be reused after deletion.
    assertOk(await c.request('POST', CM, { body: configMap(name) }), 201);
  });

  it('configmaps - a PUT with the resourceVersion of the DELETED event does not bring the object back', async () => {
    const name = uniq('gone');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { v: '1' }) }), 201);
    const watch = await openWatch(c, `${CM}?watch=true&fieldSelector=metadata.name%3D${name}&resourceVersion=${created.metadata.resourceVersion}`);
    try {
      assert.equal((await c.request('DELETE', `${CM}/${name}`)).status, 200);
      const deleted = await watch.waitFor((e) => e.type === 'DELETED');
      const markerRv = deleted.object.metadata.resourceVersion;
      assert.notEqual(markerRv, created.metadata.resourceVersion);
      const body = { ...configMap(name, { v: 'back' }), metadata: { name, resourceVersion: markerRv } };
      assertStatus(await c.request('PUT', `${CM}/${name}`, { body }), 404, 'NotFound');
      assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
    } finally {
      watch.close();
    }
  });

  it('configmaps - update, patch and get of a missing object are 404', async () => {
    const name = uniq('missing');
    assertStatus(await c.request('PUT', `${CM}/${name}`, { body: configMap(name) }), 404, 'NotFound');
    assertStatus(await c.request('PATCH', `${CM}/${name}`, { body: { data: { a: '1' } }, headers: { 'content-type': 'application/merge-patch+json' } }), 404, 'NotFound');
    assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
  });

  it('configmaps - a body whose name or namespace disagrees with the URL is 400', async () => {
    const name = uniq('cm');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name) }), 201);
    assertStatus(await c.request('PUT', `${CM}/${name}`, { body: { ...created, metadata: { ...created.metadata, name: `${name}-other` } } }), 400, 'BadRequest');
    assertStatus(await c.request('POST', CM, { body: { ...configMap(uniq('cm')), metadata: { name: uniq('cm'), namespace: 'platform-system' } } }), 400, 'BadRequest');
    assertStatus(await c.request('POST', CM, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: uniq('cm') } } }), 400, 'BadRequest');
  });

  it('configmaps - creating a duplicate is 409 AlreadyExists', async () => {
    const name = uniq('cm');
    assertOk(await c.request('POST', CM, { body: configMap(name) }), 201);
    const dup = assertStatus(await c.request('POST', CM, { body: configMap(name) }), 409, 'AlreadyExists');
    assert.equal(dup.message, `configmaps "${name}" already exists`);
  });

  it("configmaps - a duplicate create's 409 body is kube-apiserver's, byte for byte", async () => {
    const name = uniq('cm');
    assertOk(await c.request('POST', CM, { body: configMap(name) }), 201);
    const r = await c.request('POST', CM, { body: configMap(name) });
    assert.equal(r.status, 409);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json\b/);
    assert.equal(
      r.text,
      `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"${name}\\" already exists","reason":"AlreadyExists","details":{"name":"${name}","kind":"configmaps"},"code":409}\n`,
    );
    // Objects and lists end with the same newline; the object is the one stored.
    const got = await c.request('GET', `${CM}/${name}`);
    assert.ok(got.text.endsWith('}\n') && !got.text.slice(0, -1).includes('\n'), JSON.stringify(got.text.slice(-20)));
    assert.equal(got.json.metadata.name, name);
    assert.ok((await c.request('GET', CM)).text.endsWith(']}\n'));
  });

  it('configmaps - deletecollection removes only objects matching the labelSelector', async () => {
    const set = uniq('set');
    for (const n of ['a', 'b', 'c']) assertOk(await c.request('POST', CM, { body: configMap(`${set}-${n}`, {}, { set, pick: 'yes' }) }), 201);
    assertOk(await c.request('POST', CM, { body: configMap(`${set}-keep`, {}, { set, pick: 'no' }) }), 201);
    const del = await c.request('DELETE', `${CM}?labelSelector=${encodeURIComponent(`set=${set},pick=yes`)}`);
    assert.equal(del.status, 200, del.text);
    const left = assertOk(await c.request('GET', `${CM}?labelSelector=${encodeURIComponent(`set=${set}`)}`));
    assert.deepEqual(names(left), [`${set}-keep`]);
  });
});

describe('secrets', () => {
  it('secrets - create, read, update and delete with stringData merged into data', async () => {
    const name = uniq('secret');
    const created = assertOk(
      await c.request('POST', SECRETS, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { a: Buffer.from('alpha').toString('base64') }, stringData: { b: 'beta' } } }),
      201,
    );
    assert.equal(created.type, 'Opaque');
    assert.deepEqual(created.data, { a: Buffer.from('alpha').toString('base64'), b: Buffer.from('beta').toString('base64') });
    assert.equal(created.stringData, undefined, 'stringData is write-only');
    const got = assertOk(await c.request('GET', `${SECRETS}/${name}`));
    assert.deepEqual(got.data, created.data);
    const updated = assertOk(await c.request('PUT', `${SECRETS}/${name}`, { body: { ...got, data: { a: Buffer.from('changed').toString('base64') } } }));
    assert.deepEqual(updated.data, { a: Buffer.from('changed').toString('base64') });
    assertStatus(await c.request('PUT', `${SECRETS}/${name}`, { body: { ...got, data: {} } }), 409, 'Conflict');
    assert.equal((await c.request('DELETE', `${SECRETS}/${name}`)).status, 200);
    assertStatus(await c.request('GET', `${SECRETS}/${name}`), 404, 'NotFound');
  });
});

describe('namespaces', () => {
  it('namespaces - the system namespaces exist and are Active', async () => {
    for (const ns of ['default', 'platform-system', 'platform-public']) {
      const body = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`));
      assert.equal(body.kind, 'Namespace');
      assert.equal(body.status?.phase, 'Active', `${ns} phase`);
    }
    const list = assertOk(await c.request('GET', '/api/v1/namespaces'));
    assert.equal(list.kind, 'NamespaceList');
    for (const ns of ['default', 'platform-system', 'platform-public']) assert.ok(names(list).includes(ns), `${ns} listed`);
  });

  it('namespaces - create, get, list, update and delete a namespace', async () => {
    const name = uniq('ns');
    const created = assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201);
    assert.equal(created.metadata.namespace, undefined, 'a namespace is cluster-scoped');
    assert.equal(created.status?.phase, 'Active');
    const got = assertOk(await c.request('GET', `/api/v1/namespaces/${name}`));
    assert.equal(got.metadata.uid, created.metadata.uid);
    assert.ok(names(assertOk(await c.request('GET', '/api/v1/namespaces'))).includes(name));
    const updated = assertOk(await c.request('PUT', `/api/v1/namespaces/${name}`, { body: { ...got, metadata: { ...got.metadata, labels: { ...got.metadata.labels, team: 'a' } } } }));
    assert.equal(updated.metadata.labels.team, 'a');
    const del = await c.request('DELETE', `/api/v1/namespaces/${name}`);
    assert.equal(del.status, 200, del.text);
    // Without a namespace controller the namespace stays, terminating; or it is gone. Either way it is not Active.
    const afterDel = await c.request('GET', `/api/v1/namespaces/${name}`);
    if (afterDel.status === 200) {
      assert.equal(afterDel.json.status.phase, 'Terminating');
      assert.match(afterDel.json.metadata.deletionTimestamp, RFC3339);
    } else {
      assertStatus(afterDel, 404, 'NotFound');
    }
  });

  it('namespace lifecycle - creating in a missing namespace is 404 NotFound', async () => {
    const ns = uniq('missing');
    const r = assertStatus(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('x') }), 404, 'NotFound');
    assert.match(r.message, new RegExp(`namespaces "${ns}" not found`));
  });

  it('namespace lifecycle - deleting default is 403 Forbidden', async () => {
    const r = assertStatus(await c.request('DELETE', '/api/v1/namespaces/default'), 403, 'Forbidden');
    assert.match(r.message, /this namespace may not be deleted/);
    const ns = assertOk(await c.request('GET', '/api/v1/namespaces/default'));
    assert.equal(ns.status.phase, 'Active');
    assert.equal(ns.metadata.deletionTimestamp, undefined);
  });

  it('namespace lifecycle - a terminating namespace refuses new objects with 403', async () => {
    const ns = uniq('term');
    await createNamespace(c, ns);
    assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('before', {}, {}, { finalizers: ['example.com/hold'] }) }), 201);
    assert.equal((await c.request('DELETE', `/api/v1/namespaces/${ns}`)).status, 200);
    const got = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`));
    assert.equal(got.status.phase, 'Terminating');
    const r = assertStatus(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('after') }), 403, 'Forbidden');
    assert.match(r.message, new RegExp(`unable to create new content in namespace ${ns} because it is being terminated`));
    assert.ok(
      r.details?.causes?.some((cause: any) => cause.reason === 'NamespaceTerminating'),
      `NamespaceTerminating cause in ${JSON.stringify(r.details)}`,
    );
  });
});

describe('deployments and the status subresource', () => {
  it('deployments - create sets generation 1 and defaults; get, list, delete work', async () => {
    const name = uniq('web');
    const created = assertOk(await c.request('POST', DEPLOY, { body: deployment(name, 2) }), 201);
    assert.equal(created.kind, 'Deployment');
    assert.equal(created.apiVersion, 'apps/v1');
    assert.equal(created.metadata.generation, 1);
    assert.match(created.metadata.uid, UUID);
    assert.equal(created.spec.replicas, 2);
    assert.equal(created.spec.strategy?.type, 'RollingUpdate', 'default strategy');
    assert.equal(created.spec.revisionHistoryLimit, 10);
    assert.equal(created.spec.progressDeadlineSeconds, 600);
    const list = assertOk(await c.request('GET', DEPLOY));
    assert.equal(list.kind, 'DeploymentList');
    assert.ok(names(list).includes(name));
    assert.equal((await c.request('DELETE', `${DEPLOY}/${name}`)).status, 200);
    assertStatus(await c.request('GET', `${DEPLOY}/${name}`), 404, 'NotFound');
  });

  it('deployments - status set on create is dropped', async () => {
    const name = uniq('web');
    const created = assertOk(await c.request('POST', DEPLOY, { body: { ...deployment(name), status: { replicas: 42 } } }), 201);
    assert.notEqual(created.status?.replicas, 42);
  });

  it('deployments/status - changes only status; the main resource ignores status', async () => {
    const name = uniq('web');
    const created = assertOk(await c.request('POST', DEPLOY, { body: deployment(name, 1) }), 201);
    const viaStatus = assertOk(
      await c.request('PUT', `${DEPLOY}/${name}/status`, {
        body: { ...created, spec: { ...created.spec, replicas: 9 }, metadata: { ...created.metadata, labels: { sneaky: 'yes' } }, status: { replicas: 3, observedGeneration: 1 } },
      }),
    );
    assert.equal(viaStatus.status.replicas, 3);
    assert.equal(viaStatus.spec.replicas, 1, 'spec is not changed through /status');
    assert.equal(viaStatus.metadata.labels?.sneaky, undefined, 'labels are not changed through /status');
    assert.equal(viaStatus.metadata.generation, 1, 'a status update does not bump generation');
    const st = assertOk(await c.request('GET', `${DEPLOY}/${name}/status`));
    assert.equal(st.kind, 'Deployment');
    assert.equal(st.status.replicas, 3);

    const viaMain = assertOk(await c.request('PUT', `${DEPLOY}/${name}`, { body: { ...viaStatus, status: { replicas: 100 } } }));
    assert.equal(viaMain.status.replicas, 3, 'status is not changed through the main resource');
    const patched = assertOk(await c.request('PATCH', `${DEPLOY}/${name}/status`, { body: { status: { readyReplicas: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    assert.equal(patched.status.readyReplicas, 2);
    assert.equal(patched.status.replicas, 3);
  });

  it('deployments - a strategic merge patch merges containers by name', async () => {
    const name = uniq('web');
    const d = deployment(name, 1) as any;
    d.spec.template.spec.containers.push({ name: 'sidecar', image: 'registry.example/sidecar:1' });
    assertOk(await c.request('POST', DEPLOY, { body: d }), 201);
    const patched = assertOk(
      await c.request('PATCH', `${DEPLOY}/${name}`, {
        body: { spec: { template: { spec: { containers: [{ name: 'main', image: 'registry.example/app:2' }] } } } },
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
      }),
    );
    const containers = patched.spec.template.spec.containers;
    assert.deepEqual(
      containers.map((x: any) => `${x.name}=${x.image}`),
      ['main=registry.example/app:2', 'sidecar=registry.example/sidecar:1'],
    );
    assert.equal(patched.metadata.generation, 2);
    // A merge patch replaces the list instead.
    const merged = assertOk(
      await c.request('PATCH', `${DEPLOY}/${name}`, {
        body: { spec: { template: { spec: { containers: [{ name: 'only', image: 'registry.example/only:1' }] } } } },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
    );
    assert.deepEqual(
      merged.spec.template.spec.containers.map((x: any) => x.name),
      ['only'],
    );
  });

  it('deployments - generation bumps on spec changes only', async () => {
    const name = uniq('web');
    const created = assertOk(await c.request('POST', DEPLOY, { body: deployment(name, 1) }), 201);
    const labelled = assertOk(await c.request('PATCH', `${DEPLOY}/${name}`, { body: { metadata: { labels: { x: 'y' } } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    assert.equal(labelled.metadata.generation, 1, 'metadata change keeps generation');
    assert.notEqual(labelled.metadata.resourceVersion, created.metadata.resourceVersion);
    const scaled = assertOk(await c.request('PATCH', `${DEPLOY}/${name}`, { body: { spec: { replicas: 4 } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    assert.equal(scaled.metadata.generation, 2, 'spec change bumps generation');
    const again = assertOk(await c.request('PUT', `${DEPLOY}/${name}`, { body: scaled }));
    assert.equal(again.metadata.generation, 2, 'a no-op update keeps generation');
  });
});

describe('cluster-scoped clusterroles', () => {
  it('clusterroles - create, get, list, update, delete without a namespace', async () => {
    const name = uniq('role');
    const body = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] };
    const created = assertOk(await c.request('POST', CLUSTERROLES, { body }), 201);
    assert.equal(created.metadata.namespace, undefined);
    assert.match(created.metadata.uid, UUID);
    const got = assertOk(await c.request('GET', `${CLUSTERROLES}/${name}`));
    assert.deepEqual(got.rules, body.rules);
    const list = assertOk(await c.request('GET', CLUSTERROLES));
    assert.equal(list.kind, 'ClusterRoleList');
    assert.equal(list.apiVersion, 'rbac.authorization.platform.io/v1');
    assert.ok(names(list).includes(name));
    const updated = assertOk(await c.request('PUT', `${CLUSTERROLES}/${name}`, { body: { ...got, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } }));
    assert.deepEqual(updated.rules[0].verbs, ['get', 'list']);
    assertStatus(await c.request('PUT', `${CLUSTERROLES}/${name}`, { body: got }), 409, 'Conflict');
    assertStatus(await c.request('POST', CLUSTERROLES, { body }), 409, 'AlreadyExists');
    assert.equal((await c.request('DELETE', `${CLUSTERROLES}/${name}`)).status, 200);
    assertStatus(await c.request('GET', `${CLUSTERROLES}/${name}`), 404, 'NotFound');
  });

  it('clusterroles - a namespaced URL for a cluster-scoped type is 404', async () => {
    assertStatus(await c.request('GET', '/apis/rbac.authorization.platform.io/v1/namespaces/default/clusterroles'), 404, 'NotFound');
    const r = await c.request('POST', '/apis/rbac.authorization.platform.io/v1/namespaces/default/clusterroles', {
      body: { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name: uniq('r') }, rules: [] },
    });
    assertStatus(r, 404, 'NotFound');
  });

  it('unknown resources - an unknown resource or group is 404', async () => {
    assertStatus(await c.request('GET', '/api/v1/namespaces/default/widgets'), 404, 'NotFound');
    assertStatus(await c.request('GET', '/apis/widgets.example.com/v1/widgets'), 404, 'NotFound');
    assertStatus(await c.request('GET', '/apis/apps/v9/deployments'), 404, 'NotFound');
    assertStatus(await c.request('POST', '/api/v1/namespaces/default/widgets', { body: { metadata: { name: 'w' } } }), 404, 'NotFound');
  });
});

describe('finalizers', () => {
  it('finalizers - delete marks the object terminating; removing the last finalizer removes it', async () => {
    const name = uniq('fin');
    assertOk(await c.request('POST', CM, { body: configMap(name, {}, undefined, { finalizers: ['example.com/a', 'example.com/b'] }) }), 201);
    const del = await c.request('DELETE', `${CM}/${name}`);
    assert.equal(del.status, 200, del.text);
    const terminating = assertOk(await c.request('GET', `${CM}/${name}`));
    assert.match(terminating.metadata.deletionTimestamp, RFC3339);
    assert.deepEqual(terminating.metadata.finalizers, ['example.com/a', 'example.com/b']);

    // A second delete leaves it as it is.
    assert.equal((await c.request('DELETE', `${CM}/${name}`)).status, 200);
    assert.equal(assertOk(await c.request('GET', `${CM}/${name}`)).metadata.deletionTimestamp, terminating.metadata.deletionTimestamp);

    // Adding a finalizer while terminating is invalid.
    const add = await c.request('PUT', `${CM}/${name}`, { body: { ...terminating, metadata: { ...terminating.metadata, finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } } });
    const st = assertStatus(add, 422, 'Invalid');
    assert.ok(
      st.details.causes.some((x: any) => x.field === 'metadata.finalizers'),
      JSON.stringify(st.details),
    );

    const one = assertOk(await c.request('PUT', `${CM}/${name}`, { body: { ...terminating, metadata: { ...terminating.metadata, finalizers: ['example.com/b'] } } }));
    assert.deepEqual(one.metadata.finalizers, ['example.com/b']);
    assertOk(await c.request('GET', `${CM}/${name}`));
    const last = await c.request('PATCH', `${CM}/${name}`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(last.status, 200, last.text);
    assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
  });
});

describe('dry run', () => {
  it('dryRun=All - create answers 201 and stores nothing', async () => {
    const name = uniq('dry');
    const r = assertOk(await c.request('POST', `${CM}?dryRun=All`, { body: configMap(name, { a: '1' }) }), 201);
    assert.equal(r.metadata.name, name);
    assert.deepEqual(r.data, { a: '1' });
    assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
    assert.ok(!names(assertOk(await c.request('GET', CM))).includes(name));
  });

  it('dryRun=All - update, patch and delete answer normally and change nothing', async () => {
    const name = uniq('dry');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { a: '1' }) }), 201);
    const upd = assertOk(await c.request('PUT', `${CM}/${name}?dryRun=All`, { body: { ...created, data: { a: 'updated' } } }));
    assert.deepEqual(upd.data, { a: 'updated' });
    const pat = assertOk(await c.request('PATCH', `${CM}/${name}?dryRun=All`, { body: { data: { b: 'patched' } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    assert.deepEqual(pat.data, { a: '1', b: 'patched' });
    const del = await c.request('DELETE', `${CM}/${name}?dryRun=All`);
    assert.equal(del.status, 200, del.text);
    const now = assertOk(await c.request('GET', `${CM}/${name}`));
    assert.deepEqual(now.data, { a: '1' });
    assert.equal(now.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  it('dryRun=All on apply, subresources and deletecollection: answered as if done, nothing stored, no watch event; validation as usual', async () => {
    const ns = uniq('dryns');
    await createNamespace(c, ns);
    const deploys = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    const created = assertOk(await c.request('POST', deploys, { body: deployment('web', 2) }), 201);
    const kept = assertOk(await c.request('POST', cms, { body: configMap('keep', { a: '1' }) }), 201);
    const watch = await openWatch(c, `${deploys}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);
    const cmWatch = await openWatch(c, `${cms}?watch=true&resourceVersion=${kept.metadata.resourceVersion}`);
    try {
      const apply = (name: string) =>
        c.request('PATCH', `${deploys}/${name}?dryRun=All&fieldManager=dry&force=true`, {
          rawBody: JSON.stringify({ ...deployment(name, 5), apiVersion: 'apps/v1', kind: 'Deployment' }),
          headers: { 'content-type': 'application/apply-patch+yaml' },
        });
      assert.equal(assertOk(await apply('web')).spec.replicas, 5);
      assert.equal(assertOk(await apply('new-one'), 201).metadata.name, 'new-one', 'an apply that would create answers 201');
      const status = { ...created, status: { replicas: 2, readyReplicas: 2 } };
      assert.equal(assertOk(await c.request('PUT', `${deploys}/web/status?dryRun=All`, { body: status })).status.readyReplicas, 2);
      const scaled = assertOk(await c.request('PATCH', `${deploys}/web/scale?dryRun=All`, { body: { spec: { replicas: 7 } }, headers: { 'content-type': 'application/merge-patch+json' } }));
      assert.equal(scaled.spec.replicas, 7);
      assertOk(await c.request('DELETE', `${cms}?dryRun=All`));
      // Validation is that of the real request.
      assertStatus(await c.request('PATCH', `${deploys}/web?dryRun=All`, { body: { spec: { replicas: -1 } }, headers: { 'content-type': 'application/merge-patch+json' } }), 422, 'Invalid');

      const now = assertOk(await c.request('GET', `${deploys}/web`));
      assert.equal(now.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.equal(now.spec.replicas, 2);
      assert.equal(now.status.readyReplicas, undefined);
      assertStatus(await c.request('GET', `${deploys}/new-one`), 404, 'NotFound');
      assert.deepEqual(assertOk(await c.request('GET', `${cms}/keep`)).data, { a: '1' });
      // The first event either watch sees is the real write that follows.
      assertOk(await c.request('PATCH', `${deploys}/web`, { body: { metadata: { labels: { real: 'yes' } } }, headers: { 'content-type': 'application/merge-patch+json' } }));
      assertOk(await c.request('POST', cms, { body: configMap('real') }), 201);
      const first = await watch.waitFor((e) => e.type !== 'BOOKMARK');
      assert.equal(first.object.metadata.labels.real, 'yes');
      const firstCm = await cmWatch.waitFor((e) => e.type !== 'BOOKMARK');
      assert.equal(firstCm.object.metadata.name, 'real');
    } finally {
      watch.close();
      cmWatch.close();
    }
  });

  it('dryRun - an unsupported value is 400', async () => {
    const name = uniq('dry');
    const r = assertStatus(await c.request('POST', `${CM}?dryRun=Bogus`, { body: configMap(name) }), 400, 'BadRequest');
    assert.match(r.message, /Bogus/);
    assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
  });
});

describe('field validation and encodings', () => {
  const withUnknown = (name: string) => ({ ...configMap(name, { a: '1' }), bogus: 1, metadata: { name, alsoBogus: 'x' } });

  it('fieldValidation=Strict - an unknown field is 400 strict decoding error', async () => {
    const name = uniq('fv');
    const r = assertStatus(await c.request('POST', `${CM}?fieldValidation=Strict`, { body: withUnknown(name) }), 400, 'BadRequest');
    assert.match(r.message, /strict decoding error/);
    assert.match(r.message, /unknown field "bogus"/);
    assert.match(r.message, /unknown field "metadata.alsoBogus"/);
    assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
  });

  it('fieldValidation=Warn - created with a Warning header and unknown fields dropped', async () => {
    const name = uniq('fv');
    const r = await c.request('POST', `${CM}?fieldValidation=Warn`, { body: withUnknown(name) });
    const body = assertOk(r, 201);
    const warning = r.headers.get('warning') ?? '';
    assert.match(warning, /^299 - "/);
    assert.match(warning, /unknown field \\?"bogus\\?"/);
    assert.equal(body.bogus, undefined);
    assert.equal(assertOk(await c.request('GET', `${CM}/${name}`)).bogus, undefined);
  });

  it('fieldValidation=Ignore - created silently, unknown fields dropped', async () => {
    const name = uniq('fv');
    const r = await c.request('POST', `${CM}?fieldValidation=Ignore`, { body: withUnknown(name) });
    const body = assertOk(r, 201);
    assert.equal(r.headers.get('warning'), null);
    assert.equal(body.bogus, undefined);
  });

  it('fieldValidation - an unsupported value is 400', async () => {
    assertStatus(await c.request('POST', `${CM}?fieldValidation=Sometimes`, { body: configMap(uniq('fv')) }), 400, 'BadRequest');
  });

  it('fieldValidation - duplicate JSON fields: Strict rejects, Warn keeps the last value', async () => {
    const name = uniq('dup');
    const raw = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"first","a":"second"}}`;
    const strict = assertStatus(await c.request('POST', `${CM}?fieldValidation=Strict`, { rawBody: raw, headers: { 'content-type': 'application/json' } }), 400, 'BadRequest');
    assert.match(strict.message, /strict decoding error/);
    assert.match(strict.message, /duplicate field/);
    const warn = await c.request('POST', `${CM}?fieldValidation=Warn`, { rawBody: raw, headers: { 'content-type': 'application/json' } });
    const body = assertOk(warn, 201);
    assert.match(warn.headers.get('warning') ?? '', /duplicate field/);
    assert.equal(body.data.a, 'second');
  });

  it('yaml - a YAML request body is accepted and a YAML response is served on request', async () => {
    const name = uniq('yaml');
    const doc = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels:\n    from: yaml\ndata:\n  text: |\n    line one\n    line two\n`;
    const created = assertOk(await c.request('POST', CM, { rawBody: doc, headers: { 'content-type': 'application/yaml' } }), 201);
    assert.equal(created.data.text, 'line one\nline two\n');
    assert.equal(created.metadata.labels.from, 'yaml');
    const r = await c.request('GET', `${CM}/${name}`, { headers: { accept: 'application/yaml' } });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/yaml/);
    const parsed = YAML.parse(r.text);
    assert.equal(parsed.kind, 'ConfigMap');
    assert.equal(parsed.metadata.name, name);
    assert.equal(parsed.data.text, 'line one\nline two\n');
    // Errors are served in YAML too when YAML is asked for.
    const missing = await c.request('GET', `${CM}/${uniq('nope')}`, { headers: { accept: 'application/yaml' } });
    assert.equal(missing.status, 404);
    assert.equal(YAML.parse(missing.text).kind, 'Status');
  });

  it('pretty - pretty=true indents the JSON response', async () => {
    const name = uniq('pretty');
    assertOk(await c.request('POST', CM, { body: configMap(name, { a: '1' }) }), 201);
    const r = await c.request('GET', `${CM}/${name}?pretty=true`);
    assert.equal(r.status, 200);
    assert.match(r.text, /^\{\n {2}"/);
    assert.match(r.text, /\n {2}"kind": "ConfigMap",\n/);
    assert.match(r.text, /\n {4}"a": "1"\n/);
    assert.equal(r.json.metadata.name, name);
    const plain = await c.request('GET', `${CM}/${name}`);
    assert.ok(!plain.text.includes('\n  '), 'unindented without pretty');
  });
});

describe('validation errors', () => {
  it('validation - a bad name is 422 Invalid with a metadata.name cause', async () => {
    const r = assertStatus(await c.request('POST', CM, { body: configMap('Bad_Name') }), 422, 'Invalid');
    assert.match(r.message, /^ConfigMap "Bad_Name" is invalid: /);
    assert.equal(r.details.name, 'Bad_Name');
    assert.equal(r.details.kind, 'ConfigMap');
    const cause = r.details.causes.find((x: any) => x.field === 'metadata.name');
    assert.ok(cause, JSON.stringify(r.details.causes));
    assert.equal(cause.reason, 'FieldValueInvalid');
    assert.match(cause.message, /Invalid value: "Bad_Name"/);
    assert.match(cause.message, /RFC 1123/);
  });

  it('validation - a missing required field is 422 with a FieldValueRequired cause', async () => {
    const d = deployment(uniq('noselector')) as any;
    delete d.spec.selector;
    const r = assertStatus(await c.request('POST', DEPLOY, { body: d }), 422, 'Invalid');
    assert.ok(
      r.details.causes.some((x: any) => x.field === 'spec.selector' && x.reason === 'FieldValueRequired'),
      JSON.stringify(r.details.causes),
    );
    const noName = assertStatus(await c.request('POST', CM, { body: { data: {} } }), 422, 'Invalid');
    assert.ok(
      noName.details.causes.some((x: any) => x.field === 'metadata.name' && x.reason === 'FieldValueRequired'),
      JSON.stringify(noName.details.causes),
    );
  });

  it('validation - a schema violation is 422 naming the field', async () => {
    const name = uniq('neg');
    const r = assertStatus(await c.request('POST', DEPLOY, { body: deployment(name, -1) }), 422, 'Invalid');
    const cause = r.details.causes.find((x: any) => x.field === 'spec.replicas');
    assert.ok(cause, JSON.stringify(r.details.causes));
    assert.match(cause.message, /greater than or equal to 0/);
    assertStatus(await c.request('GET', `${DEPLOY}/${name}`), 404, 'NotFound');
    // The same rules apply on update.
    const ok = assertOk(await c.request('POST', DEPLOY, { body: deployment(name, 1) }), 201);
    assertStatus(await c.request('PUT', `${DEPLOY}/${name}`, { body: { ...ok, spec: { ...ok.spec, replicas: -5 } } }), 422, 'Invalid');
  });
});
