// HorizontalPodAutoscalers across autoscaling v2 (stored), v1, v2beta1 and v2beta2: every stored
// object reads through each version and writes back unchanged; upstream's annotation forms; what a
// v1 client changes reaches the stored object; defaults per version; upstream's validation paths;
// the table kubectl prints.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../api/types.js';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { Targets } from '../target.js';
import { type Target } from '../types.js';
import { deprecationWarning } from '../versions.js';
import { convert, tableColumns } from '../../codec/convert.js';
import { value } from '../../codec/codec.js';
import { horizontalpodautoscalers } from '../builtin/autoscaling/horizontal-pod-autoscaler.js';
import { HPA_ANNOTATION, decodeBehavior, encodeBehavior } from '../builtin/autoscaling/hpa-conversion.js';
import { testStrategyContext } from './builtin-helpers.js';
import { isDNS1123Label } from '../../api/validation.js';

const registry = createBuiltinRegistry();
const targets = new Targets(registry);
const VERSIONS = ['v2', 'v1', 'v2beta1', 'v2beta2'] as const;
const target = (v: string): Target => targets.of('autoscaling', v, 'horizontalpodautoscalers')!;
const read = (t: Target, stored: ApiObject) => (t.fromStored ? t.fromStored(stored) : stored);

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const cpu = (u: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: u } } });
const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } };
const cpuStatus = { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 60 } } };
const memoryStatus = { type: 'Resource', resource: { name: 'memory', current: { averageValue: '700Mi' } } };
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
const conditions = [
  { type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
  { type: 'ScalingActive', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'ValidMetricFound', message: 'the HPA was able to compute the replica count' },
];
const selector = { matchLabels: { queue: 'jobs' } };

function hub(spec: Record<string, unknown>, status?: Record<string, unknown>, annotations?: Record<string, string>): ApiObject {
  const o: ApiObject = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-01-02T03:04:05Z', ...(annotations ? { annotations } : {}) },
    spec: { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5, ...spec },
  };
  if (status) o.status = status;
  return o;
}

// Stored objects as the server keeps them: defaulted, valid, status as the controller writes it.
const STORED: Array<[name: string, obj: ApiObject]> = [
  ['a CPU target alone (kubectl autoscale)', hub({ metrics: [cpu(80)] }, { desiredReplicas: 0 })],
  [
    'CPU and memory targets with behavior, metrics and conditions',
    hub(
      { metrics: [cpu(70), memory], behavior },
      { observedGeneration: 1, lastScaleTime: '2026-01-02T03:04:05Z', currentReplicas: 3, desiredReplicas: 4, currentMetrics: [cpuStatus, memoryStatus], conditions },
    ),
  ],
  ['memory before the CPU target (the order v1 writes)', hub({ metrics: [memory, cpu(50)] }, { currentReplicas: 2, desiredReplicas: 2, currentMetrics: [memoryStatus, cpuStatus] })],
  ['two CPU targets around another metric', hub({ metrics: [cpu(70), memory, cpu(90)] })],
  ['a CPU average value target (no v1 field for it)', hub({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '500m' } } }] })],
  [
    'pods, object and external metrics, value and average targets',
    hub(
      {
        metrics: [
          { type: 'Pods', pods: { metric: { name: 'packets-per-second', selector }, target: { type: 'AverageValue', averageValue: '1k' } } },
          {
            type: 'Object',
            object: { describedObject: { apiVersion: 'networking.platform.io/v1', kind: 'Ingress', name: 'main' }, target: { type: 'Value', value: '10k' }, metric: { name: 'requests-per-second' } },
          },
          { type: 'Object', object: { describedObject: { kind: 'Service', name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' }, metric: { name: 'depth', selector } } },
          { type: 'External', external: { metric: { name: 'queue_messages_ready', selector }, target: { type: 'Value', value: '30' } } },
          { type: 'External', external: { metric: { name: 'queue_lag' }, target: { type: 'AverageValue', averageValue: '20' } } },
        ],
        behavior: { scaleUp: behavior.scaleUp, scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
      },
      {
        currentReplicas: 4,
        desiredReplicas: 4,
        currentMetrics: [
          { type: 'Pods', pods: { metric: { name: 'packets-per-second', selector }, current: { averageValue: '800' } } },
          {
            type: 'Object',
            object: { metric: { name: 'requests-per-second' }, current: { value: '9k' }, describedObject: { apiVersion: 'networking.platform.io/v1', kind: 'Ingress', name: 'main' } },
          },
          { type: 'Object', object: { metric: { name: 'depth', selector }, current: { averageValue: '12' }, describedObject: { kind: 'Service', name: 'queue' } } },
          { type: 'External', external: { metric: { name: 'queue_messages_ready', selector }, current: { value: '0' } } },
          { type: 'External', external: { metric: { name: 'queue_lag' }, current: { averageValue: '5' } } },
        ],
        conditions,
      },
    ),
  ],
  [
    'a container resource target',
    hub(
      { metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 }, container: 'app' } }] },
      { desiredReplicas: 2, currentMetrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', current: { averageValue: '80m', averageUtilization: 40 }, container: 'app' } }] },
    ),
  ],
  ['the user’s own annotations', hub({ metrics: [memory] }, undefined, { team: 'payments', 'example.com/owner': 'jane' })],
];

