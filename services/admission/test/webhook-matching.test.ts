import { test } from 'node:test';
import { podRequest as request } from './webhook-fixtures.js';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { registryApiTypes } from '../plugins/webhooks/api-types.js';
import { invocationFor, type MatchEnvironment } from '../plugins/webhooks/matcher.js';
import { isWebhookConfigurationResource, ruleMatches, type RuleSubject, type WebhookRule } from '../plugins/webhooks/rules.js';
import { interestOf, webhooksOf, type Webhook } from '../plugins/webhooks/webhooks.js';

const types = registryApiTypes(createBuiltinRegistry());

const rule = (r: Partial<WebhookRule>): WebhookRule => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*', ...r });
const subject = (s: Partial<RuleSubject> & { gvr?: string }): RuleSubject => {
  const [group, version, resource] = (s.gvr ?? '/v1/pods').split('/') as [string, string, string];
  return { operation: 'CREATE', resource: { group, version, resource }, subResource: '', namespace: 'default', ...s };
};

test('webhook rules - operations, groups, versions, resources with subresources, scope', () => {
  const cases: Array<[string, Partial<WebhookRule>, Partial<RuleSubject> & { gvr?: string }, boolean]> = [
    ['everything', {}, {}, true],
    ['operation listed', { operations: ['CREATE', 'UPDATE'] }, {}, true],
    ['operation not listed', { operations: ['UPDATE'] }, {}, false],
    ['connect', { operations: ['CONNECT'], resources: ['pods/exec'] }, { operation: 'CONNECT', subResource: 'exec' }, true],
    ['core group', { apiGroups: [''] }, {}, true],
    ['other group', { apiGroups: ['apps'] }, {}, false],
    ['version listed', { apiVersions: ['v1'] }, {}, true],
    ['version not listed', { apiVersions: ['v1beta1'] }, {}, false],
    ['resource named', { resources: ['pods'] }, {}, true],
    ['other resource', { resources: ['configmaps'] }, {}, false],
    ['* excludes subresources', { resources: ['*'] }, { subResource: 'status' }, false],
    ['*/* includes subresources', { resources: ['*/*'] }, { subResource: 'status' }, true],
    ['*/* includes main resources', { resources: ['*/*'] }, {}, true],
    ['pods/* every subresource of pods', { resources: ['pods/*'] }, { subResource: 'exec' }, true],
    ['pods/* also the pod itself (upstream: `*` matches an empty subresource)', { resources: ['pods/*'] }, {}, true],
    ['*/status any status', { resources: ['*/status'] }, { gvr: 'apps/v1/deployments', subResource: 'status' }, true],
    ['*/status not scale', { resources: ['*/status'] }, { gvr: 'apps/v1/deployments', subResource: 'scale' }, false],
    ['pods/status exactly', { resources: ['pods/status'] }, { subResource: 'status' }, true],
    ['pods does not cover pods/status', { resources: ['pods'] }, { subResource: 'status' }, false],
    ['Namespaced: namespaced object', { scope: 'Namespaced' }, {}, true],
    ['Namespaced: cluster object', { scope: 'Namespaced' }, { gvr: '/v1/nodes', namespace: '' }, false],
    ['Namespaced: a namespace after creation carries its name, still cluster', { scope: 'Namespaced' }, { gvr: '/v1/namespaces', namespace: 'team-a', operation: 'UPDATE' }, false],
    ['Cluster: a namespace', { scope: 'Cluster' }, { gvr: '/v1/namespaces', namespace: 'team-a', operation: 'DELETE' }, true],
    ['Cluster: a node', { scope: 'Cluster' }, { gvr: '/v1/nodes', namespace: '' }, true],
    ['Cluster: a pod', { scope: 'Cluster' }, {}, false],
  ];
  for (const [name, r, s, want] of cases) assert.equal(ruleMatches(rule(r), subject(s)), want, name);
});

test('webhook rules - webhook configurations themselves are never sent to webhooks', () => {
  assert.equal(isWebhookConfigurationResource({ group: 'admissionregistration.platform.io', version: 'v1', resource: 'validatingwebhookconfigurations' }), true);
  assert.equal(isWebhookConfigurationResource({ group: 'admissionregistration.platform.io', version: 'v1beta1', resource: 'mutatingwebhookconfigurations' }), true);
  assert.equal(isWebhookConfigurationResource({ group: '', version: 'v1', resource: 'configmaps' }), false);
});

