import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
// The service's configuration module first: it loads every plugin folder in order.
import { AdmissionConfigError } from '../config.js';
import { claimEvaluator, EvaluatorRegistry, podEvaluator, podMatchesScope, serviceEvaluator, type ScopeRequirement } from '../../../shared/quota/evaluators.js';
import { resourceListJson } from '../../../shared/quota/resource-list.js';
import { resourceQuotaPlugin } from '../plugins/limits/resource-quota.js';
import { container, depsOf, FakeStore, forbiddenPod, NS, pod, quota, request, validate, type Outcome } from './resource-quota-fixtures.js';

const NOW = Date.parse('2024-01-01T00:00:00Z');

test('ResourceQuota usage - pods', () => {
  const cases: Array<{ name: string; pod: ApiObject; want: Record<string, string> }> = [
    { name: 'no resources: counted, nothing else', pod: pod('p'), want: { 'count/pods': '1', pods: '1' } },
    {
      name: 'requests and limits, cpu and memory shorthand are requests',
      pod: pod('p', { containers: [container('a', { cpu: '250m', memory: '64Mi' }, { cpu: '500m', memory: '128Mi' }), container('b', { cpu: '0.25', memory: '64Mi' }, { cpu: 1 })] }),
      want: { 'count/pods': '1', pods: '1', cpu: '500m', 'requests.cpu': '500m', memory: '128Mi', 'requests.memory': '128Mi', 'limits.cpu': '1500m', 'limits.memory': '128Mi' },
    },
    {
      name: 'ephemeral storage, hugepages and extended resources',
      pod: pod('p', {
        containers: [container('a', { 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2' }, { 'ephemeral-storage': '2Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2' })],
      }),
      want: {
        'count/pods': '1',
        pods: '1',
        'ephemeral-storage': '1Gi',
        'requests.ephemeral-storage': '1Gi',
        'limits.ephemeral-storage': '2Gi',
        'hugepages-2Mi': '4Mi',
        'requests.hugepages-2Mi': '4Mi',
        'requests.example.com/gpu': '2',
      },
    },
    {
      name: 'the largest init container counts against the sum of the others',
      pod: pod('p', {
        containers: [container('a', { cpu: '100m' }), container('b', { cpu: '100m' })],
        initContainers: [container('i1', { cpu: '150m', memory: '1Gi' }), container('i2', { cpu: '300m' })],
      }),
      want: { 'count/pods': '1', pods: '1', cpu: '300m', 'requests.cpu': '300m', memory: '1Gi', 'requests.memory': '1Gi' },
    },
    {
      name: 'overhead is added to requests and limits',
      pod: pod('p', { containers: [container('a', { cpu: '100m' }, { cpu: '200m' })], overhead: { cpu: '50m' } }),
      want: { 'count/pods': '1', pods: '1', cpu: '150m', 'requests.cpu': '150m', 'limits.cpu': '250m' },
    },
    { name: 'a succeeded pod uses no compute', pod: pod('p', { containers: [container('a', { cpu: '1' })] }, { status: { phase: 'Succeeded' } }), want: { 'count/pods': '1' } },
    { name: 'a failed pod uses no compute', pod: pod('p', {}, { status: { phase: 'Failed' } }), want: { 'count/pods': '1' } },
    {
      name: 'a pod past its deletion grace period uses no compute',
      pod: { ...pod('p'), metadata: { name: 'p', namespace: NS, deletionTimestamp: '2023-12-31T23:59:00Z', deletionGracePeriodSeconds: 30 } },
      want: { 'count/pods': '1' },
    },
    {
      name: 'a pod within its deletion grace period still does',
      pod: { ...pod('p'), metadata: { name: 'p', namespace: NS, deletionTimestamp: '2023-12-31T23:59:50Z', deletionGracePeriodSeconds: 30 } },
      want: { 'count/pods': '1', pods: '1' },
    },
  ];
  for (const c of cases) assert.deepEqual(resourceListJson(podEvaluator.usage(c.pod, NOW)), Object.fromEntries(Object.entries(c.want).sort()), c.name);
});

test('ResourceQuota usage - services, claims and object counts', () => {
  const svc = (spec: Record<string, unknown>): ApiObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: NS }, spec });
  const ports = [{ port: 80 }, { port: 443, nodePort: 30443 }];
  const pvc = (spec: Record<string, unknown>, annotations?: Record<string, string>): ApiObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: NS, ...(annotations ? { annotations } : {}) },
    spec,
  });
  const registry = new EvaluatorRegistry();
  const cases: Array<{ name: string; usage: () => Record<string, unknown>; want: Record<string, string> }> = [
    { name: 'ClusterIP service', usage: () => serviceEvaluator.usage(svc({ ports }), NOW), want: { 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '0' } },
    {
      name: 'NodePort service: one node port per port',
      usage: () => serviceEvaluator.usage(svc({ type: 'NodePort', ports }), NOW),
      want: { 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '2' },
    },
    {
      name: 'LoadBalancer service',
      usage: () => serviceEvaluator.usage(svc({ type: 'LoadBalancer', ports }), NOW),
      want: { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '2' },
    },
    {
      name: 'LoadBalancer without node port allocation: only explicit node ports',
      usage: () => serviceEvaluator.usage(svc({ type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports }), NOW),
      want: { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' },
    },
    {
      name: 'claim without class, storage rounded up',
      usage: () => claimEvaluator.usage(pvc({ resources: { requests: { storage: '1500m' } } }), NOW),
      want: { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '2' },
    },
    {
      name: 'claim of a class: charged to the class too, in both spellings',
      usage: () => claimEvaluator.usage(pvc({ storageClassName: 'gold', resources: { requests: { storage: '10Gi' } } }), NOW),
      want: {
        'count/persistentvolumeclaims': '1',
        persistentvolumeclaims: '1',
        'requests.storage': '10Gi',
        'gold.storageclass.storage.platform.io/persistentvolumeclaims': '1',
        'gold.storageclass.storage.platform.io/requests.storage': '10Gi',
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
        'gold.storageclass.storage.k8s.io/requests.storage': '10Gi',
      },
    },
    {
      name: 'the beta class annotation wins over storageClassName',
      usage: () => claimEvaluator.usage(pvc({ storageClassName: 'gold' }, { 'volume.beta.platform.io/storage-class': 'silver' }), NOW),
      want: {
        'count/persistentvolumeclaims': '1',
        persistentvolumeclaims: '1',
        'silver.storageclass.storage.platform.io/persistentvolumeclaims': '1',
        'silver.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      },
    },
    { name: 'secrets: count and legacy name', usage: () => registry.get('', 'secrets')!.usage(pod('x'), NOW), want: { 'count/secrets': '1', secrets: '1' } },
    { name: 'a deployment: count/deployments.apps', usage: () => registry.get('apps', 'deployments')!.usage(pod('x'), NOW), want: { 'count/deployments.apps': '1' } },
    {
      name: 'a branded group: both spellings',
      usage: () => registry.get('coordination.platform.io', 'leases')!.usage(pod('x'), NOW),
      want: { 'count/leases.coordination.platform.io': '1', 'count/leases.coordination.k8s.io': '1' },
    },
  ];
  for (const c of cases) assert.deepEqual(resourceListJson(c.usage() as never), Object.fromEntries(Object.entries(c.want).sort()), c.name);
  assert.equal(registry.get('', 'events'), undefined, 'events are never counted');
});