describe('HorizontalPodAutoscaler conversions', () => {
  for (const [name, stored] of STORED) {
    for (const v of VERSIONS) {
      it(`${name}: read through ${v} and written back, unchanged`, () => {
        const t = target(v);
        const before = structuredClone(stored);
        const served = read(t, stored);
        assert.equal(served.apiVersion, `autoscaling/${v}`);
        assert.deepEqual(stored, before, 'reading does not change the stored object');
        const servedCopy = structuredClone(served);
        const back = t.toStored(served);
        assert.deepEqual(served, servedCopy, 'writing does not change the written object');
        assert.deepEqual(back, stored);
      });
    }
  }

  it('v1 shows the first CPU utilization target as targetCPUUtilizationPercentage and the rest in upstream’s annotation forms', () => {
    const v1 = read(target('v1'), STORED[1]![1]);
    const spec = v1.spec as Record<string, unknown>;
    assert.deepEqual(spec, { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    assert.deepEqual(v1.status, { observedGeneration: 1, lastScaleTime: '2026-01-02T03:04:05Z', currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 60 });
    const ann = v1.metadata.annotations!;
    assert.deepEqual(Object.keys(ann).sort(), Object.values(HPA_ANNOTATION).sort());
    assert.equal(
      ann[HPA_ANNOTATION.currentMetrics],
      '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":60,"currentAverageValue":"120m"}},{"type":"Resource","resource":{"name":"memory","currentAverageValue":"700Mi"}}]',
    );
    assert.equal(
      ann[HPA_ANNOTATION.behavior],
      '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},"ScaleDown":{"StabilizationWindowSeconds":120,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}',
    );
    assert.deepEqual(JSON.parse(ann[HPA_ANNOTATION.conditions]!), conditions);
    // The CPU target comes first here, so the metrics annotation lists every metric to keep the order.
    assert.equal(
      ann[HPA_ANNOTATION.metrics],
      '[{"type":"Resource","resource":{"name":"cpu","targetAverageUtilization":70}},{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]',
    );
  });

  it('v1 leaves the CPU target out of the metrics annotation when it comes last, as upstream writes it', () => {
    const ann = read(target('v1'), STORED[2]![1]).metadata.annotations!;
    assert.equal(ann[HPA_ANNOTATION.metrics], '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]');
  });

  it('reads annotations written by upstream: other metrics first, then the CPU target; behavior keys in any case; malformed ones ignored', () => {
    const v1: ApiObject = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: {
        name: 'web',
        annotations: {
          [HPA_ANNOTATION.metrics]: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"100"}}]',
          [HPA_ANNOTATION.behavior]: '{"scaleDown":{"stabilizationWindowSeconds":30,"policies":[{"type":"Pods","value":1,"periodSeconds":60}]}}',
          [HPA_ANNOTATION.conditions]: 'not json',
          keep: 'me',
        },
      },
      spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 75 },
    };
    const stored = target('v1').toStored(v1);
    const spec = stored.spec as Record<string, any>;
    assert.deepEqual(spec.metrics, [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '100' } } }, cpu(75)]);
    // A behavior from an annotation is completed as upstream's read of the stored object completes it.
    assert.deepEqual(spec.behavior, {
      scaleUp: behavior.scaleUp,
      scaleDown: { stabilizationWindowSeconds: 30, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
    });
    assert.deepEqual(stored.metadata.annotations, { keep: 'me' });
    assert.equal(stored.status, undefined);
  });

  it('a v1 object naming no metric stands for the default 80% CPU target', () => {
    const stored = target('v1').toStored({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x' }, spec: { scaleTargetRef: ref, maxReplicas: 3 } });
    assert.deepEqual((stored.spec as Record<string, unknown>).metrics, [cpu(80)]);
  });

  it('a v1 client’s change of targetCPUUtilizationPercentage reaches the CPU metric wherever it stands; clearing it removes the metric', () => {
    for (const [, stored] of [STORED[1]!, STORED[2]!]) {
      const t = target('v1');
      const v1 = read(t, stored);
      (v1.spec as Record<string, unknown>).targetCPUUtilizationPercentage = 65;
      const metrics = (t.toStored(v1).spec as Record<string, any>).metrics;
      const original = (stored.spec as Record<string, any>).metrics as unknown[];
      assert.deepEqual(
        metrics,
        original.map((m: any) => (m.resource?.name === 'cpu' ? cpu(65) : m)),
      );
      delete (v1.spec as Record<string, unknown>).targetCPUUtilizationPercentage;
      assert.deepEqual((t.toStored(v1).spec as Record<string, any>).metrics, [memory]);
    }
  });

  it('v2beta1 spells targets as upstream does, with behavior in the annotation', () => {
    const beta = read(target('v2beta1'), STORED[5]![1]);
    const spec = beta.spec as Record<string, any>;
    assert.deepEqual(spec.metrics, [
      { type: 'Pods', pods: { metricName: 'packets-per-second', targetAverageValue: '1k', selector } },
      { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.platform.io/v1' }, metricName: 'requests-per-second', targetValue: '10k' } },
      { type: 'Object', object: { target: { kind: 'Service', name: 'queue' }, metricName: 'depth', targetValue: '0', selector, averageValue: '30' } },
      { type: 'External', external: { metricName: 'queue_messages_ready', metricSelector: selector, targetValue: '30' } },
      { type: 'External', external: { metricName: 'queue_lag', targetAverageValue: '20' } },
    ]);
    assert.deepEqual(decodeBehavior(beta.metadata.annotations![HPA_ANNOTATION.behavior]), (STORED[5]![1].spec as Record<string, unknown>).behavior);
    assert.deepEqual((beta.status as Record<string, any>).conditions, conditions);
  });

  it('v2 and v2beta2 drop the annotations meant for older versions, as upstream does', () => {
    for (const v of ['v2', 'v2beta2']) {
      const o = hub({ metrics: [memory] }, undefined, { [HPA_ANNOTATION.metrics]: '[]', [HPA_ANNOTATION.behavior]: '{}', team: 'a' });
      o.apiVersion = `autoscaling/${v}`;
      assert.deepEqual(target(v).toStored(o).metadata.annotations, { team: 'a' });
    }
  });

  it('behavior annotations: Go field names out, any case in, null for what is unset', () => {
    const text = encodeBehavior({ scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } });
    assert.equal(text, '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":null,"Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":60}]}}');
    assert.deepEqual(decodeBehavior(text), { scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } });
    assert.equal(decodeBehavior('{"ScaleUp":null}'), undefined, 'an empty behavior is none');
    assert.equal(decodeBehavior('{"ScaleUp":{"Policies":[{"Value":"x"}]}}'), undefined, 'a malformed one is ignored');
  });
});

