// The webhook plugins in the admission chain with their configurations fed by hand and a fake
// transport in place of HTTPS: patches, rejections, failure policy, dry run, reinvocation,
// annotations, warnings and metrics as a user (or an operator reading /metrics) would see them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/nats-core';
import type { ApiObject } from '../../../shared/api/types.js';
import type { AdmissionReply, AdmissionRequest } from '../../../shared/bus/messages.js';
import { silentLogger } from '../../../shared/log.js';
import { MetricsRegistry } from '../../../shared/metrics/registry.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import type { JsonResponse } from '../../../shared/webhook/http-json.js';
import { runAdmissionChain } from '../chain.js';
import { ObjectCache } from '../object-cache.js';
import { DEFAULT_ADMISSION_SERVICE_OPTIONS } from '../options.js';
import type { AdmissionPlugin, PluginDeps } from '../types.js';
import { registryApiTypes } from '../plugins/webhooks/api-types.js';
import { createWebhookPlugin } from '../plugins/webhooks/plugin.js';
import type { Webhook } from '../plugins/webhooks/webhooks.js';

const types = registryApiTypes(createBuiltinRegistry());
const G = 'admissionregistration.platform.io';

/** What a fake webhook answers: the review it got → its response (uid filled in), or a thrown error. */
type Answer = (review: any, hook: Webhook) => Record<string, unknown> | JsonResponse | Promise<Record<string, unknown> | JsonResponse>;

interface Harness {
  mutating: AdmissionPlugin;
  validating: AdmissionPlugin;
  calls: Array<{ hook: string; review: any }>;
  metrics: MetricsRegistry;
  run(plugins: AdmissionPlugin[], req: AdmissionRequest): Promise<AdmissionReply>;
}

function configCache(resource: string, webhooks: Array<Record<string, unknown>>): ObjectCache {
  const cache = new ObjectCache(G, resource);
  cache.apply({
    key: `k-${resource}`,
    ref: { group: G, resource, name: 'cfg' },
    revision: 1,
    object: { apiVersion: `${G}/v1`, kind: 'X', metadata: { name: 'cfg', resourceVersion: '1' }, webhooks },
  } as never);
  cache.markSynced();
  return cache;
}

async function harness(opts: { mutating?: Array<Record<string, unknown>>; validating?: Array<Record<string, unknown>>; answers: Record<string, Answer>; namespaces?: ApiObject[] }): Promise<Harness> {
  const calls: Harness['calls'] = [];
  const caches = new Map<string, ObjectCache>([
    ['mutatingwebhookconfigurations', configCache('mutatingwebhookconfigurations', opts.mutating ?? [])],
    ['validatingwebhookconfigurations', configCache('validatingwebhookconfigurations', opts.validating ?? [])],
  ]);
  const nsCache = new ObjectCache('', 'namespaces');
  for (const ns of opts.namespaces ?? []) nsCache.apply({ key: ns.metadata.name!, ref: { group: '', resource: 'namespaces', name: ns.metadata.name! }, revision: 1, object: ns } as never);
  nsCache.markSynced();
  caches.set('namespaces', nsCache);
  const metrics = new MetricsRegistry();
  const deps = {
    nc: { isClosed: () => false, publish: () => undefined } as unknown as NatsConnection,
    bucket: 'objects',
    log: silentLogger(),
    namespaces: () => assert.fail('not used'),
    objects: (_g: string, resource: string) => caches.get(resource) ?? assert.fail(`no cache for ${resource}`),
    read: async () => null,
    write: {} as PluginDeps['write'],
    authorize: async () => assert.fail('not used'),
    options: DEFAULT_ADMISSION_SERVICE_OPTIONS,
    metrics,
  } as unknown as PluginDeps;
  const post = async (hook: Webhook, text: string): Promise<JsonResponse> => {
    const review = JSON.parse(text);
    calls.push({ hook: hook.name, review });
    const answer = opts.answers[hook.name];
    if (!answer) throw new Error(`connect ECONNREFUSED (no fake for ${hook.name})`);
    const out = await answer(review, hook);
    if ('status' in out && typeof out.status === 'number' && 'body' in out) return out as JsonResponse;
    return { status: 200, body: { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...out } } };
  };
  const mutating = await createWebhookPlugin('mutating', deps, { types: () => types, post });
  const validating = await createWebhookPlugin('validating', deps, { types: () => types, post });
  // Let the plugins see their synced caches.
  await new Promise((r) => setImmediate(r));
  return { mutating, validating, calls, metrics, run: (plugins, req) => runAdmissionChain(plugins, req, silentLogger()) };
}

