import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
// The service's configuration module first: it loads every plugin folder in order.
import '../config.js';
import { limitRangerPlugin } from '../plugins/limits/limit-ranger.js';
import { LIMIT_RANGER_ANNOTATION } from '../plugins/limits/limits.js';
import { StatusError } from '../../../shared/api/status.js';
import { container, CTX, depsOf, FakeStore, forbiddenPod, NS, pod, request, validate, type Outcome } from './resource-quota-fixtures.js';

type Json = Record<string, unknown>;

function limitRange(name: string, ...limits: Json[]): ApiObject {
  return { apiVersion: 'v1', kind: 'LimitRange', metadata: { name, namespace: NS }, spec: { limits } };
}

function setup(...ranges: ApiObject[]) {
  const store = new FakeStore('', 'limitranges', ranges);
  return { store, plugin: limitRangerPlugin.create(depsOf([store])) as Awaited<ReturnType<typeof limitRangerPlugin.create>> };
}

async function mutate(ranges: ApiObject[], p: ApiObject): Promise<ApiObject> {
  const { plugin } = setup(...ranges);
  const req = request('pods', structuredClone(p), { phase: 'mutating' });
  await plugin.mutate!(req, CTX);
  return req.object!;
}

const resourcesOf = (p: ApiObject, field = 'containers') => ((p.spec as Json)[field] as Array<{ resources?: unknown }>).map((c) => c.resources);

test('LimitRanger defaults - containers get the default requests and limits they lack', async (t) => {
  const defaults = limitRange('defaults', { type: 'Container', default: { cpu: '500m', memory: '0.5Gi' }, defaultRequest: { cpu: '0.1', memory: '256Mi' } });
  const cases: Array<{ name: string; ranges: ApiObject[]; pod: ApiObject; want: unknown[]; initWant?: unknown[]; annotation?: string | undefined }> = [
    {
      name: 'nothing set: everything defaulted, in canonical form',
      ranges: [defaults],
      pod: pod('p', { containers: [container('app')] }),
      want: [{ limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m', memory: '256Mi' } }],
      annotation: 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app',
    },
    {
      name: 'what is set is kept',
      ranges: [defaults],
      pod: pod('p', { containers: [container('app', { cpu: '1' }, { memory: '1Gi' })] }),
      want: [{ limits: { memory: '1Gi', cpu: '500m' }, requests: { cpu: '1', memory: '256Mi' } }],
      annotation: 'LimitRanger plugin set: memory request for container app; cpu limit for container app',
    },
    {
      name: 'init containers too',
      ranges: [limitRange('d', { type: 'Container', defaultRequest: { cpu: '100m' } })],
      pod: pod('p', { containers: [container('app', { cpu: '200m' })], initContainers: [container('init')] }),
      want: [{ requests: { cpu: '200m' } }],
      initWant: [{ requests: { cpu: '100m' } }],
      annotation: 'LimitRanger plugin set: cpu request for init container init',
    },
    {
      name: 'everything already set: no annotation',
      ranges: [defaults],
      pod: pod('p', { containers: [container('app', { cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })] }),
      want: [{ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } }],
      annotation: undefined,
    },
    { name: 'only Pod limits: nothing defaulted', ranges: [limitRange('p', { type: 'Pod', max: { cpu: '2' } })], pod: pod('p'), want: [undefined], annotation: undefined },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const out = await mutate(c.ranges, c.pod);
      assert.deepEqual(resourcesOf(out), c.want);
      if (c.initWant) assert.deepEqual(resourcesOf(out, 'initContainers'), c.initWant);
      assert.equal(out.metadata.annotations?.[LIMIT_RANGER_ANNOTATION], c.annotation);
    });
  }
});

test('LimitRanger defaults - only pod creation is mutated', async () => {
  const { plugin } = setup(limitRange('d', { type: 'Container', defaultRequest: { cpu: '100m' } }));
  for (const req of [
    request('pods', pod('p'), { phase: 'mutating', operation: 'UPDATE', old: pod('p') }),
    request('pods', pod('p'), { phase: 'mutating', sub: 'status' }),
    request('persistentvolumeclaims', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: NS }, spec: {} }, { phase: 'mutating' }),
  ]) {
    const before = structuredClone(req.object);
    await plugin.mutate!(req, CTX);
    assert.deepEqual(req.object, before, `${req.operation} ${req.resource.resource}/${req.subResource ?? ''}`);
  }
});