function configuration(name: string, webhooks: Array<Record<string, unknown>>): ApiObject {
  return { apiVersion: 'admissionregistration.platform.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks };
}

const base = {
  clientConfig: { url: 'https://127.0.0.1:1/' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
};

function hookOf(w: Record<string, unknown>, kind: 'validating' | 'mutating' = 'validating'): Webhook {
  return webhooksOf(kind, [configuration('c', [{ name: 'h.example.com', ...base, ...w }])])[0]!;
}

test('webhook configurations - configurations in name order, webhooks in their order, defaults and review version', () => {
  const hooks = webhooksOf('mutating', [
    configuration('zeta', [{ name: 'z1.example.com', ...base }]),
    configuration('alpha', [
      { name: 'a1.example.com', ...base, admissionReviewVersions: ['v2', 'v1beta1', 'v1'], reinvocationPolicy: 'IfNeeded' },
      { name: 'a2.example.com', ...base, admissionReviewVersions: ['v2'], failurePolicy: 'Ignore', timeoutSeconds: 3, caBundle: undefined },
    ]),
  ]);
  assert.deepEqual(
    hooks.map((h) => [h.configuration, h.name, h.index, h.reviewVersion, h.failurePolicy, h.timeoutMs, h.reinvoke, h.matchPolicy]),
    [
      ['alpha', 'a1.example.com', 0, 'v1beta1', 'Fail', 10_000, true, 'Equivalent'],
      ['alpha', 'a2.example.com', 1, null, 'Ignore', 3_000, false, 'Equivalent'],
      ['zeta', 'z1.example.com', 2, 'v1', 'Fail', 10_000, false, 'Equivalent'],
    ],
  );
  const svc = hookOf({ clientConfig: { service: { namespace: 'hooks', name: 'guard' }, caBundle: Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64') } });
  assert.deepEqual(svc.clientConfig, { service: { namespace: 'hooks', name: 'guard', path: '/', port: 443 }, caPem: '-----BEGIN CERTIFICATE-----' });
});

test('webhook configurations - what the gateway is told: operations and group/resources, equivalents included, and how long the webhooks may take', () => {
  const related = (g: string, r: string) => types.related(g, r);
  assert.deepEqual(interestOf([], related), { resources: [], operations: [] });
  const pods = hookOf({});
  assert.deepEqual(interestOf([pods], related), { operations: ['CREATE'], resources: [{ group: '', resource: 'pods' }], timeoutSeconds: 10 });
  const events = hookOf({ rules: [{ operations: ['*'], apiGroups: ['events.platform.io'], apiVersions: ['v1'], resources: ['events'] }] });
  assert.deepEqual(interestOf([events], related), {
    resources: [
      { group: 'events.platform.io', resource: 'events' },
      { group: '', resource: 'events' },
    ],
    timeoutSeconds: 10,
  });
  const exact = hookOf({ matchPolicy: 'Exact', rules: [{ operations: ['UPDATE'], apiGroups: ['events.platform.io'], apiVersions: ['v1'], resources: ['events/status'] }] });
  assert.deepEqual(interestOf([exact], related), { operations: ['UPDATE'], resources: [{ group: 'events.platform.io', resource: 'events' }], timeoutSeconds: 10 });
  const all = hookOf({ rules: [{ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] });
  assert.deepEqual(interestOf([pods, all], related), { operations: ['CREATE'], resources: [{ group: '*', resource: '*' }], timeoutSeconds: 20 });
  // In turn, an IfNeeded webhook possibly twice; never beyond the request timeout.
  const slow = hookOf({ timeoutSeconds: 30, reinvocationPolicy: 'IfNeeded' }, 'mutating');
  assert.equal(interestOf([pods, slow], related).timeoutSeconds, 60);
});

const namespaceLabels: Record<string, Record<string, string>> = { 'team-a': { env: 'prod' }, 'team-b': {} };
const env: MatchEnvironment = { types: () => types, namespaceLabels: async (n) => namespaceLabels[n] ?? null };

test('webhook matching - objectSelector on the object or the old object; objects without metadata never match', async () => {
  const sel = hookOf({ objectSelector: { matchLabels: { app: 'web' } } });
  const cases: Array<[string, Partial<AdmissionRequest>, boolean]> = [
    ['object labelled', {}, true],
    ['object not labelled', { object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } }, false],
    [
      'old object labelled (label removed)',
      { operation: 'UPDATE', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, oldObject: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web' } } } },
      true,
    ],
    ['delete: the old object', { operation: 'DELETE', object: null, oldObject: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web' } } } }, true],
  ];
  const anyOp = { ...sel, rules: [rule({ apiGroups: [''], resources: ['pods', 'pods/exec'] })] };
  for (const [name, r, want] of cases) assert.equal((await invocationFor(anyOp, request(r), request(r).object, env)) !== null, want, name);
  const exec = request({
    operation: 'CONNECT',
    subResource: 'exec',
    kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
    object: { kind: 'PodExecOptions', apiVersion: 'v1', command: ['sh'] } as unknown as ApiObject,
  });
  assert.equal(await invocationFor(anyOp, exec, exec.object, env), null, 'connect options have no labels');
  assert.notEqual(await invocationFor({ ...anyOp, objectSelector: hookOf({}).objectSelector }, exec, exec.object, env), null, 'an empty selector matches them');
});

test("webhook matching - namespaceSelector on the namespace labels, a Namespace's own labels, 404 for a missing namespace", async () => {
  const prod = { ...hookOf({ namespaceSelector: { matchLabels: { env: 'prod' } } }), rules: [rule({})] };
  const cases: Array<[string, Partial<AdmissionRequest>, boolean]> = [
    ['namespace labelled', {}, true],
    ['namespace not labelled', { namespace: 'team-b' }, false],
    ['cluster-scoped objects are never exempted', { namespace: undefined, resource: { group: '', version: 'v1', resource: 'nodes' }, kind: { group: '', version: 'v1', kind: 'Node' } }, true],
    [
      'a namespace being created: its own labels',
      { namespace: undefined, resource: { group: '', version: 'v1', resource: 'namespaces' }, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new', labels: { env: 'prod' } } } },
      true,
    ],
    [
      'a namespace updated to drop the label',
      { operation: 'UPDATE', namespace: 'team-a', resource: { group: '', version: 'v1', resource: 'namespaces' }, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } } },
      false,
    ],
    ['a namespace deleted: the stored labels', { operation: 'DELETE', namespace: 'team-a', resource: { group: '', version: 'v1', resource: 'namespaces' }, object: null }, true],
  ];
  for (const [name, r, want] of cases) {
    const req = request(r);
    assert.equal((await invocationFor(prod, req, req.object, env)) !== null, want, name);
  }
  const missing = request({ namespace: 'gone' });
  await assert.rejects(
    invocationFor(prod, missing, missing.object, env),
    (err: { status?: { code: number; message: string } }) => err.status?.code === 404 && err.status.message === 'namespaces "gone" not found',
  );
  const nothing = { ...prod, rules: [rule({ resources: ['configmaps'] })] };
  assert.equal(await invocationFor(nothing, missing, missing.object, env), null, 'the namespace is only looked at when the rules match');
});

test("webhook matching - matchPolicy Equivalent reaches other versions and groups, the webhook's version and kind given", async () => {
  const cron = request({
    kind: { group: 'batch', version: 'v1', kind: 'CronJob' },
    resource: { group: 'batch', version: 'v1', resource: 'cronjobs' },
    object: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' } },
  });
  const beta = (matchPolicy: string) => hookOf({ matchPolicy, rules: [{ operations: ['CREATE'], apiGroups: ['batch'], apiVersions: ['v1beta1'], resources: ['cronjobs'] }] });
  assert.equal(await invocationFor(beta('Exact'), cron, cron.object, env), null);
  const inv = await invocationFor(beta('Equivalent'), cron, cron.object, env);
  assert.deepEqual(
    [inv?.resource, inv?.kind],
    [
      { group: 'batch', version: 'v1beta1', resource: 'cronjobs' },
      { group: 'batch', version: 'v1beta1', kind: 'CronJob' },
    ],
  );
  const exactMatch = await invocationFor(hookOf({ rules: [{ operations: ['CREATE'], apiGroups: ['batch'], apiVersions: ['*'], resources: ['cronjobs'] }] }), cron, cron.object, env);
  assert.deepEqual(exactMatch?.resource, cron.resource, "the request's own version first");
  // Core events and events.platform.io Events are the same objects.
  const coreEvent = request({
    kind: { group: '', version: 'v1', kind: 'Event' },
    resource: { group: '', version: 'v1', resource: 'events' },
    object: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' } },
  });
  const eventsHook = hookOf({ rules: [{ operations: ['CREATE'], apiGroups: ['events.platform.io'], apiVersions: ['v1'], resources: ['events'] }] });
  const ev = await invocationFor(eventsHook, coreEvent, coreEvent.object, env);
  assert.deepEqual(ev?.kind, { group: 'events.platform.io', version: 'v1', kind: 'Event' });
  // A subresource of another kind keeps the request's kind.
  const scale = request({
    operation: 'UPDATE',
    subResource: 'scale',
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    resource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
  });
  assert.deepEqual(
    types.equivalents(scale.resource, 'status', { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' }).map((e) => e.kind.version),
    ['v1', 'v2beta2', 'v2beta1'],
  );
});

test('webhook matching - conversion between versions goes through the storage version', async () => {
  const hpa: ApiObject = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'h', namespace: 'a' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    },
  };
  const v1 = await types.convert(hpa, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' }, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
  assert.equal(v1.apiVersion, 'autoscaling/v1');
  assert.equal((v1.spec as { targetCPUUtilizationPercentage?: number }).targetCPUUtilizationPercentage, 50);
  const back = await types.convert(v1, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' }, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' });
  assert.deepEqual((back.spec as { metrics: unknown }).metrics, (hpa.spec as { metrics: unknown }).metrics);
});