const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }];
const hook = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  clientConfig: { url: 'https://127.0.0.1:9/' },
  rules,
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  failurePolicy: 'Fail',
  matchPolicy: 'Equivalent',
  timeoutSeconds: 5,
  ...extra,
});
const patch = (ops: unknown[]) => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });

function createCm(phase: AdmissionRequest['phase'], extra: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'req',
    phase,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'cm',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: { username: 'jane', uid: 'jane-uid', groups: ['developers'], extra: { scopes: ['a'] } },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'team-a', labels: { app: 'web' } }, data: { k: 'v' } },
    oldObject: null,
    options: { kind: 'CreateOptions', apiVersion: 'meta.platform.io/v1', fieldManager: 'kubectl' },
    dryRun: false,
    ...extra,
  };
}

test('webhook dispatch - the review carries every request field; a JSON patch changes the object; annotations and warnings come back', async () => {
  const h = await harness({
    mutating: [hook('add.example.com')],
    answers: { 'add.example.com': () => ({ ...patch([{ op: 'add', path: '/data/added', value: 'yes' }]), warnings: ['careful'], auditAnnotations: { decision: 'patched' } }) },
  });
  const reply = await h.run([h.mutating], createCm('mutating'));
  assert.equal(reply.allowed, true);
  assert.deepEqual(reply.object?.data, { k: 'v', added: 'yes' });
  assert.deepEqual(reply.warnings, ['careful']);
  assert.deepEqual(reply.auditAnnotations, {
    'add.example.com/decision': 'patched',
    'mutation.webhook.admission.platform.io/round_0_index_0': JSON.stringify({ configuration: 'cfg', webhook: 'add.example.com', mutated: true }),
  });
  assert.deepEqual(reply.requestAuditAnnotations, {
    'patch.webhook.admission.platform.io/round_0_index_0': JSON.stringify({
      configuration: 'cfg',
      webhook: 'add.example.com',
      patch: [{ op: 'add', path: '/data/added', value: 'yes' }],
      patchType: 'JSONPatch',
    }),
  });
  const review = h.calls[0]!.review;
  assert.equal(review.apiVersion, 'admission.platform.io/v1');
  assert.equal(review.kind, 'AdmissionReview');
  const { uid, ...rest } = review.request;
  assert.match(uid, /^[0-9a-f-]{36}$/);
  assert.deepEqual(rest, {
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
    requestResource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'cm',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: { username: 'jane', uid: 'jane-uid', groups: ['developers'], extra: { scopes: ['a'] } },
    object: createCm('mutating').object,
    oldObject: null,
    dryRun: false,
    options: { kind: 'CreateOptions', apiVersion: 'meta.platform.io/v1', fieldManager: 'kubectl' },
  });
});