test("LimitRanger validation - min, max and ratio, with upstream's messages", async (t) => {
  const claim = (storage?: string): ApiObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: NS },
    spec: storage ? { resources: { requests: { storage } } } : {},
  });
  const forbiddenClaim = (why: string): Outcome => ({ code: 403, message: `persistentvolumeclaims "c" is forbidden: ${why}` });
  const cases: Array<{ name: string; ranges: ApiObject[]; object: ApiObject; resource?: string; want: Outcome }> = [
    {
      name: 'within bounds',
      ranges: [limitRange('l', { type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } })],
      object: pod('p', { containers: [container('c', { cpu: '200m' }, { cpu: '500m' })] }),
      want: 'allowed',
    },
    {
      name: 'container request under min',
      ranges: [limitRange('l', { type: 'Container', min: { cpu: '100m' } })],
      object: pod('p', { containers: [container('c', { cpu: '50m' })] }),
      want: forbiddenPod('p', 'minimum cpu usage per Container is 100m, but request is 50m'),
    },
    {
      name: 'container without a request for a min',
      ranges: [limitRange('l', { type: 'Container', min: { memory: '64Mi' } })],
      object: pod('p'),
      want: forbiddenPod('p', 'minimum memory usage per Container is 64Mi.  No request is specified'),
    },
    {
      name: 'container limit under min',
      ranges: [limitRange('l', { type: 'Container', min: { cpu: '100m' } })],
      object: pod('p', { containers: [container('c', { cpu: '100m' }, { cpu: '0.05' })] }),
      want: forbiddenPod('p', 'minimum cpu usage per Container is 100m, but limit is 50m'),
    },
    {
      name: 'container without a limit for a max',
      ranges: [limitRange('l', { type: 'Container', max: { cpu: '1' } })],
      object: pod('p', { containers: [container('c', { cpu: '100m' })] }),
      want: forbiddenPod('p', 'maximum cpu usage per Container is 1.  No limit is specified'),
    },
    {
      name: 'container limit over max',
      ranges: [limitRange('l', { type: 'Container', max: { memory: '1Gi' } })],
      object: pod('p', { containers: [container('c', undefined, { memory: '2Gi' })] }),
      want: forbiddenPod('p', 'maximum memory usage per Container is 1Gi, but limit is 2Gi'),
    },
    {
      name: 'container request over max',
      ranges: [limitRange('l', { type: 'Container', max: { memory: '1Gi' } })],
      object: pod('p', { containers: [container('c', { memory: '2Gi' }, { memory: '1Gi' })] }),
      want: forbiddenPod('p', 'maximum memory usage per Container is 1Gi, but request is 2Gi'),
    },
    {
      name: 'several violations: bracketed, container rules then pod rules',
      ranges: [limitRange('l', { type: 'Container', min: { cpu: '100m' } }, { type: 'Pod', max: { memory: '1Gi' } })],
      object: pod('p', { containers: [container('c', { cpu: '50m' }, { memory: '2Gi' })] }),
      want: forbiddenPod('p', '[minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Pod is 1Gi, but limit is 2Gi]'),
    },
    {
      name: 'the same violation in two containers is said once',
      ranges: [limitRange('l', { type: 'Container', min: { cpu: '100m' } })],
      object: pod('p', { containers: [container('a', { cpu: '50m' }), container('b', { cpu: '50m' })] }),
      want: forbiddenPod('p', 'minimum cpu usage per Container is 100m, but request is 50m'),
    },
    {
      name: 'pod totals sum the containers',
      ranges: [limitRange('l', { type: 'Pod', max: { cpu: '1' } })],
      object: pod('p', { containers: [container('a', undefined, { cpu: '600m' }), container('b', undefined, { cpu: '600m' })] }),
      want: forbiddenPod('p', 'maximum cpu usage per Pod is 1, but limit is 1200m'),
    },
    {
      name: 'pod totals: a container without the limit leaves the pod without one',
      ranges: [limitRange('l', { type: 'Pod', max: { cpu: '1' } })],
      object: pod('p', { containers: [container('a', undefined, { cpu: '600m' }), container('b')] }),
      want: forbiddenPod('p', 'maximum cpu usage per Pod is 1.  No limit is specified'),
    },
    {
      name: 'pod totals: the largest init container counts',
      ranges: [limitRange('l', { type: 'Pod', max: { cpu: '1' } })],
      object: pod('p', { containers: [container('a', undefined, { cpu: '500m' })], initContainers: [container('i', undefined, { cpu: '2' })] }),
      want: forbiddenPod('p', 'maximum cpu usage per Pod is 1, but limit is 2'),
    },
    {
      name: 'pod totals: overhead is added',
      ranges: [limitRange('l', { type: 'Pod', max: { cpu: '1' } })],
      object: pod('p', { containers: [container('a', undefined, { cpu: '900m' })], overhead: { cpu: '200m' } }),
      want: forbiddenPod('p', 'maximum cpu usage per Pod is 1, but limit is 1100m'),
    },
    {
      name: 'ratio over the maximum',
      ranges: [limitRange('l', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } })],
      object: pod('p', { containers: [container('c', { cpu: '100m' }, { cpu: '400m' })] }),
      want: forbiddenPod('p', 'cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000'),
    },
    {
      name: 'ratio within',
      ranges: [limitRange('l', { type: 'Container', maxLimitRequestRatio: { memory: '2' } })],
      object: pod('p', { containers: [container('c', { memory: '1Gi' }, { memory: '2Gi' })] }),
      want: 'allowed',
    },
    {
      name: 'ratio without a request',
      ranges: [limitRange('l', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } })],
      object: pod('p', { containers: [container('c', undefined, { cpu: '1' })] }),
      want: forbiddenPod('p', 'cpu max limit to request ratio per Container is 2, but no request is specified or request is 0'),
    },
    {
      name: 'ratio without a limit',
      ranges: [limitRange('l', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } })],
      object: pod('p', { containers: [container('c', { cpu: '1' })] }),
      want: forbiddenPod('p', 'cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0'),
    },
    {
      name: 'init containers are held to Container bounds',
      ranges: [limitRange('l', { type: 'Container', max: { cpu: '1' } })],
      object: pod('p', { containers: [container('c', undefined, { cpu: '1' })], initContainers: [container('i', undefined, { cpu: '2' })] }),
      want: forbiddenPod('p', 'maximum cpu usage per Container is 1, but limit is 2'),
    },
    {
      name: 'claim over max storage',
      ranges: [limitRange('l', { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } })],
      object: claim('20Gi'),
      resource: 'persistentvolumeclaims',
      want: forbiddenClaim('maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'),
    },
    {
      name: 'claim under min storage',
      ranges: [limitRange('l', { type: 'PersistentVolumeClaim', min: { storage: '1Gi' } })],
      object: claim('500Mi'),
      resource: 'persistentvolumeclaims',
      want: forbiddenClaim('minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi'),
    },
    {
      name: 'claim without a request',
      ranges: [limitRange('l', { type: 'PersistentVolumeClaim', max: { storage: '10Gi' } })],
      object: claim(),
      resource: 'persistentvolumeclaims',
      want: forbiddenClaim('maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified'),
    },
    { name: 'claim within', ranges: [limitRange('l', { type: 'PersistentVolumeClaim', max: { storage: '10Gi' } })], object: claim('5Gi'), resource: 'persistentvolumeclaims', want: 'allowed' },
    { name: 'Container bounds do not apply to claims', ranges: [limitRange('l', { type: 'Container', max: { cpu: '1' } })], object: claim('5Gi'), resource: 'persistentvolumeclaims', want: 'allowed' },
    { name: 'no LimitRange', ranges: [], object: pod('p', { containers: [container('c', { cpu: '64' })] }), want: 'allowed' },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const { plugin } = setup(...c.ranges);
      assert.deepEqual(await validate(plugin, request(c.resource ?? 'pods', c.object)), c.want);
    });
  }
});

