// The AdmissionReview sent for each operation, the options the gateway attaches, and the
// configurations the API refuses or defaults (through the registry's validation, as a create would).

import { podRequest } from './webhook-fixtures.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { admissionOptions } from '../../../shared/registry/rest/admission.js';
import type { WriteRequest } from '../../../shared/registry/rest/store-types.js';
import { parseReviewResponse, rejectionStatus, reviewRequest } from '../plugins/webhooks/review.js';
import type { Invocation } from '../plugins/webhooks/matcher.js';
import { webhooksOf } from '../plugins/webhooks/webhooks.js';

const hook = webhooksOf('validating', [{ apiVersion: 'x', kind: 'x', metadata: { name: 'c' }, webhooks: [{ name: 'h.example.com' }] }])[0]!;
const pod: ApiObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'a' } };
const req = (r: Partial<AdmissionRequest>) => podRequest({ namespace: 'a', userInfo: { username: 'system:anonymous', groups: [] }, object: pod, ...r });

test('admission review - delete, connect and a subresource update as the webhook sees them', () => {
  const inv = (r: AdmissionRequest): Invocation => ({ webhook: hook, resource: r.resource, subResource: r.subResource ?? '', kind: r.kind });
  const del = req({ operation: 'DELETE', object: null, oldObject: pod, options: { kind: 'DeleteOptions', apiVersion: 'meta.platform.io/v1', propagationPolicy: 'Foreground' }, dryRun: true });
  const d = reviewRequest('v1', 'id-1', inv(del), del, { object: null, oldObject: pod }).request as Record<string, unknown>;
  assert.deepEqual([d.object, d.oldObject, d.options, d.dryRun, d.userInfo], [null, pod, del.options, true, { username: 'system:anonymous' }]);
  const exec = req({
    operation: 'CONNECT',
    subResource: 'exec',
    kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
    object: { kind: 'PodExecOptions', apiVersion: 'v1', command: ['ls'] } as unknown as ApiObject,
  });
  const c = reviewRequest('v1beta1', 'id-2', inv(exec), exec, { object: exec.object, oldObject: null });
  assert.equal(c.apiVersion, 'admission.platform.io/v1beta1');
  const cr = c.request as Record<string, unknown>;
  assert.deepEqual([cr.subResource, cr.requestSubResource, cr.kind, cr.options, cr.oldObject], ['exec', 'exec', { group: '', version: 'v1', kind: 'PodExecOptions' }, null, null]);
  const node = req({ namespace: undefined, name: 'n1', resource: { group: '', version: 'v1', resource: 'nodes' }, subResource: 'status', operation: 'UPDATE' });
  const n = reviewRequest('v1', 'id-3', inv(node), node, { object: pod, oldObject: pod }).request as Record<string, unknown>;
  assert.equal('namespace' in n, false, 'no namespace for a cluster-scoped object');
  assert.equal(n.subResource, 'status');
});

test('admission review - the options each write carries', () => {
  const w = { dryRun: false, manager: 'kubectl-client-side-apply' } as WriteRequest;
  assert.deepEqual(admissionOptions(w, 'CREATE'), { kind: 'CreateOptions', apiVersion: 'meta.platform.io/v1', fieldManager: 'kubectl-client-side-apply' });
  assert.deepEqual(admissionOptions({ ...w, dryRun: true }, 'UPDATE'), { kind: 'UpdateOptions', apiVersion: 'meta.platform.io/v1', dryRun: ['All'], fieldManager: 'kubectl-client-side-apply' });
  assert.deepEqual(admissionOptions({ ...w, deleteOptions: { gracePeriodSeconds: 0, propagationPolicy: 'Orphan', preconditions: { uid: 'x' } } }, 'DELETE'), {
    kind: 'DeleteOptions',
    apiVersion: 'meta.platform.io/v1',
    gracePeriodSeconds: 0,
    preconditions: { uid: 'x' },
    propagationPolicy: 'Orphan',
  });
  assert.equal(admissionOptions(w, 'CONNECT'), null);
});