describe('HorizontalPodAutoscaler defaults per version', () => {
  const defaulted = (v: string, spec: Record<string, unknown>) => {
    const o: ApiObject = { apiVersion: `autoscaling/${v}`, kind: 'HorizontalPodAutoscaler', metadata: { name: 'x', namespace: 'd' }, spec };
    registry.defaults(target(v).served, o);
    return o.spec as Record<string, any>;
  };

  it('v2 and v2beta2: minReplicas 1, the 80% CPU target, a behavior completed with upstream’s policies', () => {
    for (const v of ['v2', 'v2beta2']) {
      const spec = defaulted(v, { scaleTargetRef: ref, maxReplicas: 4, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } });
      assert.equal(spec.minReplicas, 1);
      assert.deepEqual(spec.metrics, [cpu(80)]);
      assert.deepEqual(spec.behavior, {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: 'Max',
          policies: [
            { type: 'Pods', value: 4, periodSeconds: 15 },
            { type: 'Percent', value: 100, periodSeconds: 15 },
          ],
        },
        scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      });
      assert.equal(defaulted(v, { scaleTargetRef: ref, maxReplicas: 4 }).behavior, undefined, 'no behavior is given none');
    }
  });

  it('v2beta1: minReplicas 1 and the 80% CPU target in its own spelling; v1: minReplicas 1', () => {
    const beta = defaulted('v2beta1', { scaleTargetRef: ref, maxReplicas: 4 });
    assert.deepEqual([beta.minReplicas, beta.metrics], [1, [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 80 } }]]);
    const v1 = defaulted('v1', { scaleTargetRef: ref, maxReplicas: 4, minReplicas: 3 });
    assert.deepEqual(v1, { scaleTargetRef: ref, maxReplicas: 4, minReplicas: 3 });
    assert.equal(defaulted('v1', { scaleTargetRef: ref, maxReplicas: 4 }).minReplicas, 1);
  });
});