test('LimitRanger validation - claim updates are checked unless the claim is going away; pod updates never', async () => {
  const { plugin } = setup(limitRange('l', { type: 'PersistentVolumeClaim', max: { storage: '10Gi' } }, { type: 'Container', max: { cpu: '1' } }));
  const claim = (storage: string, extra: Json = {}): ApiObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: NS, ...extra },
    spec: { resources: { requests: { storage } } },
  });
  const grow = await validate(plugin, request('persistentvolumeclaims', claim('20Gi'), { operation: 'UPDATE', old: claim('5Gi') }));
  assert.equal((grow as { code: number }).code, 403);
  assert.equal(await validate(plugin, request('persistentvolumeclaims', claim('20Gi'), { operation: 'UPDATE', old: claim('20Gi', { deletionTimestamp: '2024-01-01T00:00:00Z' }) })), 'allowed');
  const big = pod('p', { containers: [container('c', undefined, { cpu: '2' })] });
  assert.equal(await validate(plugin, request('pods', big, { operation: 'UPDATE', old: big })), 'allowed');
});

test('LimitRanger - mutate then validate: defaults from max satisfy the bounds', async () => {
  // As stored after the LimitRange defaults: max becomes the default limit and the default request.
  const lr = limitRange('l', { type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } });
  const out = await mutate([lr], pod('p'));
  const { plugin } = setup(lr);
  assert.equal(await validate(plugin, request('pods', out)), 'allowed');
  await assert.rejects(
    async () => plugin.validate!(request('pods', pod('p', { containers: [container('c', undefined, { cpu: '2' })] })), CTX),
    (e: unknown) => e instanceof StatusError && e.code === 403,
  );
});

test('LimitRanger - the match: claim updates only while some LimitRange bounds claims', async () => {
  const { store, plugin } = setup(limitRange('l', { type: 'Container', max: { cpu: '1' } }));
  await new Promise((r) => setImmediate(r));
  const resources = [
    { group: '', resource: 'pods' },
    { group: '', resource: 'persistentvolumeclaims' },
  ];
  assert.deepEqual(plugin.match, { operations: ['CREATE'], resources });
  store.put(limitRange('claims', { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } }));
  assert.deepEqual(plugin.match, { operations: ['CREATE', 'UPDATE'], resources });
});
