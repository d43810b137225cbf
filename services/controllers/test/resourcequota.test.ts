import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { Evaluator } from '../../../shared/quota/evaluators.js';
import { resourceListJson, toResourceList } from '../../../shared/quota/resource-list.js';
import { evaluatorsFor, nextStatus, recount } from '../resourcequota/usage.js';

const NOW = Date.parse('2024-01-01T00:00:00Z');
const NS = 'team';

const quota = (hard: Record<string, string>, extra: { status?: Record<string, unknown>; scopes?: string[]; scopeSelector?: unknown } = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'q', namespace: NS },
  spec: { hard, ...(extra.scopes ? { scopes: extra.scopes } : {}), ...(extra.scopeSelector ? { scopeSelector: extra.scopeSelector } : {}) },
  ...(extra.status ? { status: extra.status } : {}),
});
const pod = (name: string, cpu?: string, extra: Record<string, unknown> = {}, status?: Record<string, unknown>): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: { containers: [{ name: 'c', image: 'x', ...(cpu ? { resources: { requests: { cpu }, limits: { cpu } } } : {}) }], ...extra },
  ...(status ? { status } : {}),
});
const obj = (kind: string, name: string, spec: Record<string, unknown> = {}): ApiObject => ({ apiVersion: 'v1', kind, metadata: { name, namespace: NS }, spec });

test('resourcequota controller - the evaluators a quota needs', () => {
  const names = (q: ApiObject) => evaluatorsFor(q).map((e) => `${e.group}/${e.resource}`);
  assert.deepEqual(names(quota({ pods: '1', 'requests.cpu': '1' })), ['/pods']);
  assert.deepEqual(names(quota({ services: '1', 'count/pods': '1', secrets: '2', 'requests.storage': '1Gi' })), ['/pods', '/services', '/persistentvolumeclaims', '/secrets']);
  assert.deepEqual(names(quota({ 'count/deployments.apps': '1', 'count/leases.coordination.k8s.io': '1', 'count/widgets': '1' })), ['apps/deployments', 'coordination.platform.io/leases', '/widgets']);
  assert.deepEqual(names(quota({})), []);
});

test('resourcequota controller - recount', () => {
  const objects: Record<string, ApiObject[]> = {
    '/pods': [pod('a', '500m'), pod('b', '250m'), pod('done', '4', {}, { phase: 'Succeeded' }), pod('deadline', '100m', { activeDeadlineSeconds: 60 }), pod('be')],
    '/services': [obj('Service', 'lb', { type: 'LoadBalancer', ports: [{ port: 80 }] }), obj('Service', 'np', { type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] })],
    'apps/deployments': [obj('Deployment', 'd1'), obj('Deployment', 'd2')],
  };
  const list = (e: Evaluator) => objects[`${e.group}/${e.resource}`] ?? [];
  const count = (q: ApiObject, l = list) => resourceListJson(recount(q, evaluatorsFor(q), l, NOW).used);
  const cases: Array<[string, ApiObject, Record<string, string>]> = [
    [
      'pods and compute; a finished pod counts only as an object',
      quota({ pods: '10', 'count/pods': '10', 'requests.cpu': '8', 'limits.cpu': '8' }),
      { 'count/pods': '5', 'limits.cpu': '850m', pods: '4', 'requests.cpu': '850m' },
    ],
    ['NotTerminating scope', quota({ pods: '10' }, { scopes: ['NotTerminating'] }), { pods: '3' }],
    ['BestEffort scope', quota({ pods: '10' }, { scopes: ['BestEffort'] }), { pods: '1' }],
    ['services', quota({ services: '5', 'services.loadbalancers': '1', 'services.nodeports': '5' }), { services: '2', 'services.loadbalancers': '1', 'services.nodeports': '3' }],
    ['object counts of another group', quota({ 'count/deployments.apps': '5' }), { 'count/deployments.apps': '2' }],
    ['nothing of a resource: zero', quota({ secrets: '5', 'count/secrets': '5' }), { 'count/secrets': '0', secrets: '0' }],
  ];
  for (const [name, q, want] of cases) assert.deepEqual(count(q), want, name);

  const unlisted = recount(
    quota({ pods: '10', 'count/deployments.apps': '5' }),
    evaluatorsFor(quota({ pods: '10', 'count/deployments.apps': '5' })),
    (e) => (e.resource === 'deployments' ? undefined : list(e)),
    NOW,
  );
  assert.deepEqual(resourceListJson(unlisted.used), { pods: '4' });
  assert.deepEqual(unlisted.unavailable, ['count/deployments.apps']);
});

test('resourcequota controller - the status to write', () => {
  const cases: Array<[string, ApiObject, Record<string, string>, ReturnType<typeof nextStatus>]> = [
    [
      'a new quota: hard from spec, used counted',
      quota({ pods: '10', 'requests.memory': '1.5Gi' }),
      { pods: '3', 'requests.memory': '0' },
      { hard: { pods: '10', 'requests.memory': '1536Mi' }, used: { pods: '3', 'requests.memory': '0' } },
    ],
    ['up to date: nothing to write', quota({ pods: '10' }, { status: { hard: { pods: '10' }, used: { pods: '3' } } }), { pods: '3' }, undefined],
    ['usage went down', quota({ pods: '10' }, { status: { hard: { pods: '10' }, used: { pods: '5' } } }), { pods: '4' }, { hard: { pods: '10' }, used: { pods: '4' } }],
    [
      'spec.hard changed: a dropped resource leaves status',
      quota({ pods: '20' }, { status: { hard: { pods: '10', services: '2' }, used: { pods: '3', services: '1' } } }),
      { pods: '3' },
      { hard: { pods: '20' }, used: { pods: '3' } },
    ],
    [
      'a resource that could not be counted keeps its last value',
      quota({ pods: '10', 'count/x.y': '3' }, { status: { hard: { pods: '10', 'count/x.y': '3' }, used: { pods: '1', 'count/x.y': '2' } } }),
      { pods: '2' },
      { hard: { 'count/x.y': '3', pods: '10' }, used: { 'count/x.y': '2', pods: '2' } },
    ],
    ['equal quantities spelled differently: nothing to write', quota({ memory: '1024Mi' }, { status: { hard: { memory: '1Gi' }, used: { memory: '0' } } }), { memory: '0' }, undefined],
    ['no hard limits at all: nothing to write', quota({}), {}, undefined],
  ];
  for (const [name, q, counted, want] of cases) assert.deepEqual(nextStatus(q, toResourceList(counted)), want, name);
});
