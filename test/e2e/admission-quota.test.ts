// End to end: the ResourceQuota and LimitRanger admission plugins (on by default) with the
// resourcequota controller of the controllers service running in-process against the cluster, as
// a user sees them: a quota's status filled in by the controller, concurrent creates that never
// overshoot it, usage released by the controller's recount after a deletion, container defaults
// from a LimitRange and a pod over its max refused — each with upstream's message.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { silentLogger } from '../../shared/log.js';
import { createControllersService, type ControllersService } from '../../services/controllers/service.js';
import { assertOk, assertStatus, createNamespace, eventually, uniq } from './helpers.js';

const pod = (name: string, resources?: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1', ...(resources ? { resources } : {}) }] },
});

describe('ResourceQuota and LimitRanger', () => {
  let c: TestCluster;
  let controllers: ControllersService;

  before(async () => {
    c = await startTestCluster();
    const client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: c.kubeconfigPath } }));
    controllers = createControllersService({ client, log: silentLogger(), config: { controllers: ['resourcequota'], resourceQuota: { resyncMs: 60_000, workers: 5 } } });
    await controllers.leading;
  });
  after(async () => {
    await controllers?.stop();
    await c?.stop();
  });

  const path = (ns: string, resource: string, name?: string) => `/api/v1/namespaces/${ns}/${resource}${name ? `/${name}` : ''}`;

  /** Creates a quota and waits for the controller to fill in its status. */
  async function quota(ns: string, name: string, hard: Record<string, string>): Promise<void> {
    assertOk(await c.request('POST', path(ns, 'resourcequotas'), { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } } }), 201);
    await eventually(`quota ${name} processed`, async () => {
      const q = assertOk(await c.request('GET', path(ns, 'resourcequotas', name)));
      assert.deepEqual(q.status?.hard, hard);
      assert.ok(q.status.used, 'status.used');
    });
  }

  it("pods: 5 — of 20 concurrent creates exactly 5 succeed, the rest are refused with upstream's message; a deletion lets another in", async () => {
    const ns = uniq('quota');
    await createNamespace(c, ns);
    await quota(ns, 'pods', { pods: '5' });

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => c.request('POST', path(ns, 'pods'), { body: pod(`p${i}`) })));
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 5, results.map((r) => `${r.status} ${r.json?.message ?? ''}`).join('\n'));
    for (const r of results.filter((x) => x.status !== 201)) {
      const s = assertStatus(r, 403, 'Forbidden');
      assert.match(s.message, /^pods "p\d+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=5, limited: pods=5$/);
    }
    assert.equal(assertOk(await c.request('GET', path(ns, 'pods'))).items.length, 5);
    assert.deepEqual(assertOk(await c.request('GET', path(ns, 'resourcequotas', 'pods'))).status.used, { pods: '5' });

    // Usage is only released by the controller's recount.
    assertOk(await c.request('DELETE', path(ns, 'pods', created[0]!.json.metadata.name)));
    await eventually(
      'the deleted pod released from the quota',
      async () => {
        assert.deepEqual(assertOk(await c.request('GET', path(ns, 'resourcequotas', 'pods'))).status.used, { pods: '4' });
      },
      { timeoutMs: 5_000 },
    );
    await eventually('another pod admitted', async () => assertOk(await c.request('POST', path(ns, 'pods'), { body: pod('late') }), 201), { timeoutMs: 3_000 });
    const refused = assertStatus(await c.request('POST', path(ns, 'pods'), { body: pod('later') }), 403, 'Forbidden');
    assert.equal(refused.message, 'pods "later" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=5, limited: pods=5');
  });

  it('a quota on cpu requests: a pod must state them, a dry run is checked but not charged', async () => {
    const ns = uniq('quota-cpu');
    await createNamespace(c, ns);
    await quota(ns, 'compute', { 'requests.cpu': '1', pods: '10' });
    const bare = assertStatus(await c.request('POST', path(ns, 'pods'), { body: pod('bare') }), 403, 'Forbidden');
    assert.equal(bare.message, 'pods "bare" is forbidden: failed quota: compute: must specify requests.cpu');
    assertOk(await c.request('POST', `${path(ns, 'pods')}?dryRun=All`, { body: pod('dry', { requests: { cpu: '800m' } }) }), 201);
    assertOk(await c.request('POST', path(ns, 'pods'), { body: pod('a', { requests: { cpu: '800m' } }) }), 201);
    const over = assertStatus(await c.request('POST', path(ns, 'pods'), { body: pod('b', { requests: { cpu: '300m' } }) }), 403, 'Forbidden');
    assert.equal(over.message, 'pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=300m, used: requests.cpu=800m, limited: requests.cpu=1');
    assert.deepEqual(assertOk(await c.request('GET', path(ns, 'resourcequotas', 'compute'))).status.used, { pods: '1', 'requests.cpu': '800m' });
  });

  it("the controller counts what was there before the quota, follows spec.hard, counts any resource, releases a finished pod's compute", async () => {
    const ns = uniq('quota-ctl');
    await createNamespace(c, ns);
    assertOk(await c.request('POST', path(ns, 'pods'), { body: pod('before', { requests: { cpu: '200m' } }) }), 201);
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } } },
    };
    assertOk(await c.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deploy }), 201);
    await quota(ns, 'q', { pods: '3', 'requests.cpu': '2', 'count/deployments.apps': '1' });
    const used = async () => assertOk(await c.request('GET', path(ns, 'resourcequotas', 'q'))).status.used;
    assert.deepEqual(await used(), { 'count/deployments.apps': '1', pods: '1', 'requests.cpu': '200m' });
    const second = assertStatus(await c.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: { ...deploy, metadata: { name: 'e' } } }), 403, 'Forbidden');
    assert.equal(second.message, 'deployments.apps "e" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1');

    // A finished pod still exists but no longer uses compute.
    const p = assertOk(await c.request('GET', path(ns, 'pods', 'before')));
    assertOk(await c.request('PUT', `${path(ns, 'pods', 'before')}/status`, { body: { ...p, status: { ...p.status, phase: 'Succeeded' } } }));
    await eventually('the finished pod released', async () => assert.deepEqual(await used(), { 'count/deployments.apps': '1', pods: '0', 'requests.cpu': '0' }), { timeoutMs: 5_000 });

    // A changed spec.hard: status.hard follows, resources dropped from it leave status.used.
    const q = assertOk(await c.request('GET', path(ns, 'resourcequotas', 'q')));
    assertOk(await c.request('PUT', path(ns, 'resourcequotas', 'q'), { body: { ...q, spec: { hard: { pods: '5' } } } }));
    await eventually(
      'status.hard follows spec.hard',
      async () => {
        const now = assertOk(await c.request('GET', path(ns, 'resourcequotas', 'q')));
        assert.deepEqual(now.status, { hard: { pods: '5' }, used: { pods: '0' } });
      },
      { timeoutMs: 5_000 },
    );
  });

  it('LimitRange: defaults are applied to a new pod, and a pod over the max is refused', async () => {
    const ns = uniq('limits');
    await createNamespace(c, ns);
    const lr = {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits' },
      spec: { limits: [{ type: 'Container', max: { cpu: '1', memory: '1Gi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } }] },
    };
    const stored = assertOk(await c.request('POST', path(ns, 'limitranges'), { body: lr }), 201);
    assert.deepEqual(stored.spec.limits[0].default, { cpu: '1', memory: '1Gi' }, 'the max is the default limit');

    // The admission service learns of the LimitRange through its watch: try dry runs until it has.
    await eventually('the LimitRange in effect', async () => {
      const dry = assertOk(await c.request('POST', `${path(ns, 'pods')}?dryRun=All`, { body: pod('probe') }), 201);
      assert.ok(dry.metadata.annotations?.['platform.io/limit-ranger']);
    });
    const created = assertOk(await c.request('POST', path(ns, 'pods'), { body: pod('web') }), 201);
    assert.deepEqual(created.spec.containers[0].resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m', memory: '128Mi' } });
    assert.equal(created.metadata.annotations['platform.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app');

    const big = assertStatus(await c.request('POST', path(ns, 'pods'), { body: pod('big', { limits: { cpu: '2' } }) }), 403, 'Forbidden');
    assert.equal(big.message, 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});
