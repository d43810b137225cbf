// The CEL of x-kubernetes-validations rules when a CustomResourceDefinition is written: every rule
// must compile against the schema of its node (upstream's paths and words), and a definition's
// type evaluates its rules only when CustomResourceValidationExpressions is on.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { Registry } from '../registry.js';
import { builtinTypes } from '../builtin-types.js';
import { customResourceType } from '../custom-resources/custom-resource-type.js';
import { createErrors, crd, created, messages, ROOT, schemaOf, specProps, type Mutable } from './crd-helpers.js';

const SPEC = `${ROOT}.properties[spec]`;
const rulesOn = (o: Mutable, ...rules: object[]) => (schemaOf(o).properties.spec['x-kubernetes-validations'] = rules);

describe('customresourcedefinitions - validation rules must compile', () => {
  const cases: Array<[string, (o: Mutable) => void, string[]]> = [
    ['a rule over the node’s fields compiles', (o) => rulesOn(o, { rule: "self.size > 0 && self.color != 'green'" }), []],
    [
      'a syntax error',
      (o) => rulesOn(o, { rule: 'self.size ==' }),
      [
        `${SPEC}.x-kubernetes-validations[0].rule: Invalid value: "self.size ==": compilation failed: ERROR: <input>:1:11: Syntax error: found = but expecting end of input\n | self.size ==\n | ..........^`,
      ],
    ],
    [
      'a field the schema does not have',
      (o) => rulesOn(o, { rule: 'self.sise > 0' }),
      [`${SPEC}.x-kubernetes-validations[0].rule: Invalid value: "self.sise > 0": compilation failed: ERROR: <input>:1:5: undefined field 'sise'\n | self.sise > 0\n | ....^`],
    ],
    [
      'an undeclared variable',
      (o) => rulesOn(o, { rule: 'other.size > 0' }),
      [`${SPEC}.x-kubernetes-validations[0].rule: Invalid value: "other.size > 0": compilation failed: ERROR: <input>:1:1: undeclared reference to 'other' (in container '')\n | other.size > 0\n | ^`],
    ],
    [
      'an unknown function',
      (o) => rulesOn(o, { rule: "self.color.reverse() == 'der'" }),
      [
        `${SPEC}.x-kubernetes-validations[0].rule: Invalid value: "self.color.reverse() == 'der'": compilation failed: ERROR: <input>:1:11: undeclared reference to 'reverse' (in container '')\n | self.color.reverse() == 'der'\n | ..........^`,
      ],
    ],
    ['a rule that is not a bool', (o) => rulesOn(o, { rule: 'self.size + 1' }), [`${SPEC}.x-kubernetes-validations[0].rule: Invalid value: "self.size + 1": cel expression must evaluate to a bool`]],
    [
      'a messageExpression compiles too, and gives a string',
      (o) => rulesOn(o, { rule: 'self.size > 0', messageExpression: 'self.nope' }, { rule: 'self.size > 0', messageExpression: 'self.size > 1' }),
      [
        `${SPEC}.x-kubernetes-validations[0].messageExpression: Invalid value: "self.nope": messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^`,
        `${SPEC}.x-kubernetes-validations[1].messageExpression: Invalid value: "self.size > 1": messageExpression must evaluate to a string`,
      ],
    ],
    [
      'oldSelf only where old and new values correlate',
      (o) => (specProps(o).tags = { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } }),
      [
        `${SPEC}.properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${SPEC}.properties[tags].items`,
      ],
    ],
    [
      'oldSelf in the items of a map-list is fine',
      (o) =>
        (specProps(o).disks = {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
        }),
      [],
    ],
    [
      'optionalOldSelf needs a rule that reads oldSelf',
      (o) => rulesOn(o, { rule: 'self.size > 0', optionalOldSelf: true }),
      [`${SPEC}.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`],
    ],
    ['at the root, self is the resource', (o) => (schemaOf(o)['x-kubernetes-validations'] = [{ rule: "self.metadata.name.startsWith('w') && self.kind == 'Widget' && has(self.spec)" }]), []],
    [
      'at the root, only name and generateName of metadata',
      (o) => (schemaOf(o)['x-kubernetes-validations'] = [{ rule: "self.metadata.namespace == 'x'" }]),
      [
        `${ROOT}.x-kubernetes-validations[0].rule: Invalid value: "self.metadata.namespace == 'x'": compilation failed: ERROR: <input>:1:14: undefined field 'namespace'\n | self.metadata.namespace == 'x'\n | .............^`,
      ],
    ],
  ];
  for (const [what, mutate, want] of cases) it(what, () => assert.deepEqual(createErrors(mutate), want));

  it('a schema of its own per version is reported under spec.versions[i]', () => {
    const errs = createErrors((o) => {
      const v2 = structuredClone(o.spec.versions[0]);
      v2.name = 'v2';
      v2.storage = false;
      o.spec.versions.push(v2);
      rulesOn(o, { rule: 'self.foo == 1' });
    });
    assert.deepEqual(errs, [
      `spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "self.foo == 1": compilation failed: ERROR: <input>:1:5: undefined field 'foo'\n | self.foo == 1\n | ....^`,
    ]);
  });

  it('an update may keep a rule the stored definition already has, but not add one that does not compile', () => {
    const stored = created();
    rulesOn(stored as Mutable, { rule: 'self.legacy == 1' });
    const update = structuredClone(stored) as Mutable;
    assert.deepEqual(messages(crd.strategy!.validateUpdate!(update as ApiObject, stored)), []);
    rulesOn(update, { rule: 'self.legacy == 1' }, { rule: 'self.other == 1' });
    assert.deepEqual(
      messages(crd.strategy!.validateUpdate!(update as ApiObject, stored)).map((m) => m.split('\n')[0]),
      [`${SPEC}.x-kubernetes-validations[1].rule: Invalid value: "self.other == 1": compilation failed: ERROR: <input>:1:5: undefined field 'other'`],
    );
  });
});

