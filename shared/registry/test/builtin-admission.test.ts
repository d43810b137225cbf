import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { mutatingwebhookconfigurations as mwc } from '../builtin/admissionregistration/mutating-webhook-configuration.js';
import { validatingwebhookconfigurations as vwc } from '../builtin/admissionregistration/validating-webhook-configuration.js';
import { createFlow, fields, schemaErrors } from './builtin-helpers.js';
import { deprecationWarning } from '../versions.js';

const G = 'admissionregistration.platform.io';

function config(version: 'v1' | 'v1beta1', webhook: Record<string, unknown>, extra: Array<Record<string, unknown>> = []): ApiObject {
  return { apiVersion: `${G}/${version}`, kind: 'MutatingWebhookConfiguration', metadata: { name: 'cfg' }, webhooks: [webhook, ...extra] };
}

const v1Hook = {
  name: 'hook.example.com',
  clientConfig: { service: { namespace: 'ns', name: 'svc' } },
  rules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
};

function hook(patch: Record<string, unknown>): Record<string, unknown> {
  const h: Record<string, unknown> = { ...structuredClone(v1Hook), ...patch };
  for (const [k, v] of Object.entries(patch)) if (v === undefined) delete h[k];
  return h;
}

describe('webhook configuration defaults per version', () => {
  it('v1: Fail, Equivalent, 10s, scope *, service path / and port 443, reinvocation Never', () => {
    const { obj, errors, schema } = createFlow(mwc, config('v1', v1Hook), 'v1');
    assert.deepEqual([errors, schema], [[], []]);
    const w = (obj.webhooks as Array<Record<string, any>>)[0]!;
    assert.equal(w.failurePolicy, 'Fail');
    assert.equal(w.matchPolicy, 'Equivalent');
    assert.equal(w.timeoutSeconds, 10);
    assert.equal(w.reinvocationPolicy, 'Never');
    assert.equal(w.rules[0].scope, '*');
    assert.deepEqual(w.clientConfig.service, { namespace: 'ns', name: 'svc', path: '/', port: 443 });
    assert.deepEqual(w.namespaceSelector, {});
    assert.deepEqual(w.objectSelector, {});
  });

  it('v1beta1: Ignore, Exact, 30s, sideEffects Unknown, admissionReviewVersions [v1beta1]', () => {
    const h = hook({ sideEffects: undefined, admissionReviewVersions: undefined });
    const { obj, errors, schema } = createFlow(mwc, config('v1beta1', h), 'v1beta1');
    assert.deepEqual([errors, schema], [[], []]);
    const w = (obj.webhooks as Array<Record<string, any>>)[0]!;
    assert.equal(w.failurePolicy, 'Ignore');
    assert.equal(w.matchPolicy, 'Exact');
    assert.equal(w.timeoutSeconds, 30);
    assert.equal(w.sideEffects, 'Unknown');
    assert.deepEqual(w.admissionReviewVersions, ['v1beta1']);
  });

  it('validating webhooks get no reinvocationPolicy', () => {
    const { obj } = createFlow(vwc, { ...config('v1', v1Hook), kind: 'ValidatingWebhookConfiguration' }, 'v1');
    assert.equal((obj.webhooks as Array<Record<string, unknown>>)[0]!.reinvocationPolicy, undefined);
  });

  it('marks v1beta1 deprecated with the upstream warning', () => {
    const beta = mwc.versions.find((v) => v.name === 'v1beta1')!;
    assert.equal(beta.deprecation?.removedIn, '1.22');
    assert.equal(
      deprecationWarning(mwc.group, beta.name, mwc.kind, beta.deprecation!),
      'admissionregistration.platform.io/v1beta1 MutatingWebhookConfiguration is deprecated in v1.16+, unavailable in v1.22+; use admissionregistration.platform.io/v1 MutatingWebhookConfiguration',
    );
    assert.equal(mwc.storageVersion, 'v1');
  });
});