test('ResourceQuota scopes - which pods each scope selects', () => {
  const plain = pod('p');
  const guaranteed = pod('p', { containers: [container('a', { cpu: '1' }, { cpu: '1' })] });
  const deadline = pod('p', { activeDeadlineSeconds: 30 });
  const high = pod('p', { priorityClassName: 'high' });
  const crossNs = pod('p', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', namespaces: ['other'] }] } } });
  const crossNsPreferred = pod('p', {
    affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'zone', namespaceSelector: {} } }] } },
  });
  const sameNs = pod('p', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone' }] } } });
  const s = (scopeName: string, operator = 'Exists', values?: string[]): ScopeRequirement => ({ scopeName, operator, ...(values ? { values } : {}) });
  const cases: Array<[string, ScopeRequirement, ApiObject, boolean]> = [
    ['Terminating: activeDeadlineSeconds set', s('Terminating'), deadline, true],
    ['Terminating: none', s('Terminating'), plain, false],
    ['NotTerminating: none', s('NotTerminating'), plain, true],
    ['NotTerminating: deadline', s('NotTerminating'), deadline, false],
    ['BestEffort: no requests or limits', s('BestEffort'), plain, true],
    ['BestEffort: cpu set', s('BestEffort'), guaranteed, false],
    ['NotBestEffort: cpu set', s('NotBestEffort'), guaranteed, true],
    ['BestEffort: only an extended resource still best effort', s('BestEffort'), pod('p', { containers: [container('a', { 'example.com/gpu': '1' }, { 'example.com/gpu': '1' })] }), true],
    ['PriorityClass Exists: named', s('PriorityClass'), high, true],
    ['PriorityClass Exists: none', s('PriorityClass'), plain, false],
    ['PriorityClass In: listed', s('PriorityClass', 'In', ['high', 'low']), high, true],
    ['PriorityClass In: not listed', s('PriorityClass', 'In', ['low']), high, false],
    ['PriorityClass In: no class', s('PriorityClass', 'In', ['high']), plain, false],
    ['PriorityClass NotIn: other class', s('PriorityClass', 'NotIn', ['low']), high, true],
    ['PriorityClass NotIn: no class', s('PriorityClass', 'NotIn', ['low']), plain, true],
    ['PriorityClass NotIn: listed', s('PriorityClass', 'NotIn', ['high']), high, false],
    ['PriorityClass DoesNotExist: none', s('PriorityClass', 'DoesNotExist'), plain, true],
    ['PriorityClass DoesNotExist: named', s('PriorityClass', 'DoesNotExist'), high, false],
    ['CrossNamespacePodAffinity: namespaces', s('CrossNamespacePodAffinity'), crossNs, true],
    ['CrossNamespacePodAffinity: namespaceSelector in a preferred anti-affinity term', s('CrossNamespacePodAffinity'), crossNsPreferred, true],
    ['CrossNamespacePodAffinity: own namespace only', s('CrossNamespacePodAffinity'), sameNs, false],
  ];
  for (const [name, scope, p, want] of cases) assert.equal(podMatchesScope(scope, p), want, name);
});

