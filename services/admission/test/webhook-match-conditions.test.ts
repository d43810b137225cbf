// Whether a webhook is called, with matchConditions: evaluated last, on the objects in the version
// the webhook sees them; one false skips it; evaluation errors follow its failurePolicy (Ignore
// skips it, Fail refuses the request with upstream's 403).

import { podRequest } from './webhook-fixtures.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { StatusError } from '../../../shared/api/status.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { registryApiTypes } from '../plugins/webhooks/api-types.js';
import { invocationFor, type MatchEnvironment } from '../plugins/webhooks/matcher.js';
import { webhooksOf, type Webhook } from '../plugins/webhooks/webhooks.js';

const types = registryApiTypes(createBuiltinRegistry());
const env: MatchEnvironment = { types: () => types, namespaceLabels: async () => ({}) };

function hookOf(w: Record<string, unknown>): Webhook {
  const base = {
    name: 'h.example.com',
    clientConfig: { url: 'https://hooks.example.com/' },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*' }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };
  const config: ApiObject = { apiVersion: 'admissionregistration.platform.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'c' }, webhooks: [{ ...base, ...w }] };
  return webhooksOf('validating', [config])[0]!;
}

const request = (r: Partial<AdmissionRequest> = {}) => podRequest({ userInfo: { username: 'jane', groups: ['devs'] }, ...r });
const called = async (hook: Webhook, req = request()) => (await invocationFor(hook, req, req.object, env)) !== null;

test('webhook match conditions - all true calls the webhook, one false skips it', async () => {
  const cases: Array<[string, string[], boolean]> = [
    ['no conditions', [], true],
    ['all true', ["request.userInfo.username == 'jane'", "object.metadata.labels.app == 'web'", "request.namespace == 'team-a'"], true],
    ['one false', ["request.userInfo.username == 'jane'", "'admins' in request.userInfo.groups"], false],
    ['excluding a user', ["request.userInfo.username != 'jane'"], false],
    ['old object absent on create', ['oldObject == null'], true],
  ];
  for (const [name, expressions, want] of cases) {
    const hook = hookOf({ matchConditions: expressions.map((expression, i) => ({ name: `c${i}`, expression })) });
    assert.equal(await called(hook), want, name);
  }
});

test('webhook match conditions - evaluation errors: Ignore skips the webhook, Fail refuses with 403', async () => {
  const conditions = [{ name: 'old', expression: "oldObject.metadata.name == 'p'" }];
  assert.equal(await called(hookOf({ failurePolicy: 'Ignore', matchConditions: conditions })), false);
  await assert.rejects(
    () => called(hookOf({ failurePolicy: 'Fail', matchConditions: conditions })),
    (err: unknown) =>
      err instanceof StatusError &&
      err.code === 403 &&
      err.status.reason === 'Forbidden' &&
      err.message === `pods "p" is forbidden: expression 'oldObject.metadata.name == 'p'' resulted in error: no such key: metadata`,
  );
  // A false condition wins over another's error, whatever the policy.
  assert.equal(await called(hookOf({ failurePolicy: 'Fail', matchConditions: [...conditions, { name: 'never', expression: 'false' }] })), false);
  // An update has an old object: the same condition now holds.
  const update = request({ operation: 'UPDATE', oldObject: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } });
  assert.equal(await called(hookOf({ failurePolicy: 'Fail', matchConditions: conditions }), update), true);
});

test('webhook match conditions - only after the rules match, on the object in the version the webhook sees', async () => {
  const cron = request({
    kind: { group: 'batch', version: 'v1', kind: 'CronJob' },
    resource: { group: 'batch', version: 'v1', resource: 'cronjobs' },
    object: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: {} } } as unknown as ApiObject,
  });
  const beta = (expression: string) =>
    hookOf({ failurePolicy: 'Fail', rules: [{ operations: ['CREATE'], apiGroups: ['batch'], apiVersions: ['v1beta1'], resources: ['cronjobs'] }], matchConditions: [{ name: 'c', expression }] });
  assert.equal(await called(beta("object.apiVersion == 'batch/v1beta1' && request.kind.version == 'v1beta1' && request.requestKind.version == 'v1'"), cron), true);
  assert.equal(await called(beta("object.apiVersion == 'batch/v1'"), cron), false);
  // Rules that do not match: the conditions are not evaluated, so their error does not fail the request.
  const pods = hookOf({
    failurePolicy: 'Fail',
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    matchConditions: [{ name: 'c', expression: 'oldObject.x' }],
  });
  assert.equal(await called(pods, cron), false);
});
