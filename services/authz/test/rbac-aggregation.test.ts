import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KV } from '@nats-io/kv';
import type { LabelSelectorObject } from '../../../shared/api/labels.js';
import type { PolicyRule } from '../../../shared/bus/messages.js';
import { silentLogger } from '../../../shared/log.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { groupFilter, startObjectFeed, type ObjectFeed } from '../../../shared/store/object-feed.js';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { createStorageService, type StorageService } from '../../storage/service.js';
import type { InternalStore } from '../../../shared/registry/rest/internal-store.js';
import { createInternalStore } from '../internal-store.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { startFakeAdmission, type FakeAdmission } from '../../../test/support/fake-admission.js';

const registry = createBuiltinRegistry();
import { aggregateRules, startAggregation, type AggregationController, type AggregationSource } from '../rbac/aggregation.js';
import { RbacState } from '../rbac/state.js';
import { RBAC_GROUP } from '../../../shared/api/groups.js';

const r = (verb: string, resource: string): PolicyRule => ({ verbs: [verb], apiGroups: [''], resources: [resource] });

const roles: AggregationSource[] = [
  { name: 'zeta', labels: { agg: 'view', tier: 'gold' }, rules: [r('get', 'zebras'), r('get', 'pods')] },
  { name: 'alpha', labels: { agg: 'view' }, rules: [r('get', 'pods'), r('list', 'pods')] },
  { name: 'beta', labels: { agg: 'edit', tier: 'silver' }, rules: [r('update', 'pods')] },
  { name: 'gamma', labels: {}, rules: [r('delete', 'pods')] },
  { name: 'self', labels: { agg: 'view' }, rules: [r('get', 'own-rules')] },
];

test('rbac aggregation - the union of the selected roles’ rules, de-duplicated, in a fixed order', () => {
  const cases: Array<{ name: string; selectors: LabelSelectorObject[]; want: PolicyRule[] }> = [
    { name: 'matchLabels, roles by name, never the role itself', selectors: [{ matchLabels: { agg: 'view' } }], want: [r('get', 'pods'), r('list', 'pods'), r('get', 'zebras')] },
    {
      name: 'selectors in order',
      selectors: [{ matchLabels: { agg: 'edit' } }, { matchLabels: { agg: 'view' } }],
      want: [r('update', 'pods'), r('get', 'pods'), r('list', 'pods'), r('get', 'zebras')],
    },
    {
      name: 'a role picked by two selectors counts once',
      selectors: [{ matchLabels: { tier: 'gold' } }, { matchLabels: { agg: 'view' } }],
      want: [r('get', 'zebras'), r('get', 'pods'), r('list', 'pods')],
    },
    { name: 'In', selectors: [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] }], want: [r('update', 'pods'), r('get', 'zebras'), r('get', 'pods')] },
    { name: 'NotIn (roles without the label too)', selectors: [{ matchExpressions: [{ key: 'agg', operator: 'NotIn', values: ['view'] }] }], want: [r('update', 'pods'), r('delete', 'pods')] },
    { name: 'Exists', selectors: [{ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }], want: [r('update', 'pods'), r('get', 'zebras'), r('get', 'pods')] },
    { name: 'DoesNotExist', selectors: [{ matchExpressions: [{ key: 'agg', operator: 'DoesNotExist' }] }], want: [r('delete', 'pods')] },
    {
      name: 'labels and expressions together',
      selectors: [{ matchLabels: { agg: 'view' }, matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }],
      want: [r('get', 'pods'), r('list', 'pods')],
    },
    { name: 'an empty selector selects every other role', selectors: [{}], want: [r('get', 'pods'), r('list', 'pods'), r('update', 'pods'), r('delete', 'pods'), r('get', 'zebras')] },
    { name: 'no selectors', selectors: [], want: [] },
    {
      name: 'a selector that cannot be parsed selects nothing',
      selectors: [{ matchExpressions: [{ key: 'agg', operator: 'Near', values: ['x'] }] }, { matchLabels: { agg: 'edit' } }],
      want: [r('update', 'pods')],
    },
  ];
  for (const c of cases) {
    assert.deepEqual(aggregateRules('self', c.selectors, roles), c.want, c.name);
    assert.deepEqual(aggregateRules('self', c.selectors, [...roles].reverse()), c.want, `${c.name} (input order does not matter)`);
  }
});