function setup(quotas: ApiObject[], config?: unknown) {
  const store = new FakeStore('', 'resourcequotas', quotas);
  const plugin = resourceQuotaPlugin.create(depsOf([store], config)) as Awaited<ReturnType<typeof resourceQuotaPlugin.create>>;
  return { store, plugin, used: (name: string) => (store.get(NS, name)?.status as { used?: Record<string, string> } | undefined)?.used };
}

test('ResourceQuota admission - decisions and messages', async (t) => {
  const cpuPod = (name: string, cpu: string, limit?: string) => pod(name, { containers: [container('c', { cpu }, limit ? { cpu: limit } : undefined)] });
  const cases: Array<{ name: string; quotas: ApiObject[]; req: ReturnType<typeof request>; want: Outcome; used?: Record<string, Record<string, string> | undefined> }> = [
    { name: 'under the limit: admitted and charged', quotas: [quota('q', { pods: '5' }, { used: { pods: '2' } })], req: request('pods', pod('p')), want: 'allowed', used: { q: { pods: '3' } } },
    {
      name: "at the limit: upstream's exceeded message",
      quotas: [quota('q', { pods: '5' }, { used: { pods: '5' } })],
      req: request('pods', pod('p')),
      want: forbiddenPod('p', 'exceeded quota: q, requested: pods=1, used: pods=5, limited: pods=5'),
      used: { q: { pods: '5' } },
    },
    {
      name: 'only the resources that exceed are named',
      quotas: [quota('compute', { pods: '10', 'requests.cpu': '1', 'requests.memory': '1Gi' }, { used: { pods: '1', 'requests.cpu': '800m', 'requests.memory': '0' } })],
      req: request('pods', pod('p', { containers: [container('c', { cpu: '500m', memory: '100Mi' })] })),
      want: forbiddenPod('p', 'exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=800m, limited: requests.cpu=1'),
    },
    {
      name: 'a limited cpu must be declared by every container',
      quotas: [quota('compute', { 'limits.cpu': '4', 'requests.memory': '1Gi' }, { used: { 'limits.cpu': '0', 'requests.memory': '0' } })],
      req: request('pods', pod('p', { containers: [container('a', { cpu: '1' }, { cpu: '1' }), container('b')] })),
      want: forbiddenPod('p', 'failed quota: compute: must specify limits.cpu,requests.memory'),
    },
    {
      name: 'usage not yet recorded for a limited resource: status unknown',
      quotas: [quota('q', { pods: '5', 'count/pods': '5' }, { used: { pods: '1' } })],
      req: request('pods', pod('p')),
      want: forbiddenPod('p', 'status unknown for quota: q, resources: count/pods,pods'),
    },
    {
      name: 'no status.hard yet: the quota does not apply (as upstream)',
      quotas: [quota('q', { pods: '0' }, { statusHard: null })],
      req: request('pods', pod('p')),
      want: 'allowed',
      used: { q: undefined },
    },
    {
      name: 'a quota of other resources is not charged',
      quotas: [quota('q', { services: '1' }, { used: { services: '1' } })],
      req: request('pods', pod('p')),
      want: 'allowed',
      used: { q: { services: '1' } },
    },
    {
      name: 'a dry run is checked but not charged',
      quotas: [quota('q', { pods: '5' }, { used: { pods: '2' } })],
      req: request('pods', pod('p'), { dryRun: true }),
      want: 'allowed',
      used: { q: { pods: '2' } },
    },
    {
      name: 'a dry run over the limit is refused',
      quotas: [quota('q', { pods: '1' }, { used: { pods: '1' } })],
      req: request('pods', pod('p'), { dryRun: true }),
      want: forbiddenPod('p', 'exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1'),
    },
    {
      name: 'every matching quota is charged',
      quotas: [quota('a', { pods: '5' }, { used: { pods: '1' } }), quota('b', { 'requests.cpu': '2', 'count/pods': '3' }, { used: { 'requests.cpu': '500m', 'count/pods': '0' } })],
      req: request('pods', cpuPod('p', '250m')),
      want: 'allowed',
      used: { a: { pods: '2' }, b: { 'count/pods': '1', 'requests.cpu': '750m' } },
    },
    {
      name: 'a BestEffort-scoped quota ignores a pod with requests',
      quotas: [quota('be', { pods: '0' }, { used: { pods: '0' }, scopes: ['BestEffort'] })],
      req: request('pods', cpuPod('p', '100m')),
      want: 'allowed',
    },
    {
      name: 'a BestEffort-scoped quota limits best-effort pods',
      quotas: [quota('be', { pods: '0' }, { used: { pods: '0' }, scopes: ['BestEffort'] })],
      req: request('pods', pod('p')),
      want: forbiddenPod('p', 'exceeded quota: be, requested: pods=1, used: pods=0, limited: pods=0'),
    },
    {
      name: 'a scope selector on priority class',
      quotas: [quota('high', { pods: '0' }, { used: { pods: '0' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } })],
      req: request('pods', pod('p', { priorityClassName: 'high' })),
      want: forbiddenPod('p', 'exceeded quota: high, requested: pods=1, used: pods=0, limited: pods=0'),
    },
    {
      name: 'a scoped quota never applies to other objects',
      quotas: [quota('be', { 'count/configmaps': '0' }, { used: { 'count/configmaps': '0' }, scopes: ['BestEffort'] })],
      req: request('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: NS } }),
      want: 'allowed',
    },
    {
      name: 'object counts of any resource',
      quotas: [quota('q', { 'count/deployments.apps': '1' }, { used: { 'count/deployments.apps': '1' } })],
      req: request('deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: NS } }, { group: 'apps' }),
      want: { code: 403, message: 'deployments.apps "d" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1' },
    },
    {
      name: 'a service turned LoadBalancer is charged the difference',
      quotas: [quota('q', { services: '5', 'services.loadbalancers': '1' }, { used: { services: '3', 'services.loadbalancers': '1' } })],
      req: request(
        'services',
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: NS }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
        {
          operation: 'UPDATE',
          old: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: NS, resourceVersion: '7' }, spec: { ports: [{ port: 80 }] } },
        },
      ),
      want: { code: 403, message: 'services "s" is forbidden: exceeded quota: q, requested: services.loadbalancers=1, used: services.loadbalancers=1, limited: services.loadbalancers=1' },
    },
    {
      name: 'an update that changes nothing charged is admitted without a write',
      quotas: [quota('q', { services: '1' }, { used: { services: '1' } })],
      req: request(
        'services',
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: NS }, spec: {} },
        { operation: 'UPDATE', old: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: NS, resourceVersion: '7' }, spec: {} } },
      ),
      want: 'allowed',
      used: { q: { services: '1' } },
    },
    {
      name: 'a bigger claim is charged the growth',
      quotas: [quota('q', { 'requests.storage': '10Gi' }, { used: { 'requests.storage': '8Gi' } })],
      req: request(
        'persistentvolumeclaims',
        { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: NS }, spec: { resources: { requests: { storage: '12Gi' } } } },
        {
          operation: 'UPDATE',
          old: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: NS, resourceVersion: '3' }, spec: { resources: { requests: { storage: '8Gi' } } } },
        },
      ),
      want: { code: 403, message: 'persistentvolumeclaims "c" is forbidden: exceeded quota: q, requested: requests.storage=4Gi, used: requests.storage=8Gi, limited: requests.storage=10Gi' },
    },
    {
      name: 'storage of a class',
      quotas: [quota('gold', { 'gold.storageclass.storage.platform.io/requests.storage': '5Gi' }, { used: { 'gold.storageclass.storage.platform.io/requests.storage': '0' } })],
      req: request('persistentvolumeclaims', {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'c', namespace: NS },
        spec: { storageClassName: 'gold', resources: { requests: { storage: '8Gi' } } },
      }),
      want: {
        code: 403,
        message:
          'persistentvolumeclaims "c" is forbidden: exceeded quota: gold, requested: gold.storageclass.storage.platform.io/requests.storage=8Gi, used: gold.storageclass.storage.platform.io/requests.storage=0, limited: gold.storageclass.storage.platform.io/requests.storage=5Gi',
      },
    },
    { name: 'a subresource is never charged', quotas: [quota('q', { pods: '0' }, { used: { pods: '0' } })], req: request('pods', pod('p'), { sub: 'binding' }), want: 'allowed' },
    { name: 'a pod update is never charged', quotas: [quota('q', { pods: '0' }, { used: { pods: '0' } })], req: request('pods', pod('p'), { operation: 'UPDATE', old: pod('p') }), want: 'allowed' },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const { plugin, used } = setup(c.quotas);
      assert.deepEqual(await validate(plugin, c.req), c.want);
      for (const [name, want] of Object.entries(c.used ?? {})) assert.deepEqual(used(name), want, `${name} used`);
    });
  }
});

