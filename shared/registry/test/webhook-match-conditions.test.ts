// Admission webhooks' matchConditions: what a write of a configuration refuses (422 causes), and how
// the compiled conditions decide a request (all true: call; one false: skip; otherwise errors).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { validatingwebhookconfigurations as vwc } from '../builtin/admissionregistration/validating-webhook-configuration.js';
import { mutatingwebhookconfigurations as mwc } from '../builtin/admissionregistration/mutating-webhook-configuration.js';
import { aggregateErrors, compileMatchCondition, evaluateMatchConditions, type ConditionRequest } from '../builtin/admissionregistration/match-conditions.js';
import { createFlow } from './builtin-helpers.js';

const G = 'admissionregistration.platform.io';
const hook = {
  name: 'hook.example.com',
  clientConfig: { url: 'https://hooks.example.com/' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
};
const config = (version: 'v1' | 'v1beta1', matchConditions: unknown): ApiObject =>
  ({ apiVersion: `${G}/${version}`, metadata: { name: 'cfg' }, webhooks: [{ ...hook, matchConditions }] }) as unknown as ApiObject;
const errorsOf = (o: ApiObject, type = vwc, version = 'v1') => createFlow(type, o, version).errors.map((e) => `${e.field}: ${e.type}${e.detail ? `: ${e.detail}` : ''}`);
const F = 'webhooks[0].matchConditions';

describe('webhook match conditions - written', () => {
  it('accepted in both kinds and versions, the schema keeps them', () => {
    const ok = [
      { name: 'not-leases', expression: "request.resource.resource != 'leases'" },
      { name: 'example.com/labelled', expression: "has(object.metadata.labels) && 'app' in object.metadata.labels" },
    ];
    for (const [type, version] of [
      [vwc, 'v1'],
      [vwc, 'v1beta1'],
      [mwc, 'v1'],
    ] as const) {
      const flow = createFlow(type, config(version, ok), version);
      assert.deepEqual([flow.errors, flow.schema], [[], []], `${type.kind} ${version}`);
      assert.deepEqual((flow.obj.webhooks as Array<Record<string, unknown>>)[0]!.matchConditions, ok);
    }
  });

  const cases: Array<[string, unknown, string[]]> = [
    ['name and expression required', [{}], [`${F}[0].name: Required value`, `${F}[0].expression: Required value`]],
    ['a blank expression is missing', [{ name: 'a', expression: '  ' }], [`${F}[0].expression: Required value`]],
    [
      'names are qualified names',
      [{ name: 'not a name', expression: 'true' }],
      [
        `${F}[0].name: Invalid value: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
    [
      'names are unique',
      [
        { name: 'a', expression: 'true' },
        { name: 'a', expression: 'false' },
      ],
      [`${F}[1].name: Duplicate value`],
    ],
    ['an expression must evaluate to bool', [{ name: 'a', expression: "'yes'" }], [`${F}[0].expression: Invalid value: must evaluate to bool`]],
    [
      'an expression must compile',
      [{ name: 'a', expression: 'nope == 1' }],
      [`${F}[0].expression: Invalid value: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope == 1\n | ^`],
    ],
    [
      'authorizer is refused',
      [{ name: 'a', expression: "authorizer.group('').resource('pods').check('create').allowed()" }],
      [`${F}[0].expression: Invalid value: compilation failed: the authorizer variable is not supported by this server: match conditions cannot check authorization`],
    ],
    ['at most 64', Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })), [`${F}: Too many: must have at most 64 items`]],
  ];
  for (const [name, conditions, want] of cases) it(name, () => assert.deepEqual(errorsOf(config('v1', conditions)), want));
  it('v1beta1 checks them the same way', () =>
    assert.deepEqual(errorsOf(config('v1beta1', [{ name: 'a', expression: "'x'" }]), vwc, 'v1beta1'), [`${F}[0].expression: Invalid value: must evaluate to bool`]));
});

describe('webhook match conditions - evaluated', () => {
  const request: ConditionRequest = {
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    requestKind: { group: '', version: 'v1', kind: 'Pod' },
    requestResource: { group: '', version: 'v1', resource: 'pods' },
    name: 'web',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: { username: 'jane', groups: ['devs', 'system:authenticated'] },
    dryRun: false,
  };
  const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 2 } };
  const run = (...expressions: string[]) =>
    evaluateMatchConditions(
      expressions.map((e, i) => compileMatchCondition(`c${i}`, e)),
      { object, oldObject: null, request },
    );
  const cases: Array<[string[], ReturnType<typeof run>]> = [
    [[], { matches: true }],
    [["request.userInfo.username == 'jane'", "object.metadata.labels['app'] == 'web'", 'object.spec.replicas > 1'], { matches: true }],
    [["'devs' in request.userInfo.groups", "request.operation == 'CREATE' && !request.dryRun", "request.namespace.startsWith('team-')"], { matches: true }],
    [['true', "request.resource.resource == 'leases'"], { matches: false, failed: 'c1' }],
    [['oldObject == null', 'has(object.metadata.annotations)'], { matches: false, failed: 'c1' }],
    [['oldObject.metadata.name == "x"'], { errors: ['expression \'oldObject.metadata.name == "x"\' resulted in error: no such key: metadata'] }],
    // A false condition decides even past an error, as upstream.
    [['oldObject.metadata.name == "x"', 'false'], { matches: false, failed: 'c1' }],
    [['oldObject.x', 'object.nope'], { errors: ["expression 'oldObject.x' resulted in error: no such key: x", "expression 'object.nope' resulted in error: no such key: nope"] }],
    [['object.metadata.name'], { errors: ["expression 'object.metadata.name' resulted in error: must evaluate to bool"] }],
    [['nope'], { errors: ["expression 'nope' resulted in error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope\n | ^"] }],
  ];
  for (const [expressions, want] of cases) it(`${expressions.join(' && ') || 'none'}`, () => assert.deepEqual(run(...expressions), want));

  it('errors aggregate as upstream writes them', () => {
    assert.equal(aggregateErrors(['a']), 'a');
    assert.equal(aggregateErrors(['a', 'b']), '[a, b]');
  });
});