test('admission review - answers: warnings, audit annotations and patches read; refusals shaped as upstream', () => {
  const r = parseReviewResponse(
    'v1',
    'id',
    {
      apiVersion: 'admission.platform.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'id', allowed: true, warnings: ['w1', 7], auditAnnotations: { a: 'b', n: 1 }, patchType: 'JSONPatch', patch: Buffer.from('[{"op":"remove","path":"/x"}]').toString('base64') },
    },
    true,
  );
  assert.deepEqual(r, { allowed: true, warnings: ['w1'], auditAnnotations: { a: 'b' }, patch: [{ op: 'remove', path: '/x' }] });
  assert.equal(
    parseReviewResponse('v1', 'id', { apiVersion: 'admission.platform.io/v1', kind: 'AdmissionReview', response: { uid: 'id', allowed: true, patch: 'e30=' } }, false).patch,
    undefined,
    "a validating webhook's patch is ignored",
  );
  assert.throws(
    () => parseReviewResponse('v1', 'id', { apiVersion: 'admission.platform.io/v1', kind: 'AdmissionReview', response: { uid: 'id', allowed: true, patchType: 'MergePatch', patch: 'e30=' } }, true),
    /invalid response\.patchType of "MergePatch"/,
  );
  assert.throws(
    () => parseReviewResponse('v1', 'id', { apiVersion: 'admission.platform.io/v1', kind: 'AdmissionReview', response: { uid: 'id', allowed: true, patchType: 'JSONPatch', patch: 'e30=' } }, true),
    /must be an array/,
  );
  assert.deepEqual(rejectionStatus('h', { code: 422, message: 'bad', details: { causes: [{ reason: 'FieldValueInvalid', message: 'm', field: 'spec' }] } }), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'admission webhook "h" denied the request: bad',
    reason: '',
    code: 422,
    details: { causes: [{ reason: 'FieldValueInvalid', message: 'm', field: 'spec' }] },
  });
  assert.equal(rejectionStatus('h', { reason: 'NotAllowed' }).message, 'admission webhook "h" denied the request: NotAllowed');
});

test('webhook configurations - the API refuses what the spec refuses and defaults what it defaults, per version', () => {
  const registry = createBuiltinRegistry();
  const served = (version: string) => registry.lookup('admissionregistration.platform.io', version, 'validatingwebhookconfigurations')!;
  const create = (version: string, webhook: Record<string, unknown>) => {
    const obj: ApiObject = { apiVersion: `admissionregistration.platform.io/${version}`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'cfg' }, webhooks: [webhook] };
    registry.defaults(served(version), obj);
    return { obj, errors: registry.validate(served(version), obj).map((e) => `${e.field}: ${e.type}`) };
  };
  const ok = {
    name: 'h.example.com',
    clientConfig: { url: 'https://hooks.example.com/check' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };
  const cases: Array<[string, string, Record<string, unknown>, string[]]> = [
    ['valid v1', 'v1', ok, []],
    ['v1 needs sideEffects', 'v1', { ...ok, sideEffects: undefined }, ['webhooks[0].sideEffects: Required value']],
    ['v1 refuses sideEffects Unknown', 'v1', { ...ok, sideEffects: 'Unknown' }, ['webhooks[0].sideEffects: Unsupported value']],
    ['v1 needs admissionReviewVersions', 'v1', { ...ok, admissionReviewVersions: undefined }, ['webhooks[0].admissionReviewVersions: Required value']],
    ['v1beta1 with no supported review version', 'v1beta1', { ...ok, admissionReviewVersions: ['v2'] }, ['webhooks[0].admissionReviewVersions: Invalid value']],
    ['url with userinfo', 'v1', { ...ok, clientConfig: { url: 'https://u@hooks.example.com/' } }, ['webhooks[0].clientConfig.url: Invalid value']],
    ['http url', 'v1', { ...ok, clientConfig: { url: 'http://hooks.example.com/' } }, ['webhooks[0].clientConfig.url: Invalid value']],
    ['service without name', 'v1', { ...ok, clientConfig: { service: { namespace: 'n' } } }, ['webhooks[0].clientConfig.service.name: Required value']],
    ['timeout 31', 'v1beta1', { ...ok, timeoutSeconds: 31 }, ['webhooks[0].timeoutSeconds: Invalid value']],
  ];
  for (const [name, version, w, want] of cases) {
    const clean = Object.fromEntries(Object.entries(w).filter(([, v]) => v !== undefined));
    assert.deepEqual(create(version, clean).errors, want, name);
  }
  const dup = create('v1', ok);
  assert.deepEqual(
    registry.validate(served('v1'), { ...dup.obj, webhooks: [ok, ok] }).map((e) => `${e.field}: ${e.type}`),
    ['webhooks[1].name: Duplicate value'],
  );
  const v1 = create('v1', { ...ok, clientConfig: { service: { namespace: 'n', name: 's' } } }).obj.webhooks as Array<Record<string, any>>;
  assert.deepEqual([v1[0]!.failurePolicy, v1[0]!.matchPolicy, v1[0]!.timeoutSeconds, v1[0]!.clientConfig.service], ['Fail', 'Equivalent', 10, { namespace: 'n', name: 's', path: '/', port: 443 }]);
  const beta = create('v1beta1', { name: 'h.example.com', clientConfig: { url: 'https://hooks.example.com/' } }).obj.webhooks as Array<Record<string, any>>;
  assert.deepEqual([beta[0]!.failurePolicy, beta[0]!.matchPolicy, beta[0]!.timeoutSeconds, beta[0]!.sideEffects, beta[0]!.admissionReviewVersions], ['Ignore', 'Exact', 30, 'Unknown', ['v1beta1']]);
});