test('ResourceQuota admission - concurrent requests are charged exactly, within a replica and across two', async (t) => {
  await t.test('one replica: 20 at once against pods: 5', async () => {
    const { store, plugin, used } = setup([quota('q', { pods: '5' }, { used: { pods: '0' } })]);
    store.delayMs = 2;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => validate(plugin, request('pods', pod(`p${i}`)))));
    assert.equal(results.filter((r) => r === 'allowed').length, 5);
    for (const r of results.filter((x) => x !== 'allowed'))
      assert.match((r as { message: string }).message, /^pods "p\d+" is forbidden: exceeded quota: q, requested: pods=1, used: pods=5, limited: pods=5$/);
    assert.deepEqual(used('q'), { pods: '5' });
    assert.ok(store.writes <= 5, `batched writes: ${store.writes}`);
  });

  await t.test('two replicas racing on one quota, their caches lagging', async () => {
    const store = new FakeStore('', 'resourcequotas', [quota('q', { pods: '5' }, { used: { pods: '0' } })]);
    store.delayMs = 1;
    store.feedWrites = false;
    const a = resourceQuotaPlugin.create(depsOf([store])) as Awaited<ReturnType<typeof resourceQuotaPlugin.create>>;
    const b = resourceQuotaPlugin.create(depsOf([store])) as Awaited<ReturnType<typeof resourceQuotaPlugin.create>>;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => validate(i % 2 ? a : b, request('pods', pod(`p${i}`)))));
    const allowed = results.filter((r) => r === 'allowed').length;
    const used = (store.get(NS, 'q')!.status as { used: Record<string, string> }).used;
    assert.equal(Number(used.pods), allowed, 'what was admitted is what was charged');
    assert.ok(allowed <= 5, `admitted ${allowed}`);
    assert.ok(store.conflicts > 0, 'the replicas did race');
    for (const r of results.filter((x) => x !== 'allowed')) assert.match((r as { code: number; message: string }).message, /exceeded quota: q|Operation cannot be fulfilled on resourcequotas "q"/);
  });
});

