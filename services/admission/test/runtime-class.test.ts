import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createRuntimeClassPlugin } from '../plugins/pods/runtime-class.js';
import { compareQuantities, resourceListsEqual } from '../../../shared/api/quantity.js';
import { mergeTolerations } from '../plugins/pods/pod-fields.js';
import { admitted, cacheOf, pod, request, run, type Outcome, type RequestInit } from './defaulting-fixtures.js';

const NODE = 'node.platform.io';
const rc = (name: string, extra: Record<string, unknown> = {}): ApiObject => ({ apiVersion: `${NODE}/v1`, kind: 'RuntimeClass', metadata: { name }, handler: name, ...extra });

const GVISOR = rc('gvisor', {
  overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
  scheduling: { nodeSelector: { sandbox: 'gvisor' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
});
const PLAIN = rc('runc');
const CLASSES = [GVISOR, PLAIN];

function setup(classes: ApiObject[] = CLASSES, live: ApiObject[] = []) {
  const cache = cacheOf(NODE, 'runtimeclasses', classes, live);
  const plugin = createRuntimeClassPlugin(cache);
  return { cache, run: (init: RequestInit) => run(plugin, request({ namespace: 'ns1', ...init })) };
}

const forbidden = (message: string): Outcome => ({ code: 403, message: `pods "web" is forbidden: ${message}` });

test('RuntimeClass - mutating: overhead and scheduling from the class', async (t) => {
  const cases: Array<{ name: string; pod: ApiObject; want: Record<string, unknown> }> = [
    {
      name: 'overhead, node selector and tolerations',
      pod: pod({ runtimeClassName: 'gvisor' }),
      want: { overhead: { cpu: '250m', memory: '120Mi' }, nodeSelector: { sandbox: 'gvisor' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    },
    {
      name: "the pod's selector and tolerations are kept beside the class's",
      pod: pod({ runtimeClassName: 'gvisor', nodeSelector: { zone: 'a' }, tolerations: [{ key: 'gpu', operator: 'Exists' }] }),
      want: {
        nodeSelector: { zone: 'a', sandbox: 'gvisor' },
        tolerations: [
          { key: 'gpu', operator: 'Exists' },
          { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' },
        ],
      },
    },
    {
      name: "a pod toleration that covers the class's makes it redundant",
      pod: pod({ runtimeClassName: 'gvisor', tolerations: [{ key: 'sandbox', operator: 'Exists' }] }),
      want: { tolerations: [{ key: 'sandbox', operator: 'Exists' }] },
    },
    { name: 'the same overhead stated in other units', pod: pod({ runtimeClassName: 'gvisor', overhead: { cpu: '0.25', memory: '125829120' } }), want: { overhead: { cpu: '250m', memory: '120Mi' } } },
    { name: 'a class without overhead or scheduling changes nothing', pod: pod({ runtimeClassName: 'runc' }), want: { overhead: undefined, nodeSelector: undefined, tolerations: undefined } },
    { name: 'no class', pod: pod(), want: { overhead: undefined } },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const spec = admitted(await setup().run({ object: c.pod })).spec as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.want)) assert.deepEqual(spec[k], v, k);
    });
  }
});

test('RuntimeClass - refusals', async (t) => {
  const cases: Array<{ name: string; init: RequestInit; want: Outcome }> = [
    { name: 'an unknown class', init: { object: pod({ runtimeClassName: 'kata' }) }, want: forbidden('pod rejected: RuntimeClass "kata" not found') },
    { name: 'validating: an unknown class', init: { phase: 'validating', object: pod({ runtimeClassName: 'kata' }) }, want: forbidden('pod rejected: RuntimeClass "kata" not found') },
    {
      name: "an overhead other than the class's",
      init: { object: pod({ runtimeClassName: 'gvisor', overhead: { cpu: '1' } }) },
      want: forbidden("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"),
    },
    {
      name: 'a node selector the class contradicts',
      init: { object: pod({ runtimeClassName: 'gvisor', nodeSelector: { sandbox: 'kata' } }) },
      want: forbidden('conflict: runtimeClass.scheduling.nodeSelector[sandbox] = gvisor; pod.spec.nodeSelector[sandbox] = kata'),
    },
    {
      name: 'validating: an overhead with no class',
      init: { phase: 'validating', object: pod({ overhead: { cpu: '1' } }) },
      want: forbidden('pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'),
    },
    {
      name: 'validating: an overhead under a class without one',
      init: { phase: 'validating', object: pod({ runtimeClassName: 'runc', overhead: { cpu: '1' } }) },
      want: forbidden('pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'),
    },
    {
      name: 'validating: an overhead changed after the mutating phase',
      init: { phase: 'validating', object: pod({ runtimeClassName: 'gvisor', overhead: { cpu: '250m' } }) },
      want: forbidden("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"),
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => assert.deepEqual(await setup().run(c.init), c.want));
  }
});

test("RuntimeClass - validating passes the class's overhead; subresources are not judged", async () => {
  admitted(await setup().run({ phase: 'validating', object: pod({ runtimeClassName: 'gvisor', overhead: { cpu: '250m', memory: '120Mi' } }) }));
  admitted(await setup().run({ sub: 'binding', object: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' } } }));
});

test('RuntimeClass - a class the cache has not seen yet is read; the pod does not share the cached class', async () => {
  const s = setup([], [GVISOR]);
  const spec = admitted(await s.run({ object: pod({ runtimeClassName: 'gvisor' }) })).spec as any;
  assert.deepEqual(s.cache.reads, ['/gvisor']);
  const cached = setup();
  const spec2 = admitted(await cached.run({ object: pod({ runtimeClassName: 'gvisor' }) })).spec as any;
  spec2.overhead.cpu = '9';
  spec2.tolerations[0].key = 'changed';
  const again = admitted(await cached.run({ object: pod({ runtimeClassName: 'gvisor' }) })).spec as any;
  assert.deepEqual([spec.overhead.cpu, again.overhead.cpu, again.tolerations[0].key], ['250m', '250m', 'sandbox']);
});

test('quantities compare by value', () => {
  const cases: Array<[unknown, unknown, number]> = [
    ['1', '1000m', 0],
    ['1Gi', '1073741824', 0],
    ['1Gi', '1G', 1],
    ['500m', 0.5, 0],
    ['2e3', '2k', 0],
    ['1.5Gi', '1536Mi', 0],
    ['10Gi', '5Gi', 1],
    ['-1', '0', -1],
    ['.5', '500m', 0],
  ];
  for (const [a, b, want] of cases) assert.equal(compareQuantities(a, b), want, `${String(a)} vs ${String(b)}`);
  assert.equal(resourceListsEqual({ cpu: '1' }, { cpu: '1000m' }), true);
  assert.equal(resourceListsEqual({ cpu: '1' }, { cpu: '1', memory: '1' }), false);
  assert.equal(resourceListsEqual(undefined, {}), true);
});

test('tolerations merge without redundancy', () => {
  const t = (key: string, operator: string, extra: Record<string, unknown> = {}) => ({ key, operator, ...extra });
  const cases: Array<{ name: string; a: any[]; b: any[]; want: any[] }> = [
    { name: 'disjoint', a: [t('a', 'Exists')], b: [t('b', 'Exists')], want: [t('a', 'Exists'), t('b', 'Exists')] },
    { name: 'equal: the first kept', a: [t('a', 'Exists')], b: [t('a', 'Exists')], want: [t('a', 'Exists')] },
    { name: 'a later superset replaces', a: [t('a', 'Equal', { value: 'x', effect: 'NoSchedule' })], b: [t('a', 'Exists')], want: [t('a', 'Exists')] },
    { name: 'empty key Exists covers all', a: [t('', 'Exists')], b: [t('a', 'Exists', { effect: 'NoExecute' })], want: [t('', 'Exists')] },
    {
      name: 'a NoExecute toleration for longer covers one for less time, not one forever',
      a: [t('a', 'Exists', { effect: 'NoExecute', tolerationSeconds: 60 }), t('b', 'Exists', { effect: 'NoExecute' })],
      b: [t('a', 'Exists', { effect: 'NoExecute', tolerationSeconds: 300 }), t('b', 'Exists', { effect: 'NoExecute', tolerationSeconds: 30 })],
      want: [t('b', 'Exists', { effect: 'NoExecute' }), t('a', 'Exists', { effect: 'NoExecute', tolerationSeconds: 300 })],
    },
  ];
  for (const c of cases) assert.deepEqual(mergeTolerations(c.a, c.b), c.want, c.name);
});