describe('HorizontalPodAutoscaler validation', () => {
  const errorsOf = (v: string, spec: Record<string, unknown>, old?: Record<string, unknown>) => {
    const o: ApiObject = { apiVersion: `autoscaling/${v}`, kind: 'HorizontalPodAutoscaler', metadata: { name: 'x', namespace: 'd' }, spec };
    const served = target(v).served;
    registry.defaults(served, o);
    const prev: ApiObject | undefined = old && {
      apiVersion: `autoscaling/${v}`,
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'x', namespace: 'd', uid: 'u', resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: old,
    };
    if (prev) o.metadata = { ...prev.metadata };
    return registry.validate(served, o, prev).map((e) => `${e.field}: ${e.type}${e.detail ? `: ${e.detail}` : ''}`);
  };
  const cases: Array<[name: string, v: string, spec: Record<string, unknown>, errors: string[]]> = [
    ['a valid v2 object', 'v2', { scaleTargetRef: ref, maxReplicas: 3 }, []],
    ['scaleTargetRef without kind and name', 'v2', { scaleTargetRef: {}, maxReplicas: 3 }, ['spec.scaleTargetRef.kind: Required value', 'spec.scaleTargetRef.name: Required value']],
    ['a name that is not a path segment', 'v2', { scaleTargetRef: { kind: 'Deployment', name: 'a/b' }, maxReplicas: 3 }, ["spec.scaleTargetRef.name: Invalid value: may not contain '/'"]],
    [
      'minReplicas 0 (HPAScaleToZero is off)',
      'v2',
      { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 3 },
      ['spec.minReplicas: Invalid value: must be greater than or equal to 1', 'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas'],
    ],
    ['maxReplicas below minReplicas', 'v2', { scaleTargetRef: ref, minReplicas: 4, maxReplicas: 3 }, ['spec.maxReplicas: Invalid value: must be greater than or equal to `minReplicas`']],
    ['no maxReplicas', 'v2', { scaleTargetRef: ref }, ['spec.maxReplicas: Invalid value: must be greater than 0']],
    [
      'an unknown metric type',
      'v2',
      { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Bogus' }] },
      ['spec.metrics[0].type: Unsupported value: supported values: "ContainerResource", "External", "Object", "Pods", "Resource"'],
    ],
    [
      'a resource metric with both targets',
      'v2',
      { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50, averageValue: '100m' } } }] },
      ['spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization'],
    ],
    [
      // Upstream checks only the first source present in depth (object, external, pods, resource, containerResource).
      'another source beside the one the type names',
      'v2',
      {
        scaleTargetRef: ref,
        maxReplicas: 3,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50, averageValue: '100m' } },
            pods: { metric: { name: 'x' }, target: { type: 'AverageValue', averageValue: '1' } },
          },
        ],
      },
      ['spec.metrics[0].pods: Forbidden: must populate the given metric source only'],
    ],
    [
      'a pods metric without a name or an average value, with a bad target type',
      'v2',
      { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Pods', pods: { metric: {}, target: { type: 'Average' } } }] },
      [
        'spec.metrics[0].pods.metric.name: Required value: must specify a metric name',
        'spec.metrics[0].pods.target.type: Invalid value: must be either Utilization, Value, or AverageValue',
        'spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue',
      ],
    ],
    [
      'an external metric with a non-positive value',
      'v2',
      { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '0' } } }] },
      ['spec.metrics[0].external.target.value: Invalid value: must be positive'],
    ],
    [
      'behavior policies out of bounds',
      'v2',
      {
        scaleTargetRef: ref,
        maxReplicas: 3,
        behavior: { scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Most', policies: [{ type: 'Nodes', value: 0, periodSeconds: 1801 }] }, scaleDown: { policies: [] } },
      },
      [
        'spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: must be less than or equal to 3600',
        'spec.behavior.scaleUp.selectPolicy: Unsupported value: supported values: "Disabled", "Max", "Min"',
        'spec.behavior.scaleUp.policies[0].type: Unsupported value: supported values: "Percent", "Pods"',
        'spec.behavior.scaleUp.policies[0].value: Invalid value: must be greater than zero',
        'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: must be less than or equal to 1800',
        'spec.behavior.scaleDown.policies: Required value: must specify at least one Policy',
      ],
    ],
    [
      // What a stored container metric is checked for on update (a create drops the source: HPAContainerMetrics is off).
      'a container metric naming a resource containers do not have and a container that is no DNS label',
      'v2',
      {
        scaleTargetRef: ref,
        maxReplicas: 3,
        metrics: [{ type: 'ContainerResource', containerResource: { name: 'pods', container: 'App_1', target: { type: 'Utilization', averageUtilization: 50 } } }],
      },
      [
        'spec.metrics[0].containerResource.name: Invalid value: must be a standard resource for containers',
        `spec.metrics[0].containerResource.container: Invalid value: ${isDNS1123Label('App_1', 'x')[0]!.detail}`,
      ],
    ],
    [
      'a container metric type without its source (what a create leaves of one while HPAContainerMetrics is off)',
      'v2',
      { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'ContainerResource' }] },
      ['spec.metrics[0].containerResource: Required value: must populate information for the given metric source (only allowed when HPAContainerMetrics feature is enabled)'],
    ],
    [
      'v1: a zero CPU target is reported at the metric it stands for, as upstream',
      'v1',
      { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 0 },
      ['spec.metrics[0].resource.target.averageUtilization: Invalid value: must be greater than 0'],
    ],
    [
      'v2beta1: a resource metric with no target',
      'v2beta1',
      { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'memory' } }] },
      ['spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization'],
    ],
  ];
  for (const [name, v, spec, errors] of cases) {
    it(name, () => assert.deepEqual(errorsOf(v, spec), errors));
  }

  it('an update may keep minReplicas 0 that is already stored', () => {
    const spec = { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 3, metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } } }] };
    assert.deepEqual(errorsOf('v2', spec, spec), []);
    assert.deepEqual(errorsOf('v2', spec, { ...spec, minReplicas: 1 }), ['spec.minReplicas: Invalid value: must be greater than or equal to 1']);
  });

  it('status writes: replica counts are not negative', () => {
    const served = target('v2').served;
    const old = hub({ metrics: [cpu(80)] }, { desiredReplicas: 1 });
    const next = { ...old, status: { currentReplicas: -1, desiredReplicas: 1 } };
    assert.deepEqual(
      registry.validate(served, next, old, 'status').map((e) => e.field),
      ['status.currentReplicas'],
    );
  });
});

