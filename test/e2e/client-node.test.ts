// End to end with the official JavaScript client: @kubernetes/client-node loads the cluster's
// kubeconfig and drives CRUD, patches, an informer and a raw watch against the gateway.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, CoreV1Api, KubeConfig, makeInformer, PatchStrategy, setHeaderOptions, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { eventually, uniq } from './helpers.js';

let c: TestCluster;
let kc: KubeConfig;
let api: CoreV1Api;

before(async () => {
  c = await startTestCluster();
  kc = new KubeConfig();
  kc.loadFromFile(c.kubeconfigPath);
  api = kc.makeApiClient(CoreV1Api);
});

after(async () => {
  await c?.stop();
});

async function expectApiError(p: Promise<unknown>, code: number): Promise<ApiException<any>> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected an ApiException, got ${String(err)}`);
    assert.equal(err.code, code, `HTTP code of ${String(err.message).slice(0, 300)}`);
    return err;
  }
  assert.fail(`expected HTTP ${code}`);
}

describe('client-node CoreV1Api', () => {
  it('client-node - create, read, list, replace and delete a configmap', async () => {
    const name = uniq('cn');
    const created = await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name, labels: { via: 'client-node' } }, data: { a: '1' } } });
    assert.equal(created.metadata?.name, name);
    assert.ok(created.metadata?.uid);
    assert.ok(created.metadata?.resourceVersion);
    assert.ok(created.metadata?.creationTimestamp instanceof Date, 'creationTimestamp parses as a date');

    const read = await api.readNamespacedConfigMap({ name, namespace: 'default' });
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    assert.deepEqual(read.data, { a: '1' });

    const list = await api.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'via=client-node' });
    assert.ok(list.items.some((i) => i.metadata?.name === name));
    assert.ok(list.metadata?.resourceVersion);

    const replaced = await api.replaceNamespacedConfigMap({ name, namespace: 'default', body: { ...read, data: { a: '2' } } });
    assert.deepEqual(replaced.data, { a: '2' });
    const conflict = await expectApiError(api.replaceNamespacedConfigMap({ name, namespace: 'default', body: { ...read, data: { a: 'stale' } } }), 409);
    assert.equal(JSON.parse(conflict.body).reason, 'Conflict');

    await api.deleteNamespacedConfigMap({ name, namespace: 'default' });
    const nf = await expectApiError(api.readNamespacedConfigMap({ name, namespace: 'default' }), 404);
    assert.equal(JSON.parse(nf.body).reason, 'NotFound');
  });

  it('client-node - merge patch and JSON patch through the content-type option', async () => {
    const name = uniq('cnp');
    await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data: { a: '1', drop: 'me' } } });
    const merged = await api.patchNamespacedConfigMap({ name, namespace: 'default', body: { data: { b: '2', drop: null } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    assert.deepEqual(merged.data, { a: '1', b: '2' });
    const jsonPatched = await api.patchNamespacedConfigMap(
      {
        name,
        namespace: 'default',
        body: [
          { op: 'test', path: '/data/a', value: '1' },
          { op: 'add', path: '/data/c', value: '3' },
          { op: 'remove', path: '/data/a' },
        ],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    assert.deepEqual(jsonPatched.data, { b: '2', c: '3' });
    // A failing JSON patch test operation changes nothing.
    const failed = await expectApiError(
      api.patchNamespacedConfigMap(
        {
          name,
          namespace: 'default',
          body: [
            { op: 'test', path: '/data/b', value: 'nope' },
            { op: 'add', path: '/data/d', value: '4' },
          ],
        },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
      ),
      422,
    );
    assert.equal(JSON.parse(failed.body).kind, 'Status');
    const now = await api.readNamespacedConfigMap({ name, namespace: 'default' });
    assert.deepEqual(now.data, { b: '2', c: '3' });
  });

  it('client-node - dryRun create returns the object without storing it', async () => {
    const name = uniq('cnd');
    const r = await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data: {} }, dryRun: 'All' });
    assert.equal(r.metadata?.name, name);
    await expectApiError(api.readNamespacedConfigMap({ name, namespace: 'default' }), 404);
  });
});

describe('client-node server-side apply', () => {
  it('client-node - an apply patch round trip: created when missing, owned by its manager, conflicts with another, forced', async () => {
    const name = uniq('cnssa');
    const apply = (manager: string, data: Record<string, string>, force?: boolean) =>
      api.patchNamespacedConfigMap(
        { name, namespace: 'default', fieldManager: manager, ...(force ? { force } : {}), body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data } },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
    const created = await apply('tool-a', { a: '1', b: '2' });
    assert.deepEqual(created.data, { a: '1', b: '2' });
    const entry = created.metadata?.managedFields?.find((e) => e.manager === 'tool-a');
    assert.equal(entry?.operation, 'Apply');
    assert.deepEqual(entry?.fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
    assert.ok(entry?.time instanceof Date, 'the entry is timestamped');

    const conflict = await expectApiError(apply('tool-b', { a: 'other' }), 409);
    const status = JSON.parse(conflict.body);
    assert.equal(status.reason, 'Conflict');
    assert.match(status.message, /^Apply failed with 1 conflict: conflict with "tool-a": \.data\.a$/);
    assert.deepEqual(
      status.details.causes.map((c: any) => c.field),
      ['.data.a'],
    );

    const forced = await apply('tool-b', { a: 'other' }, true);
    assert.deepEqual(forced.data, { a: 'other', b: '2' });
    const owners = Object.fromEntries((forced.metadata?.managedFields ?? []).map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(owners, { 'tool-a': { 'f:data': { 'f:b': {} } }, 'tool-b': { 'f:data': { 'f:a': {} } } });
  });
});

describe('client-node informer and watch', () => {
  it('informer - cache converges with the server after creates, updates and deletes', async () => {
    const ns = uniq('inf');
    await api.createNamespace({ body: { metadata: { name: ns } } });
    await api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'existing' }, data: { v: '0' } } });
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, () => api.listNamespacedConfigMap({ namespace: ns }));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      for (let i = 0; i < 5; i++) await api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `cm-${i}` }, data: { v: '1' } } });
      await api.patchNamespacedConfigMap({ name: 'cm-1', namespace: ns, body: { data: { v: '2' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      await api.patchNamespacedConfigMap({ name: 'existing', namespace: ns, body: { data: { v: '2' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      await api.deleteNamespacedConfigMap({ name: 'cm-3', namespace: ns });

      await eventually(
        'informer cache equal to the server list',
        async () => {
          const server = await api.listNamespacedConfigMap({ namespace: ns });
          const want = server.items.map((i) => `${i.metadata?.name}@${i.metadata?.resourceVersion}`).sort();
          const have = informer
            .list(ns)
            .map((i) => `${i.metadata?.name}@${i.metadata?.resourceVersion}`)
            .sort();
          assert.deepEqual(have, want);
        },
        { timeoutMs: 8000, intervalMs: 100 },
      );
      assert.equal(informer.get('cm-1', ns)?.data?.v, '2');
      assert.equal(informer.get('cm-3', ns), undefined);
      assert.ok(seen.includes('delete:cm-3'), JSON.stringify(seen));
      assert.ok(seen.includes('update:cm-1'), JSON.stringify(seen));
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });

  it('watch - client-node Watch receives ADDED, MODIFIED and DELETED', async () => {
    const ns = uniq('cw');
    await api.createNamespace({ body: { metadata: { name: ns } } });
    const list = await api.listNamespacedConfigMap({ namespace: ns });
    const events: Array<{ type: string; name: string; rv: string }> = [];
    let doneErr: unknown = 'not done';
    const ctrl = await new Watch(kc).watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
      (type, obj) => events.push({ type, name: obj?.metadata?.name, rv: obj?.metadata?.resourceVersion }),
      (err) => (doneErr = err),
    );
    try {
      await api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'w' }, data: { v: '1' } } });
      await api.replaceNamespacedConfigMap({ name: 'w', namespace: ns, body: { metadata: { name: 'w' }, data: { v: '2' } } });
      await api.deleteNamespacedConfigMap({ name: 'w', namespace: ns });
      await eventually(
        'three watch events',
        () => {
          const types = events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type}:${e.name}`);
          assert.deepEqual(types, ['ADDED:w', 'MODIFIED:w', 'DELETED:w']);
        },
        { timeoutMs: 5000, intervalMs: 100 },
      );
      assert.equal(doneErr, 'not done', 'watch still open');
    } finally {
      ctrl.abort();
    }
  });
});
