import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createPriorityPlugin, defaultPriorityClass } from '../plugins/pods/priority.js';
import { admitted, cacheOf, pod, request, run, type Outcome, type RequestInit } from './defaulting-fixtures.js';

const SCHEDULING = 'scheduling.platform.io';
const pc = (name: string, value: number, extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: `${SCHEDULING}/v1`,
  kind: 'PriorityClass',
  metadata: { name },
  value,
  preemptionPolicy: 'PreemptLowerPriority',
  ...extra,
});

const SYSTEM = [pc('system-node-critical', 2_000_001_000), pc('system-cluster-critical', 2_000_000_000)];
const HIGH = pc('high', 1000);
const BATCH = pc('batch', 10, { preemptionPolicy: 'Never' });

function setup(classes: ApiObject[], live: ApiObject[] = []) {
  const cache = cacheOf(SCHEDULING, 'priorityclasses', classes, live);
  const plugin = createPriorityPlugin(cache);
  return { cache, plugin, run: (init: RequestInit) => run(plugin, request({ namespace: 'ns1', ...init })) };
}

const podForbidden = (message: string): Outcome => ({ code: 403, message: `pods "web" is forbidden: ${message}` });

test('Priority - new pods get the priority and preemption policy of their class', async (t) => {
  const cases: Array<{ name: string; classes: ApiObject[]; pod: ApiObject; want: Record<string, unknown> }> = [
    { name: 'no class, no default: 0', classes: [...SYSTEM, HIGH], pod: pod(), want: { priority: 0, preemptionPolicy: 'PreemptLowerPriority' } },
    { name: 'a named class', classes: [...SYSTEM, HIGH], pod: pod({ priorityClassName: 'high' }), want: { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'PreemptLowerPriority' } },
    { name: 'a class that never preempts', classes: [BATCH], pod: pod({ priorityClassName: 'batch' }), want: { priorityClassName: 'batch', priority: 10, preemptionPolicy: 'Never' } },
    { name: 'a system class in any namespace', classes: SYSTEM, pod: pod({ priorityClassName: 'system-node-critical' }), want: { priorityClassName: 'system-node-critical', priority: 2_000_001_000 } },
    {
      name: 'no class: the global default, named on the pod',
      classes: [HIGH, pc('standard', 100, { globalDefault: true, preemptionPolicy: 'Never' })],
      pod: pod(),
      want: { priorityClassName: 'standard', priority: 100, preemptionPolicy: 'Never' },
    },
    { name: "a stated priority equal to the class's", classes: [HIGH], pod: pod({ priorityClassName: 'high', priority: 1000 }), want: { priority: 1000 } },
    { name: "a stated policy equal to the class's", classes: [BATCH], pod: pod({ priorityClassName: 'batch', preemptionPolicy: 'Never' }), want: { preemptionPolicy: 'Never' } },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const spec = admitted(await setup(c.classes).run({ object: c.pod })).spec as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.want)) assert.deepEqual(spec[k], v, k);
    });
  }
});

test('Priority - refusals', async (t) => {
  const cases: Array<{ name: string; classes: ApiObject[]; pod: ApiObject; want: Outcome }> = [
    { name: 'an unknown class', classes: SYSTEM, pod: pod({ priorityClassName: 'ghost' }), want: podForbidden('no PriorityClass with name ghost was found') },
    {
      name: "a priority other than the class's",
      classes: [HIGH],
      pod: pod({ priorityClassName: 'high', priority: 5 }),
      want: podForbidden('the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name'),
    },
    {
      name: 'a priority with no class and no default',
      classes: [],
      pod: pod({ priority: 7 }),
      want: podForbidden('the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name'),
    },
    {
      name: "a preemption policy other than the class's",
      classes: [HIGH],
      pod: pod({ priorityClassName: 'high', preemptionPolicy: 'Never' }),
      want: podForbidden(
        'the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
      ),
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => assert.deepEqual(await setup(c.classes).run({ object: c.pod }), c.want));
  }
});

test('Priority - a class the cache has not seen yet is read before the pod is refused', async () => {
  const s = setup([], [HIGH]);
  assert.equal((admitted(await s.run({ object: pod({ priorityClassName: 'high' }) })).spec as any).priority, 1000);
  assert.deepEqual(s.cache.reads, ['/high']);
});

test('Priority - updates keep what creation set when the client leaves it out', async (t) => {
  const old = pod({ priorityClassName: 'high', priority: 1000, preemptionPolicy: 'PreemptLowerPriority' });
  const cases: Array<{ name: string; next: ApiObject; want: Record<string, unknown> }> = [
    { name: 'both left out', next: pod({ priorityClassName: 'high' }), want: { priority: 1000, preemptionPolicy: 'PreemptLowerPriority' } },
    { name: 'a changed priority is left for validation to refuse', next: pod({ priorityClassName: 'high', priority: 3 }), want: { priority: 3 } },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const spec = admitted(await setup([HIGH]).run({ operation: 'UPDATE', object: c.next, old })).spec as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.want)) assert.deepEqual(spec[k], v, k);
    });
  }
});

test('Priority - subresources and other resources pass untouched', async (t) => {
  const cases: RequestInit[] = [
    { sub: 'status', operation: 'UPDATE', object: pod({ priorityClassName: 'ghost' }) },
    { sub: 'binding', object: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' } } },
    { resource: 'configmaps', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } },
  ];
  for (const init of cases) {
    await t.test(`${init.resource ?? 'pods'}/${init.sub ?? ''}`, async () => {
      const out = admitted(await setup([]).run(init));
      assert.deepEqual(out, init.object);
    });
  }
});

test('Priority - at most one global default PriorityClass', async (t) => {
  const standard = pc('standard', 100, { globalDefault: true });
  const pcReq = (operation: 'CREATE' | 'UPDATE', object: ApiObject): RequestInit => ({ phase: 'validating', group: SCHEDULING, resource: 'priorityclasses', operation, object });
  const cases: Array<{ name: string; classes: ApiObject[]; init: RequestInit; want: Outcome | 'allowed' }> = [
    { name: 'the first default', classes: [HIGH], init: pcReq('CREATE', pc('standard', 100, { globalDefault: true })), want: 'allowed' },
    { name: 'a class that is not default', classes: [standard], init: pcReq('CREATE', pc('other', 5)), want: 'allowed' },
    {
      name: 'a second default',
      classes: [standard],
      init: pcReq('CREATE', pc('other', 5, { globalDefault: true })),
      want: { code: 403, message: 'priorityclasses.scheduling.platform.io "other" is forbidden: PriorityClass standard is already marked as default. Only one default can exist' },
    },
    {
      name: 'marking another class default',
      classes: [standard, HIGH],
      init: pcReq('UPDATE', pc('high', 1000, { globalDefault: true })),
      want: { code: 403, message: 'priorityclasses.scheduling.platform.io "high" is forbidden: PriorityClass standard is already marked as default. Only one default can exist' },
    },
    { name: 'updating the default itself', classes: [standard], init: pcReq('UPDATE', pc('standard', 100, { globalDefault: true, description: 'new' })), want: 'allowed' },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const out = await setup(c.classes).run(c.init);
      if (c.want === 'allowed') admitted(out);
      else assert.deepEqual(out, c.want);
    });
  }
});

test('Priority - of two defaults (a race) the lowest value wins', () => {
  assert.equal(defaultPriorityClass([pc('a', 50, { globalDefault: true }), pc('b', 20, { globalDefault: true }), pc('c', 1)])?.metadata.name, 'b');
  assert.equal(defaultPriorityClass([pc('c', 1)]), undefined);
});