describe('webhook configuration schema per version', () => {
  it('v1 requires sideEffects and admissionReviewVersions; v1beta1 does not', () => {
    const bare = config('v1', hook({ sideEffects: undefined, admissionReviewVersions: undefined }));
    assert.equal(schemaErrors(mwc, bare, 'v1').length, 2);
    assert.deepEqual(schemaErrors(mwc, bare, 'v1beta1'), []);
  });

  it('sideEffects values differ per version', () => {
    assert.equal(schemaErrors(mwc, config('v1', hook({ sideEffects: 'Unknown' })), 'v1').length, 1);
    assert.equal(schemaErrors(mwc, config('v1', hook({ sideEffects: 'Some' })), 'v1').length, 1);
    assert.deepEqual(schemaErrors(mwc, config('v1beta1', hook({ sideEffects: 'Some' })), 'v1beta1'), []);
  });

  it('checks enums of failurePolicy, matchPolicy, operations and scope', () => {
    for (const bad of [
      { failurePolicy: 'Retry' },
      { matchPolicy: 'Fuzzy' },
      { rules: [{ operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
      { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Global' }] },
      { reinvocationPolicy: 'Always' },
    ]) {
      assert.equal(schemaErrors(mwc, config('v1', hook(bad)), 'v1').length, 1, JSON.stringify(bad));
    }
  });
});

describe('webhook configuration rules', () => {
  const cases: Array<[string, 'v1' | 'v1beta1', Record<string, unknown>[], string[]]> = [
    ['valid', 'v1', [v1Hook], []],
    ['name missing', 'v1', [hook({ name: undefined })], ['webhooks[0].name: Required value']],
    ['name with two segments', 'v1', [hook({ name: 'hook.example' })], ['webhooks[0].name: Invalid value']],
    ['duplicate names in v1', 'v1', [v1Hook, v1Hook], ['webhooks[1].name: Duplicate value']],
    ['duplicate names allowed in v1beta1', 'v1beta1', [v1Hook, v1Hook], []],
    ['https url', 'v1', [hook({ clientConfig: { url: 'https://hooks.example.com:8443/mutate' } })], []],
    ['http url', 'v1', [hook({ clientConfig: { url: 'http://hooks.example.com/' } })], ['webhooks[0].clientConfig.url: Invalid value']],
    ['url with userinfo', 'v1', [hook({ clientConfig: { url: 'https://user:pw@hooks.example.com/' } })], ['webhooks[0].clientConfig.url: Invalid value']],
    ['url with query', 'v1', [hook({ clientConfig: { url: 'https://hooks.example.com/?a=b' } })], ['webhooks[0].clientConfig.url: Invalid value']],
    ['url with fragment', 'v1', [hook({ clientConfig: { url: 'https://hooks.example.com/#x' } })], ['webhooks[0].clientConfig.url: Invalid value']],
    ['url and service', 'v1', [hook({ clientConfig: { url: 'https://a.example.com/', service: { namespace: 'n', name: 's' } } })], ['webhooks[0].clientConfig: Required value']],
    ['neither url nor service', 'v1', [hook({ clientConfig: {} })], ['webhooks[0].clientConfig: Required value']],
    ['service without namespace', 'v1', [hook({ clientConfig: { service: { name: 's' } } })], ['webhooks[0].clientConfig.service.namespace: Required value']],
    ['service path not absolute', 'v1', [hook({ clientConfig: { service: { namespace: 'n', name: 's', path: 'mutate' } } })], ['webhooks[0].clientConfig.service.path: Invalid value']],
    ['service port out of range', 'v1', [hook({ clientConfig: { service: { namespace: 'n', name: 's', port: 70000 } } })], ['webhooks[0].clientConfig.service.port: Invalid value']],
    ['timeout 0', 'v1', [hook({ timeoutSeconds: 0 })], ['webhooks[0].timeoutSeconds: Invalid value']],
    ['timeout 31', 'v1', [hook({ timeoutSeconds: 31 })], ['webhooks[0].timeoutSeconds: Invalid value']],
    ['timeout 30', 'v1', [hook({ timeoutSeconds: 30 })], []],
    ['no supported review version', 'v1', [hook({ admissionReviewVersions: ['v2'] })], ['webhooks[0].admissionReviewVersions: Invalid value']],
    ['empty review versions in v1', 'v1', [hook({ admissionReviewVersions: [] })], ['webhooks[0].admissionReviewVersions: Required value']],
    ['supported among unknown', 'v1', [hook({ admissionReviewVersions: ['v2', 'v1beta1'] })], []],
    [
      '* with other operations',
      'v1',
      [hook({ rules: [{ operations: ['*', 'CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })],
      ['webhooks[0].rules[0].operations: Invalid value'],
    ],
    [
      '*/* with other resources',
      'v1',
      [hook({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/*', 'pods'] }] })],
      ['webhooks[0].rules[0].resources: Invalid value'],
    ],
    [
      'pods/* with pods/status',
      'v1',
      [hook({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*', 'pods/status'] }] })],
      ['webhooks[0].rules[0].resources: Invalid value'],
    ],
    ['*/status and pods', 'v1', [hook({ rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/status', 'pods'] }] })], []],
    ['rule without apiVersions', 'v1', [hook({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: [], resources: ['pods'] }] })], ['webhooks[0].rules[0].apiVersions: Required value']],
    [
      'bad namespaceSelector operator',
      'v1',
      [hook({ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } })],
      ['webhooks[0].namespaceSelector.matchExpressions[0].values: Required value'],
    ],
  ];
  for (const [name, version, hooks, want] of cases) {
    it(`${version}: ${name}`, () => {
      const o = config(version, hooks[0]!, hooks.slice(1));
      assert.deepEqual(fields(createFlow(mwc, o, version).errors), want);
    });
  }

  it('keeps old duplicate-name objects updatable in v1', () => {
    const old = createFlow(mwc, config('v1beta1', v1Hook, [v1Hook]), 'v1beta1').obj;
    const next = { ...structuredClone(old), apiVersion: `${G}/v1` };
    assert.deepEqual(mwc.strategy!.validateUpdate!(next, old), []);
  });
});
