// End to end: deletes as kube-apiserver 1.24 answers them. A deletion that only starts answers the
// object with its deletionTimestamp (202 when `orphanDependents: false` was asked); one done at once
// answers the deleted object for the types upstream returns it for (pods, service accounts,
// storage classes, ...) and a success Status for the rest; kubectl still says `deleted`. A
// collection's deletion honours limit and continue and answers the list it deleted; list and
// deletecollection honour timeoutSeconds.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { defaultHandlerOptions } from '../../services/gateway/handlers/context.js';
import { assertOk, assertStatus, configMap, createNamespace, uniq } from './helpers.js';

const bin = findKubectl();
const TIMED_OUT = 'Timeout: request did not complete within requested timeout - context deadline exceeded';

const pod = (name: string, nodeName?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }], ...(nodeName ? { nodeName } : {}) },
});

describe('deletes as upstream answers them', () => {
  let c: TestCluster;
  const ns = uniq('deletes');
  const path = (resource: string, name = '') => `/api/v1/namespaces/${ns}/${resource}${name ? `/${name}` : ''}`;
  const names = (list: { items: Array<{ metadata: { name: string } }> }) => list.items.map((o) => o.metadata.name);

  before(async () => {
    // A long wait for a future resourceVersion, so a 1 s timeoutSeconds is what ends the request.
    c = await startTestCluster({ gateway: { handlers: { ...defaultHandlerOptions, resourceVersionWaitMs: 8_000 } } });
    await createNamespace(c, ns);
  });

  after(async () => {
    await c?.stop();
  });

  // ---- 4. Delete answers -----------------------------------------------------------------------------

  it('delete - a pod deleted at once answers the Pod, not a Status', async () => {
    const name = uniq('pod');
    const created = assertOk(await c.request('POST', path('pods'), { body: pod(name) }), 201);
    const gone = assertOk(await c.request('DELETE', path('pods', name)));
    assert.equal(gone.kind, 'Pod');
    assert.equal(gone.metadata.uid, created.metadata.uid);
    assertStatus(await c.request('GET', path('pods', name)), 404, 'NotFound');
  });

  it('delete - the other types upstream returns the deleted object for answer it too; the rest answer a success Status', async () => {
    const sa = uniq('sa');
    assertOk(await c.request('POST', path('serviceaccounts'), { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } } }), 201);
    assert.equal(assertOk(await c.request('DELETE', path('serviceaccounts', sa))).kind, 'ServiceAccount');
    const sc = uniq('sc');
    const scPath = `/apis/storage.platform.io/v1/storageclasses/${sc}`;
    assertOk(
      await c.request('POST', '/apis/storage.platform.io/v1/storageclasses', {
        body: { apiVersion: 'storage.platform.io/v1', kind: 'StorageClass', metadata: { name: sc }, provisioner: 'example.com/x' },
      }),
      201,
    );
    assert.equal(assertOk(await c.request('DELETE', scPath)).kind, 'StorageClass');
    const cm = uniq('cm');
    const created = assertOk(await c.request('POST', path('configmaps'), { body: configMap(cm) }), 201);
    const st = assertOk(await c.request('DELETE', path('configmaps', cm)));
    assert.equal(st.kind, 'Status');
    assert.equal(st.status, 'Success');
    assert.deepEqual([st.details.name, st.details.kind, st.details.uid], [cm, 'configmaps', created.metadata.uid]);
  });

  it('delete - a deletion waiting for finalizers answers the object with its deletionTimestamp: 200, or 202 with orphanDependents false', async () => {
    for (const [body, code] of [
      [undefined, 200],
      [{ kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false }, 202],
    ] as const) {
      const name = uniq('held');
      assertOk(await c.request('POST', path('configmaps'), { body: configMap(name, {}, undefined, { finalizers: ['example.com/hold'] }) }), 201);
      const held = assertOk(await c.request('DELETE', path('configmaps', name), body ? { body } : {}), code);
      assert.equal(held.kind, 'ConfigMap');
      assert.ok(held.metadata.deletionTimestamp, JSON.stringify(held.metadata));
      assert.ok(assertOk(await c.request('GET', path('configmaps', name))).metadata.deletionTimestamp);
    }
    // orphanDependents false on a deletion done at once is still 200 (upstream's rule).
    const quick = uniq('quick');
    assertOk(await c.request('POST', path('configmaps'), { body: configMap(quick) }), 201);
    assert.equal(assertOk(await c.request('DELETE', `${path('configmaps', quick)}?orphanDependents=false`)).status, 'Success');
  });

  it('delete - a pod on a node is deleted gracefully: the Pod with its deletionTimestamp, 202 with orphanDependents false', async () => {
    const name = uniq('graceful');
    assertOk(await c.request('POST', path('pods'), { body: pod(name, 'node-a') }), 201);
    const started = assertOk(await c.request('DELETE', `${path('pods', name)}?orphanDependents=false`), 202);
    assert.equal(started.kind, 'Pod');
    assert.ok(started.metadata.deletionTimestamp);
    assert.equal(started.metadata.deletionGracePeriodSeconds, 30);
  });

  it('delete - a namespace answers the Namespace, Terminating: 200, or 202 with orphanDependents false', async () => {
    for (const [query, code] of [
      ['', 200],
      ['?orphanDependents=false', 202],
    ] as const) {
      const name = uniq('ns');
      await createNamespace(c, name);
      const terminating = assertOk(await c.request('DELETE', `/api/v1/namespaces/${name}${query}`), code);
      assert.equal(terminating.kind, 'Namespace');
      assert.equal(terminating.status.phase, 'Terminating');
      assert.ok(terminating.metadata.deletionTimestamp);
    }
  });

  it('delete - kubectl still says deleted for a pod and a configmap', { skip: bin ? false : 'kubectl not on PATH' }, async () => {
    const k = new Kubectl(bin!, c.kubeconfigPath);
    const [p, cm] = [uniq('kpod'), uniq('kcm')];
    assertOk(await c.request('POST', path('pods'), { body: pod(p) }), 201);
    assertOk(await c.request('POST', path('configmaps'), { body: configMap(cm) }), 201);
    for (const [kind, name] of [
      ['pod', p],
      ['configmap', cm],
    ]) {
      const r = await k.run(['delete', kind, name, '-n', ns, '--wait=false']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), `${kind} "${name}" deleted`);
    }
  });

  // ---- 3. Deletecollection pages, answers the list; timeoutSeconds ------------------------------------

  it('deletecollection - limit and continue page the deletion, and each page answers the list it deleted', async () => {
    const batch = uniq('batch');
    const made = [uniq('a'), uniq('b'), uniq('c')].sort();
    for (const n of made) assertOk(await c.request('POST', path('configmaps'), { body: configMap(n, {}, { batch }) }), 201);
    const selector = `labelSelector=${encodeURIComponent(`batch=${batch}`)}`;
    const first = assertOk(await c.request('DELETE', `${path('configmaps')}?${selector}&limit=1`));
    assert.equal(first.kind, 'ConfigMapList');
    assert.equal(first.apiVersion, 'v1');
    assert.equal(first.items.length, 1);
    assert.ok(first.metadata.continue, 'a page with more behind it carries a continue token');
    assert.deepEqual(
      names(assertOk(await c.request('GET', `${path('configmaps')}?${selector}`))),
      made.filter((n) => n !== first.items[0].metadata.name),
    );
    const second = assertOk(await c.request('DELETE', `${path('configmaps')}?${selector}&limit=1&continue=${encodeURIComponent(first.metadata.continue)}`));
    assert.equal(second.items.length, 1);
    assert.notEqual(second.items[0].metadata.name, first.items[0].metadata.name);
    const rest = assertOk(await c.request('DELETE', `${path('configmaps')}?${selector}`));
    assert.equal(rest.items.length, 1);
    assert.equal(rest.metadata.continue, undefined);
    assert.deepEqual(names(assertOk(await c.request('GET', `${path('configmaps')}?${selector}`))), []);
  });

  it('deletecollection - a dry run answers the list it would delete and deletes nothing', async () => {
    const batch = uniq('dry');
    const made = [uniq('d'), uniq('e')].sort();
    for (const n of made) assertOk(await c.request('POST', path('configmaps'), { body: configMap(n, {}, { batch }) }), 201);
    const selector = `labelSelector=${encodeURIComponent(`batch=${batch}`)}`;
    assert.deepEqual(names(assertOk(await c.request('DELETE', `${path('configmaps')}?${selector}&dryRun=All`))), made);
    assert.deepEqual(names(assertOk(await c.request('GET', `${path('configmaps')}?${selector}`))), made);
  });

  it('timeoutSeconds - a list waiting for a future resourceVersion ends at the timeout with upstream 504', async () => {
    const far = Number(assertOk(await c.request('GET', path('configmaps'))).metadata.resourceVersion) + 1_000_000;
    const t0 = Date.now();
    const st = assertStatus(await c.request('GET', `${path('configmaps')}?resourceVersion=${far}&timeoutSeconds=1`), 504, 'Timeout');
    const took = Date.now() - t0;
    assert.equal(st.message, TIMED_OUT);
    assert.ok(took >= 900 && took < 4_000, `answered after ${took} ms`);
  });

  it('timeoutSeconds - a deletecollection that cannot finish in time is 504 and deletes nothing', async () => {
    const batch = uniq('late');
    const name = uniq('f');
    assertOk(await c.request('POST', path('configmaps'), { body: configMap(name, {}, { batch }) }), 201);
    const far = Number(assertOk(await c.request('GET', path('configmaps'))).metadata.resourceVersion) + 1_000_000;
    const t0 = Date.now();
    const st = assertStatus(await c.request('DELETE', `${path('configmaps')}?labelSelector=${encodeURIComponent(`batch=${batch}`)}&resourceVersion=${far}&timeoutSeconds=1`), 504, 'Timeout');
    assert.equal(st.message, TIMED_OUT);
    assert.ok(Date.now() - t0 < 4_000);
    assertOk(await c.request('GET', path('configmaps', name)));
  });
});
