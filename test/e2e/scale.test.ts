import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
  },
});

describe('scale subresource', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  test('scale - GET shows an autoscaling/v1 Scale of the workload', async () => {
    assert.equal((await c.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('web', 2) })).status, 201);
    const r = await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/web/scale');
    assert.equal(r.status, 200);
    assert.equal(r.json.kind, 'Scale');
    assert.equal(r.json.apiVersion, 'autoscaling/v1');
    assert.equal(r.json.spec.replicas, 2);
    assert.equal(r.json.status.selector, 'app=web');
  });

  test('scale - PUT and merge PATCH change only spec.replicas and bump generation', async () => {
    const before = (await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/web')).json;
    const scale = (await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/web/scale')).json;
    scale.spec.replicas = 5;
    const put = await c.request('PUT', '/apis/apps/v1/namespaces/default/deployments/web/scale', { body: scale });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.spec.replicas, 5);
    const patch = await c.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', {
      rawBody: '{"spec":{"replicas":7}}',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patch.status, 200, patch.text);
    const after = (await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/web')).json;
    assert.equal(after.spec.replicas, 7);
    assert.equal(after.metadata.generation, before.metadata.generation + 2);
    assert.deepEqual(after.spec.template, before.spec.template);
  });

  test('scale - a stale resourceVersion is 409 and negative replicas are 422', async () => {
    const scale = (await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/web/scale')).json;
    assert.equal((await c.request('PUT', '/apis/apps/v1/namespaces/default/deployments/web/scale', { body: { ...scale, metadata: { ...scale.metadata, resourceVersion: '1' } } })).status, 409);
    const bad = await c.request('PUT', '/apis/apps/v1/namespaces/default/deployments/web/scale', { body: { ...scale, spec: { replicas: -1 } } });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.details.causes[0].field, 'spec.replicas');
  });

  test('scale - types without a scale subresource answer 404', async () => {
    await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'plain' } } });
    assert.equal((await c.request('GET', '/api/v1/namespaces/default/configmaps/plain/scale')).status, 404);
  });
});