test('ResourceQuota admission - the match: updates only while a quota limits services or claims', async () => {
  const { store, plugin } = setup([quota('q', { pods: '5' }, { used: { pods: '0' } })]);
  await new Promise((r) => setImmediate(r));
  // Only namespaces that hold a quota need the plugin (the gateway rules out the others).
  const namespace = { holds: { group: '', resource: 'resourcequotas' } };
  assert.deepEqual(plugin.match, { operations: ['CREATE'], namespace });
  store.put(quota('svc', { 'services.loadbalancers': '1' }));
  assert.deepEqual(plugin.match, { operations: ['CREATE', 'UPDATE'], namespace });
});

test('ResourceQuota admission - limitedResources need a covering quota', async (t) => {
  const config = {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'ResourceQuotaConfiguration',
    limitedResources: [
      { resource: 'pods', matchContains: ['requests.cpu'] },
      { resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] },
    ],
  };
  const cpu = pod('p', { containers: [container('c', { cpu: '1' })] });
  const critical = pod('p', { priorityClassName: 'cluster-services' });
  const cases: Array<{ name: string; quotas: ApiObject[]; req: ReturnType<typeof request>; want: Outcome }> = [
    { name: 'no quota, nothing limited consumed', quotas: [], req: request('pods', pod('p')), want: 'allowed' },
    { name: 'no quota covers requests.cpu', quotas: [], req: request('pods', cpu), want: forbiddenPod('p', 'insufficient quota to consume: requests.cpu') },
    { name: 'a quota covers it', quotas: [quota('q', { 'requests.cpu': '2' }, { used: { 'requests.cpu': '0' } })], req: request('pods', cpu), want: 'allowed' },
    { name: 'no quota with the scope', quotas: [], req: request('pods', critical), want: forbiddenPod('p', 'insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]') },
    {
      name: 'a quota with the scope',
      quotas: [quota('q', { pods: '10' }, { used: { pods: '0' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] } })],
      req: request('pods', critical),
      want: 'allowed',
    },
  ];
  for (const c of cases) await t.test(c.name, async () => assert.deepEqual(await validate(setup(c.quotas, config).plugin, c.req), c.want));
  // A namespace without quotas must still be asked about: it may not consume a limited resource.
  assert.equal(setup([], config).plugin.match?.namespace, undefined);
  assert.throws(() => setup([], { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{ apiGroup: '' }] }), AdmissionConfigError);
  assert.throws(() => setup([], { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', bogus: 1 }), /unknown field "bogus"/);
  assert.doesNotThrow(() => setup([], { apiVersion: 'resourcequota.admission.k8s.io/v1beta1', kind: 'Configuration', limitedResources: [] }));
});

test('ResourceQuota admission - decisions rest on what is stored when the cache trails it', async (t) => {
  await t.test('a refusal on a cached usage the controller has since lowered is decided again', async () => {
    const { store, plugin, used } = setup([quota('q', { pods: '5' }, { used: { pods: '5' } })]);
    store.put(quota('q', { pods: '5' }, { used: { pods: '4' } }), false);
    assert.equal(await validate(plugin, request('pods', pod('p'))), 'allowed');
    assert.deepEqual(used('q'), { pods: '5' });
  });
  await t.test('a quota the cache still shows unprocessed is read from the store', async () => {
    const { store, plugin } = setup([quota('q', { pods: '1' }, { statusHard: null })]);
    store.put(quota('q', { pods: '1' }, { used: { pods: '1' } }), false);
    assert.deepEqual(await validate(plugin, request('pods', pod('p'))), forbiddenPod('p', 'exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1'));
  });
});