describe('rbac aggregation controller', () => {
  let nats: TestNats;
  let storage: StorageService;
  let admission: FakeAdmission;
  let kv: KV;
  before(async () => {
    nats = await startTestNats();
    storage = await createStorageService({ nc: await nats.connect('storage') });
    admission = await startFakeAdmission(await nats.connect('admission'));
    kv = storage.kv;
  });
  after(async () => {
    await admission.stop();
    await storage.stop();
    await nats.stop();
  });

  const key = (name: string) => encodeKey({ group: RBAC_GROUP, resource: 'clusterroles', name });
  const putRole = (name: string, labels: Record<string, string>, rules: PolicyRule[], aggregationRule?: object) =>
    kv.put(key(name), JSON.stringify({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name, labels }, rules, ...(aggregationRule ? { aggregationRule } : {}) }));
  const stored = async (name: string) => {
    const e = await kv.get(key(name));
    return e?.operation === 'PUT' ? { revision: e.revision, rules: (e.json<{ rules?: PolicyRule[] }>().rules ?? []) as PolicyRule[] } : null;
  };
  async function until<T>(f: () => Promise<T | null | false>, ms = 3_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await f();
      if (v) return v;
      if (Date.now() > end) throw new Error('condition not reached');
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  test('rbac aggregation - two replicas race to write the aggregate; it converges once and stays put', async () => {
    const replicas: Array<{ feed: ObjectFeed; ctl: AggregationController; internal: InternalStore }> = [];
    for (let i = 0; i < 2; i++) {
      const nc = await nats.connect(`authz-${i}`);
      const rbac = new RbacState();
      const feed = startObjectFeed({ nc, bucket: 'objects', filters: [groupFilter(RBAC_GROUP)], onEvent: (e) => rbac.apply(e), log: silentLogger() });
      await feed.synced;
      const internal = createInternalStore({ nc, registry, log: silentLogger() });
      replicas.push({ feed, internal, ctl: startAggregation({ internal, rbac, log: silentLogger(), retryMs: 50 }) });
    }
    try {
      await putRole('team-view', {}, [], { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-team-view': 'true' } }] });
      await putRole('team-edit', { 'example.com/aggregate-to-team-view': 'true' }, [], { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-team-edit': 'true' } }] });
      await putRole('widgets', { 'example.com/aggregate-to-team-edit': 'true' }, [r('update', 'widgets')]);
      await putRole('gadgets', { 'example.com/aggregate-to-team-view': 'true' }, [r('get', 'gadgets')]);
      // team-view gathers gadgets directly and widgets through team-edit's aggregate.
      const view = await until(async () => {
        const s = await stored('team-view');
        return s && s.rules.length === 2 ? s : null;
      });
      assert.deepEqual(view.rules, [r('get', 'gadgets'), r('update', 'widgets')]);
      assert.deepEqual((await stored('team-edit'))!.rules, [r('update', 'widgets')]);
      // Settled: nobody rewrites an aggregate that is already right.
      for (const x of replicas) await x.ctl.idle();
      await new Promise((res) => setTimeout(res, 100));
      for (const x of replicas) await x.ctl.idle();
      const settled = (await stored('team-view'))!.revision;
      await new Promise((res) => setTimeout(res, 200));
      assert.equal((await stored('team-view'))!.revision, settled, 'no write loop');

      // Dropping a label removes the role's rules from the aggregate.
      await putRole('gadgets', {}, [r('get', 'gadgets')]);
      await until(async () => {
        const s = await stored('team-view');
        return s && s.rules.length === 1 ? s : null;
      });
      assert.deepEqual((await stored('team-view'))!.rules, [r('update', 'widgets')]);

      // One write path: every aggregate write passed admission as the API server's own identity.
      const writes = admission.requests.filter((q) => q.resource.resource === 'clusterroles' && q.operation === 'UPDATE');
      assert.ok(writes.length >= 2, 'admission saw the aggregate writes');
      assert.ok(writes.every((q) => q.userInfo.username === 'system:apiserver'));
      assert.deepEqual(new Set(writes.map((q) => q.phase)), new Set(['mutating', 'validating']));
    } finally {
      for (const x of replicas) {
        await x.ctl.stop();
        await x.feed.stop();
        x.internal.stop();
      }
    }
  });
});