describe('custom resources - validation rules and the CustomResourceValidationExpressions gate', () => {
  const definition = (): ApiObject => {
    const o = structuredClone(created()) as Mutable;
    specProps(o).min = { type: 'integer' };
    specProps(o).color['x-kubernetes-validations'] = [{ rule: 'self == oldSelf', message: 'Value is immutable' }];
    rulesOn(o, { rule: 'self.min <= self.size', message: 'size must be at least min' });
    o.status = { conditions: [{ type: 'Established', status: 'True' }] };
    return o as ApiObject;
  };
  const widget = (spec: object): ApiObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec }) as ApiObject;

  function served(validationRules: boolean) {
    const r = new Registry([...builtinTypes]);
    r.define('crd', [customResourceType(definition(), { validationRules })]);
    return { r, served: r.lookup('example.com', 'v1', 'widgets')! };
  }

  it('on: a create and an update are checked, transition rules on update only', () => {
    const { r, served: s } = served(true);
    assert.deepEqual(messages(r.validate(s, widget({ size: 1, min: 2, color: 'red' }))), ['spec: Invalid value: "object": size must be at least min']);
    assert.deepEqual(messages(r.validate(s, widget({ size: 3, min: 2, color: 'red' }))), []);
    assert.deepEqual(messages(r.validate(s, widget({ size: 1, min: 2, color: 'blue' }), widget({ size: 3, min: 2, color: 'red' }))), [
      'spec: Invalid value: "object": size must be at least min',
      'spec.color: Invalid value: "string": Value is immutable',
    ]);
  });

  it('off: the rules are kept in the definition but not evaluated', () => {
    const { r, served: s } = served(false);
    assert.deepEqual(messages(r.validate(s, widget({ size: 1, min: 2, color: 'red' }))), []);
    assert.deepEqual(messages(r.validate(s, widget({ size: 1, min: 2, color: 'blue' }), widget({ size: 3, min: 2, color: 'red' }))), []);
  });
});