describe('HorizontalPodAutoscaler strategy', () => {
  const strategy = horizontalpodautoscalers.strategy!;

  it('a create drops container metrics (HPAContainerMetrics is off) and the status v1 carries in annotations', () => {
    const o = read(target('v1'), STORED[6]![1]);
    delete o.status;
    strategy.prepareForCreate!(o, testStrategyContext);
    const ann = o.metadata.annotations!;
    assert.equal(ann[HPA_ANNOTATION.currentMetrics], undefined);
    assert.deepEqual(JSON.parse(ann[HPA_ANNOTATION.metrics]!), [{ type: 'ContainerResource' }]);
    const v2 = structuredClone(STORED[6]![1]);
    strategy.prepareForCreate!(v2, testStrategyContext);
    assert.deepEqual((v2.spec as Record<string, any>).metrics, [{ type: 'ContainerResource' }]);
  });

  it('an update keeps container metrics already stored, and the stored status annotations of a v1 object', () => {
    const t = target('v1');
    const old = read(t, STORED[6]![1]);
    const next = structuredClone(old);
    next.metadata.annotations![HPA_ANNOTATION.currentMetrics] = '[]';
    strategy.prepareForUpdate!(next, old, testStrategyContext);
    assert.deepEqual(next.metadata.annotations, old.metadata.annotations);
  });
});