test('webhook dispatch - a refusal keeps its code (400 at least) and message; metrics count it with the code as given (0 for none), capped at 600', async () => {
  const answers: Record<string, Answer> = {
    'teapot.example.com': () => ({ allowed: false, status: { code: 418, message: 'no tea here', reason: 'Teapot' } }),
    'low.example.com': () => ({ allowed: false, status: { code: 200, message: 'not allowed' } }),
    'silent.example.com': () => ({ allowed: false }),
    'huge.example.com': () => ({ allowed: false, status: { code: 700 } }),
  };
  const h = await harness({ validating: Object.keys(answers).map((n) => hook(n)), answers });
  const reply = await h.run([h.validating], createCm('validating'));
  assert.equal(reply.allowed, false);
  assert.deepEqual([reply.status?.code, reply.status?.reason, reply.status?.message], [418, 'Teapot', 'admission webhook "teapot.example.com" denied the request: no tea here']);
  assert.equal(h.calls.length, 4, 'validating webhooks are all called');
  const alone = async (name: string) => {
    const one = await harness({ validating: [hook(name)], answers });
    return (await one.run([one.validating], createCm('validating'))).status;
  };
  const low = await alone('low.example.com');
  assert.deepEqual([low?.code, low?.message], [400, 'admission webhook "low.example.com" denied the request: not allowed']);
  assert.equal((await alone('silent.example.com'))?.message, 'admission webhook "silent.example.com" denied the request without explanation');
  const text = await h.metrics.metrics();
  assert.match(text, /^apiserver_admission_webhook_rejection_count\{name="teapot\.example\.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="418"\} 1$/m);
  assert.match(text, /^apiserver_admission_webhook_rejection_count\{name="huge\.example\.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="600"\} 1$/m);
  // The client sees 400 for these; the metric shows what the webhook sent.
  assert.match(text, /^apiserver_admission_webhook_rejection_count\{name="low\.example\.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="200"\} 1$/m);
  assert.match(text, /^apiserver_admission_webhook_rejection_count\{name="silent\.example\.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="0"\} 1$/m);
  assert.match(text, /^apiserver_admission_webhook_admission_duration_seconds_count\{name="teapot\.example\.com",type="validating",operation="CREATE",rejected="true"\} 1$/m);
});

test('webhook dispatch - failurePolicy decides on no answer, a bad answer or an error status; a refusal always rejects', async () => {
  const cases: Array<[string, Answer, 'Fail' | 'Ignore', number | null, RegExp?]> = [
    [
      'unreachable, Fail',
      () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9')),
      'Fail',
      500,
      /^Internal error occurred: failed calling webhook "h\.example\.com": failed to call webhook: connect ECONNREFUSED/,
    ],
    ['unreachable, Ignore', () => Promise.reject(new Error('no response within 5000 ms')), 'Ignore', null],
    ['HTTP 500, Fail', () => ({ status: 500, body: undefined }), 'Fail', 500, /the server responded with HTTP 500/],
    ['HTTP 500, Ignore', () => ({ status: 500, body: undefined }), 'Ignore', null],
    [
      'wrong uid, Fail',
      (r) => ({ status: 200, body: { apiVersion: 'admission.platform.io/v1', kind: 'AdmissionReview', response: { uid: 'other', allowed: true } } }),
      'Fail',
      500,
      /received invalid webhook response: expected response\.uid=".*", got "other"/,
    ],
    [
      'wrong kind, Fail',
      (r) => ({ status: 200, body: { apiVersion: 'v1', kind: 'Status', response: { uid: r.request.uid, allowed: true } } }),
      'Fail',
      500,
      /expected webhook response of admission\.platform\.io\/v1, Kind=AdmissionReview/,
    ],
    ['no response, Ignore', () => ({ status: 200, body: { apiVersion: 'admission.platform.io/v1', kind: 'AdmissionReview' } }), 'Ignore', null],
    ['patch without patchType, Fail', () => ({ allowed: true, patch: Buffer.from('[]').toString('base64') }), 'Fail', 500, /webhook returned response\.patch but not response\.patchType/],
    ['undecodable patch, Ignore', () => ({ allowed: true, patchType: 'JSONPatch', patch: 'not base64 json' }), 'Ignore', null],
    ['refusal, Ignore', () => ({ allowed: false, status: { code: 403, message: 'no' } }), 'Ignore', 403],
    ['upstream spelling answered', (r) => ({ status: 200, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: r.request.uid, allowed: true } } }), 'Fail', null],
  ];
  for (const [name, answer, failurePolicy, code, message] of cases) {
    const h = await harness({ mutating: [hook('h.example.com', { failurePolicy })], answers: { 'h.example.com': answer } });
    const reply = await h.run([h.mutating], createCm('mutating'));
    assert.equal(reply.allowed, code === null, name);
    if (code !== null) assert.equal(reply.status?.code, code, name);
    if (message) assert.match(reply.status!.message, message, name);
    if (code === null && name !== 'upstream spelling answered') {
      assert.equal(reply.auditAnnotations?.['failed-open.mutation.webhook.admission.platform.io/round_0_index_0'], 'h.example.com', name);
      assert.match(await h.metrics.metrics(), /^apiserver_admission_webhook_fail_open_count\{name="h\.example\.com",type="admit"\} 1$/m, name);
    }
    if (code === 500)
      assert.match(
        await h.metrics.metrics(),
        /^apiserver_admission_webhook_rejection_count\{name="h\.example\.com",type="admit",operation="CREATE",error_type="calling_webhook_error",rejection_code="(500|503)"\} 1$/m,
        name,
      );
  }
});

test('webhook dispatch - a dry run fails at a webhook with side effects Unknown or Some without calling it; None and NoneOnDryRun are called', async () => {
  for (const [sideEffects, called] of [
    ['Unknown', false],
    ['Some', false],
    ['None', true],
    ['NoneOnDryRun', true],
  ] as const) {
    const h = await harness({ validating: [hook('h.example.com', { sideEffects })], answers: { 'h.example.com': () => ({ allowed: true }) } });
    const reply = await h.run([h.validating], createCm('validating', { dryRun: true }));
    assert.equal(h.calls.length, called ? 1 : 0, sideEffects);
    assert.equal(reply.allowed, called, sideEffects);
    if (!called) assert.deepEqual([reply.status?.code, reply.status?.message], [400, 'admission webhook "h.example.com" does not support dry run']);
    else assert.equal(h.calls[0]!.review.request.dryRun, true);
  }
});

test('webhook dispatch - reinvocation: a later change calls IfNeeded webhooks once more, and the plugins before them', async () => {
  let inTree = 0;
  const labeler: AdmissionPlugin = {
    name: 'InTree',
    mutate(req) {
      inTree++;
      req.object!.metadata.labels = { ...req.object!.metadata.labels, seen: String(Object.keys(req.object!.data as object).length) };
    },
  };
  const h = await harness({
    mutating: [hook('first.example.com', { reinvocationPolicy: 'IfNeeded' }), hook('second.example.com'), hook('never.example.com')],
    answers: {
      // Idempotent: adds `first` once, and records how many keys it saw.
      'first.example.com': (r) => patch(r.request.object.data.first ? [] : [{ op: 'add', path: '/data/first', value: '1' }]),
      'second.example.com': (r) => patch(r.request.object.data.second ? [] : [{ op: 'add', path: '/data/second', value: '2' }]),
      'never.example.com': () => ({ allowed: true }),
    },
  });
  const reply = await h.run([labeler, h.mutating], createCm('mutating'));
  assert.equal(reply.allowed, true);
  assert.deepEqual(reply.object?.data, { k: 'v', first: '1', second: '2' });
  assert.deepEqual(
    h.calls.map((c) => c.hook),
    ['first.example.com', 'second.example.com', 'never.example.com', 'first.example.com'],
    'only the IfNeeded webhook is called again',
  );
  assert.equal(inTree, 2, 'the chain ran twice');
  assert.equal(reply.object?.metadata.labels?.seen, '3', "the in-tree plugin saw the webhooks' changes");
  const second = h.calls[3]!.review.request.object;
  assert.deepEqual(second.data, { k: 'v', first: '1', second: '2' }, 'the reinvoked webhook sees the later change');
  assert.equal(reply.auditAnnotations?.['mutation.webhook.admission.platform.io/round_1_index_0'], JSON.stringify({ configuration: 'cfg', webhook: 'first.example.com', mutated: false }));

  // Nothing changed after the IfNeeded webhook: it is not called again.
  h.calls.length = 0;
  const quiet = await harness({
    mutating: [hook('first.example.com', { reinvocationPolicy: 'IfNeeded' })],
    answers: { 'first.example.com': (r) => patch(r.request.object.data.first ? [] : [{ op: 'add', path: '/data/first', value: '1' }]) },
  });
  await quiet.run([quiet.mutating], createCm('mutating'));
  assert.equal(quiet.calls.length, 1);
});

test("webhook dispatch - matchPolicy Equivalent: the webhook sees its own version, its patch lands in the request's", async () => {
  const cronRules = [{ operations: ['CREATE'], apiGroups: ['batch'], apiVersions: ['v1beta1'], resources: ['cronjobs'] }];
  const h = await harness({
    mutating: [hook('cron.example.com', { rules: cronRules })],
    answers: { 'cron.example.com': () => patch([{ op: 'add', path: '/metadata/labels', value: { seen: 'beta' } }]) },
  });
  const cron: ApiObject = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'c', namespace: 'team-a' },
    spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } } },
  };
  const reply = await h.run([h.mutating], {
    ...createCm('mutating'),
    kind: { group: 'batch', version: 'v1', kind: 'CronJob' },
    resource: { group: 'batch', version: 'v1', resource: 'cronjobs' },
    name: 'c',
    object: cron,
  });
  assert.equal(reply.allowed, true);
  const req = h.calls[0]!.review.request;
  assert.deepEqual(
    [req.kind, req.resource, req.requestKind, req.requestResource, req.object.apiVersion],
    [
      { group: 'batch', version: 'v1beta1', kind: 'CronJob' },
      { group: 'batch', version: 'v1beta1', resource: 'cronjobs' },
      { group: 'batch', version: 'v1', kind: 'CronJob' },
      { group: 'batch', version: 'v1', resource: 'cronjobs' },
      'batch/v1beta1',
    ],
  );
  assert.equal(reply.object?.apiVersion, 'batch/v1');
  assert.deepEqual(reply.object?.metadata.labels, { seen: 'beta' });
});

test('webhook dispatch - v1beta1 reviews are lenient about the answer; a webhook accepting no known version fails by its policy', async () => {
  const h = await harness({
    validating: [hook('beta.example.com', { admissionReviewVersions: ['v1beta1'] })],
    answers: { 'beta.example.com': () => ({ status: 200, body: { response: { allowed: true } } }) },
  });
  assert.equal((await h.run([h.validating], createCm('validating'))).allowed, true);
  assert.equal(h.calls[0]!.review.apiVersion, 'admission.platform.io/v1beta1');
  const none = await harness({ validating: [hook('v9.example.com', { admissionReviewVersions: ['v9'], failurePolicy: 'Fail' })], answers: {} });
  const reply = await none.run([none.validating], createCm('validating'));
  assert.equal(reply.status?.code, 500);
  assert.match(reply.status!.message, /does not accept known AdmissionReview versions/);
  assert.equal(none.calls.length, 0);
});

test('webhook dispatch - a patch on a delete and a patch that does not apply are internal errors whatever the policy', async () => {
  const h = await harness({
    mutating: [hook('del.example.com', { failurePolicy: 'Ignore', rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })],
    answers: { 'del.example.com': (r) => patch(r.request.operation === 'DELETE' ? [{ op: 'add', path: '/x', value: 1 }] : [{ op: 'replace', path: '/nope/deeper', value: 1 }]) },
  });
  const del = await h.run([h.mutating], createCm('mutating', { operation: 'DELETE', object: null, oldObject: createCm('mutating').object }));
  assert.deepEqual(
    [del.status?.code, del.status?.message],
    [500, 'Internal error occurred: admission webhook "del.example.com" attempted to modify the object, which is not supported for this operation'],
  );
  const bad = await h.run([h.mutating], createCm('mutating'));
  assert.equal(bad.status?.code, 500);
});

test('webhook dispatch - connect: the webhook sees the options object, and may patch it', async () => {
  const h = await harness({
    mutating: [hook('exec.example.com', { rules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'] }] })],
    answers: { 'exec.example.com': () => patch([{ op: 'replace', path: '/command', value: ['audited-shell'] }]) },
  });
  const options = { kind: 'PodExecOptions', apiVersion: 'v1', command: ['sh'], stdin: true } as unknown as ApiObject;
  const reply = await h.run([h.mutating], {
    ...createCm('mutating'),
    kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subResource: 'exec',
    name: 'web-0',
    operation: 'CONNECT',
    object: options,
    options: null,
  });
  assert.equal(reply.allowed, true, reply.status?.message);
  assert.deepEqual(reply.object, { kind: 'PodExecOptions', apiVersion: 'v1', command: ['audited-shell'], stdin: true }, 'no pod defaults land on the options');
  const req = h.calls[0]!.review.request;
  assert.deepEqual([req.operation, req.subResource, req.kind.kind, req.options, req.oldObject], ['CONNECT', 'exec', 'PodExecOptions', null, null]);
});
