// End to end: HorizontalPodAutoscalers as kube-apiserver 1.24 serves them, over HTTPS with upstream
// kubectl. `kubectl autoscale` (a protobuf body) and `kubectl get hpa` with upstream's columns; one
// stored object read through autoscaling/v2, v1 (the rest in annotations) and v2beta1 (its own
// spelling); writes through v1 keep what only v2 holds; the deprecated versions' Warning header;
// 422s with upstream's field paths; the status subresource seen through v1.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { decodeObject } from '../../shared/proto/envelope.js';
import { assertOk, assertStatus, createNamespace, deployment, uniq } from './helpers.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const ANN = 'autoscaling.alpha.platform.io';
const bin = findKubectl();

const cpu = (u: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: u } } });
const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } };
const behavior = {
  scaleUp: {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  },
  scaleDown: { stabilizationWindowSeconds: 120, selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
};

function hpaV2(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, ...spec } };
}

describe('HorizontalPodAutoscalers: autoscaling v2, v1, v2beta1 and v2beta2', () => {
  let c: TestCluster;
  let ns: string;
  let k: Kubectl | undefined;
  const hpas = (v: string) => `/apis/autoscaling/${v}/namespaces/${ns}/horizontalpodautoscalers`;

  before(async () => {
    c = await startTestCluster();
    ns = uniq('hpa');
    await createNamespace(c, ns);
    assertOk(await c.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web', 2) }), 201);
    if (bin) k = new Kubectl(bin, c.kubeconfigPath);
  });
  after(async () => c?.stop());

  it('discovery serves v2 (preferred), v1, v2beta1 and v2beta2, short name hpa in category all', async () => {
    const group = assertOk(await c.request('GET', '/apis/autoscaling'));
    assert.equal(group.preferredVersion.version, 'v2');
    assert.deepEqual(group.versions.map((v: { version: string }) => v.version).sort(), ['v1', 'v2', 'v2beta1', 'v2beta2']);
    const v2 = assertOk(await c.request('GET', '/apis/autoscaling/v2'));
    const res = v2.resources.find((r: { name: string }) => r.name === 'horizontalpodautoscalers');
    assert.deepEqual([res.shortNames, res.categories, res.namespaced], [['hpa'], ['all'], true]);
    assert.ok(v2.resources.some((r: { name: string }) => r.name === 'horizontalpodautoscalers/status'));
  });

  it('kubectl autoscale creates an HPA with a protobuf body; kubectl get hpa shows upstream’s columns', { skip: bin ? false : 'kubectl not on PATH' }, async () => {
    const r = await k!.run(['autoscale', 'deployment', 'web', '-n', ns, '--min=2', '--max=5', '--cpu-percent=80', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /horizontalpodautoscaler.autoscaling\/web autoscaled/);
    assert.match(r.stderr, /POST https:\/\/[^ ]+\/apis\/autoscaling\/v\d\/namespaces\/[^/]+\/horizontalpodautoscalers/);
    assert.match(r.stderr, /Content-Type: application\/vnd\.kubernetes\.protobuf/, 'the create was sent as protobuf');

    const stored = assertOk(await c.request('GET', `${hpas('v2')}/web`));
    assert.deepEqual(stored.spec, { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5, metrics: [cpu(80)] });

    const table = await k!.run(['get', 'hpa', '-n', ns]);
    assert.equal(table.code, 0, table.stderr);
    const [header, row] = table.stdout.trim().split('\n');
    assert.match(header!, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
    assert.match(row!, /^web\s+Deployment\/web\s+<unknown>\/80%\s+2\s+5\s+0\s+\d+s$/);
    assert.doesNotMatch(table.stderr, /deprecated/, 'kubectl uses the preferred, stable version');
    const all = await k!.run(['get', 'all', '-n', ns, '-o', 'name']);
    assert.match(all.stdout, /horizontalpodautoscaler.autoscaling\/web/);
  });

  it('an HPA written through v2 reads through v1 with the annotations and through v2beta1 in its own shape', async () => {
    const created = assertOk(await c.request('POST', hpas('v2'), { body: hpaV2('mixed', { minReplicas: 1, maxReplicas: 10, metrics: [memory, cpu(70)], behavior }) }), 201);
    assert.deepEqual(created.spec.behavior, behavior);

    const v1 = assertOk(await c.request('GET', `${hpas('v1')}/mixed`));
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.deepEqual(v1.spec, { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10, targetCPUUtilizationPercentage: 70 });
    assert.deepEqual(JSON.parse(v1.metadata.annotations[`${ANN}/metrics`]), [{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } }]);
    assert.deepEqual(JSON.parse(v1.metadata.annotations[`${ANN}/behavior`]), {
      ScaleUp: {
        StabilizationWindowSeconds: 0,
        SelectPolicy: 'Max',
        Policies: [
          { Type: 'Pods', Value: 4, PeriodSeconds: 15 },
          { Type: 'Percent', Value: 100, PeriodSeconds: 15 },
        ],
      },
      ScaleDown: { StabilizationWindowSeconds: 120, SelectPolicy: 'Min', Policies: [{ Type: 'Percent', Value: 10, PeriodSeconds: 60 }] },
    });

    const beta = assertOk(await c.request('GET', `${hpas('v2beta1')}/mixed`));
    assert.deepEqual(beta.spec.metrics, [
      { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } },
      { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 70 } },
    ]);
    assert.ok(beta.metadata.annotations[`${ANN}/behavior`], 'v2beta1 keeps the behavior in the annotation');
    assert.equal(beta.metadata.annotations[`${ANN}/metrics`], undefined);

    // The same object in protobuf through v1, annotations included.
    const pb = decodeObject((await c.request('GET', `${hpas('v1')}/mixed`, { headers: { accept: PROTOBUF } })).bytes) as any;
    assert.equal(pb.apiVersion, 'autoscaling/v1');
    assert.equal(pb.spec.targetCPUUtilizationPercentage, 70);
    assert.equal(pb.metadata.annotations[`${ANN}/metrics`], v1.metadata.annotations[`${ANN}/metrics`]);
  });

  it('writes through v1 keep what only v2 holds: a PUT of what v1 read, a merge patch of the CPU target', async () => {
    const before = assertOk(await c.request('GET', `${hpas('v2')}/mixed`));
    const v1 = assertOk(await c.request('GET', `${hpas('v1')}/mixed`));
    v1.spec.maxReplicas = 12;
    assertOk(await c.request('PUT', `${hpas('v1')}/mixed`, { body: v1 }));
    let now = assertOk(await c.request('GET', `${hpas('v2')}/mixed`));
    assert.equal(now.spec.maxReplicas, 12);
    assert.deepEqual(now.spec.metrics, before.spec.metrics);
    assert.deepEqual(now.spec.behavior, before.spec.behavior);
    assert.equal(now.metadata.annotations, undefined, 'no round-trip annotation is stored');

    const patched = await c.request('PATCH', `${hpas('v1')}/mixed`, { body: { spec: { targetCPUUtilizationPercentage: 60 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assertOk(patched);
    assert.equal(patched.json.spec.targetCPUUtilizationPercentage, 60);
    now = assertOk(await c.request('GET', `${hpas('v2')}/mixed`));
    assert.deepEqual(now.spec.metrics, [memory, cpu(60)]);
    assert.deepEqual(now.spec.behavior, behavior);
  });

  it('v2beta1 and v2beta2 requests carry upstream’s deprecation warning; v1 and v2 none', async () => {
    const beta2 = hpaV2('beta2', { maxReplicas: 3, metrics: [memory] });
    beta2.apiVersion = 'autoscaling/v2beta2';
    const created = await c.request('POST', hpas('v2beta2'), { body: beta2 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('warning'), '299 - "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler"');
    assert.deepEqual(created.json.spec.behavior, undefined);
    const beta1 = await c.request('GET', `${hpas('v2beta1')}/beta2`);
    assert.equal(beta1.status, 200, beta1.text);
    assert.equal(beta1.headers.get('warning'), '299 - "autoscaling/v2beta1 HorizontalPodAutoscaler is deprecated in v1.22+, unavailable in v1.25+; use autoscaling/v2 HorizontalPodAutoscaler"');
    for (const v of ['v1', 'v2']) assert.equal((await c.request('GET', `${hpas(v)}/beta2`)).headers.get('warning'), null);
  });

  it('invalid objects are refused with 422 and upstream’s field paths, also through v1 and v2beta1', async () => {
    const bad = await c.request('POST', hpas('v2'), {
      body: hpaV2('bad', {
        minReplicas: 3,
        maxReplicas: 2,
        metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue' } } }],
        behavior: { scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 3600 }] } },
      }),
    });
    const fields = (assertStatus(bad, 422, 'Invalid').details.causes as Array<{ field: string }>).map((x) => x.field).sort();
    assert.deepEqual(fields, ['spec.behavior.scaleUp.policies[0].periodSeconds', 'spec.maxReplicas', 'spec.metrics[0].pods.target.averageValue']);

    const v1 = await c.request('POST', hpas('v1'), {
      body: {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'bad' },
        spec: { scaleTargetRef: { kind: 'Deployment' }, maxReplicas: 2, targetCPUUtilizationPercentage: 0 },
      },
    });
    const v1Fields = (assertStatus(v1, 422, 'Invalid').details.causes as Array<{ field: string }>).map((x) => x.field).sort();
    assert.deepEqual(v1Fields, ['spec.metrics[0].resource.target.averageUtilization', 'spec.scaleTargetRef.name']);

    const beta = await c.request('POST', hpas('v2beta1'), {
      body: {
        apiVersion: 'autoscaling/v2beta1',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'bad' },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 0, maxReplicas: 2 },
      },
    });
    const betaFields = (assertStatus(beta, 422, 'Invalid').details.causes as Array<{ field: string }>).map((x) => x.field).sort();
    assert.deepEqual(betaFields, ['spec.metrics', 'spec.minReplicas']);
  });

  it('status written through v2 reads through v1 and in kubectl’s TARGETS; a v1 spec update leaves it alone', async () => {
    const current = assertOk(await c.request('GET', `${hpas('v2')}/mixed`));
    current.status = {
      currentReplicas: 3,
      desiredReplicas: 4,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'memory', current: { averageValue: '300Mi' } } },
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '90m', averageUtilization: 45 } } },
      ],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'ReadyForNewScale', message: 'ok' }],
    };
    assertOk(await c.request('PUT', `${hpas('v2')}/mixed/status`, { body: current }));
    const v1 = assertOk(await c.request('GET', `${hpas('v1')}/mixed`));
    assert.deepEqual([v1.status.currentReplicas, v1.status.desiredReplicas, v1.status.currentCPUUtilizationPercentage], [3, 4, 45]);
    assert.equal(JSON.parse(v1.metadata.annotations[`${ANN}/conditions`])[0].reason, 'ReadyForNewScale');

    // A v1 client that drops the status annotations from what it writes back changes no status.
    delete v1.metadata.annotations[`${ANN}/conditions`];
    delete v1.metadata.annotations[`${ANN}/current-metrics`];
    v1.spec.minReplicas = 2;
    assertOk(await c.request('PUT', `${hpas('v1')}/mixed`, { body: v1 }));
    const after = assertOk(await c.request('GET', `${hpas('v2')}/mixed`));
    assert.equal(after.spec.minReplicas, 2);
    assert.deepEqual(after.status, current.status);

    const table = assertOk(await c.request('GET', `${hpas('v1')}/mixed`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } }));
    assert.deepEqual(table.rows[0].cells.slice(1, 6), ['Deployment/web', '300Mi/500Mi, 45%/60%', '2', 12, 3]);
  });
});