describe('HorizontalPodAutoscaler table', () => {
  const table = (o: ApiObject) =>
    convert(value(o), { as: 'Table', group: 'meta.platform.io', version: 'v1' }, tableColumns(horizontalpodautoscalers.columns), 'None') as {
      columnDefinitions: Array<{ name: string }>;
      rows: Array<{ cells: unknown[] }>;
    };
  const targetsCell = (o: ApiObject) => table(o).rows[0]!.cells[2];

  it('has kubectl’s columns', () => {
    assert.deepEqual(
      table(STORED[0]![1]).columnDefinitions.map((c) => c.name),
      ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'],
    );
    assert.deepEqual(table(STORED[0]![1]).rows[0]!.cells.slice(0, 6), ['web', 'Deployment/web', '<unknown>/80%', '2', 5, 0]);
  });

  it('TARGETS reads the same through every version', () => {
    for (const [, stored] of STORED) {
      const cells = VERSIONS.map((v) => targetsCell(read(target(v), stored)));
      assert.deepEqual(new Set(cells).size, 1, `${JSON.stringify(cells)}`);
    }
    assert.equal(targetsCell(STORED[1]![1]), '60%/70%, 700Mi/1Gi');
    assert.equal(targetsCell(STORED[3]![1]), '<unknown>/70%, <unknown>/1Gi + 1 more...');
    assert.equal(targetsCell(STORED[5]![1]), '800/1k, 9k/10k + 3 more...');
    const avg = hub({ metrics: [(STORED[5]![1].spec as any).metrics[4]] }, { currentMetrics: [(STORED[5]![1].status as any).currentMetrics[4]] });
    assert.equal(targetsCell(avg), '5/20 (avg)');
    assert.equal(targetsCell(hub({ metrics: [] })), '<none>');
  });
});

describe('HorizontalPodAutoscaler versions', () => {
  it('v2 is stored and preferred; v2beta1 and v2beta2 carry upstream’s deprecation', () => {
    assert.equal(registry.storageVersion(horizontalpodautoscalers), 'v2');
    assert.equal(registry.group('autoscaling')!.preferredVersion, 'v2');
    const warn = (v: string) => {
      const d = horizontalpodautoscalers.versions.find((x) => x.name === v)!.deprecation;
      return d && deprecationWarning('autoscaling', v, 'HorizontalPodAutoscaler', d);
    };
    assert.equal(warn('v2beta1'), 'autoscaling/v2beta1 HorizontalPodAutoscaler is deprecated in v1.22+, unavailable in v1.25+; use autoscaling/v2 HorizontalPodAutoscaler');
    assert.equal(warn('v2beta2'), 'autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler');
    assert.equal(warn('v1'), undefined);
    assert.equal(warn('v2'), undefined);
  });
});
