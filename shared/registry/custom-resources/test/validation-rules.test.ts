// x-kubernetes-validations rules evaluated on custom resources: what `self` is at each kind of
// node, the errors a failing rule gives (message, messageExpression, reason, fieldPath), transition
// rules and optionalOldSelf, and the cost limits that stop a rule that would hold the event loop.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorMessage } from '../../../api/status.js';
import { PER_CALL_LIMIT, RUNTIME_COST_BUDGET } from '../cel-program.js';
import { RuleValidator, type ValidationRule } from '../validation-rules.js';

type Schema = Record<string, unknown>;
const NO_TIME_LIMIT = { perCall: 1_000_000, budget: 10_000_000, timeMs: Infinity };

/** A resource whose `spec` is `specSchema`. */
function resource(specSchema: Schema): Schema {
  return { type: 'object', properties: { spec: specSchema } };
}

function object(spec: unknown, name = 'w1'): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec };
}

/** The messages of validating `spec` against a spec schema carrying `rules`. */
function errorsOf(specSchema: Schema, rules: ValidationRule[], spec: unknown, oldSpec?: unknown): string[] {
  const v = RuleValidator.of(resource({ ...specSchema, 'x-kubernetes-validations': rules }))!;
  return v.validate(object(spec), oldSpec === undefined ? undefined : object(oldSpec), NO_TIME_LIMIT).map(fieldErrorMessage);
}

const ints = { type: 'array', items: { type: 'integer' } };
const strs = { type: 'array', items: { type: 'string' } };
const replicas = { type: 'object', properties: { replicas: { type: 'integer' }, minReplicas: { type: 'integer' }, name: { type: 'string' }, optional: { type: 'string' } } };

describe('validation rules - self at each kind of node', () => {
  // [what, spec schema, rule, spec that passes, spec that fails]
  const cases: Array<[string, Schema, string, unknown, unknown]> = [
    ['object fields', replicas, 'self.minReplicas <= self.replicas', { replicas: 3, minReplicas: 2 }, { replicas: 1, minReplicas: 2 }],
    ['has() of an optional field', replicas, "has(self.optional) || self.name == 'x'", { name: 'y', optional: 'o' }, { name: 'y' }],
    ['an integer', { type: 'integer' }, 'self >= 0 && self % 2 == 0', 4, 3],
    ['a number is a double', { type: 'number' }, 'self < 1.5', 1.25, 2],
    ['a number written as an integer is still a double', { type: 'number' }, 'self == 2.0', 2, 3],
    ['a boolean', { type: 'boolean' }, 'self', true, false],
    ['string functions', { type: 'string' }, "self.startsWith('a') && self.endsWith('z') && self.contains('m') && self.lowerAscii() == self", 'amz', 'aMz'],
    ['regular expressions (RE2)', { type: 'string' }, "self.matches('^[a-z]+(-[a-z]+)*$')", 'web-app', 'Web_App'],
    ['the strings extension', { type: 'string' }, "self.split(',').size() == 2 && self.substring(0, 1) == 'a' && self.indexOf(',') == 1", 'a,b', 'a,b,c'],
    ['size()', strs, 'size(self) <= 2 && self.size() <= 2', ['a'], ['a', 'b', 'c']],
    ['all()', ints, 'self.all(x, x > 0)', [1, 2], [1, -2]],
    ['exists() and exists_one()', ints, 'self.exists(x, x == 2) && self.exists_one(x, x > 2)', [2, 3], [2, 3, 4]],
    ['map() and filter()', ints, 'self.map(x, x * 2).sum() == 6 && self.filter(x, x > 1).size() == 1', [1, 2], [2, 2]],
    ['the Kubernetes list functions', ints, 'self.isSorted() && self.min() == 1 && self.max() == 3 && self.indexOf(2) == 1 && self.lastIndexOf(3) == 2', [1, 2, 3], [3, 2, 1]],
    ['in on a list', strs, "'b' in self", ['a', 'b'], ['a']],
    [
      'a map (additionalProperties): keys and values',
      { type: 'object', additionalProperties: { type: 'string' } },
      "self.all(k, k.startsWith('x')) && 'xa' in self && self['xa'] == 'b'",
      { xa: 'b' },
      { xa: 'b', y: 'c' },
    ],
    [
      'escaped property names',
      { type: 'object', properties: { namespace: { type: 'string' }, 'foo-bar': { type: 'integer' }, 'a.b': { type: 'integer' } } },
      "self.__namespace__ == 'ns' && self.foo__dash__bar == 1 && self.a__dot__b == 2",
      { namespace: 'ns', 'foo-bar': 1, 'a.b': 2 },
      { namespace: 'ns', 'foo-bar': 1, 'a.b': 3 },
    ],
    ['int-or-string', { 'x-kubernetes-int-or-string': true }, "type(self) == int ? self > 0 : self.endsWith('%')", '50%', 0],
    ['a duration', { type: 'string', format: 'duration' }, "self <= duration('1h')", '30m', '2h'],
    ['a date-time is a timestamp', { type: 'string', format: 'date-time' }, "self < timestamp('2030-01-01T00:00:00Z')", '2024-05-01T10:00:00Z', '2031-01-01T00:00:00Z'],
    [
      'an embedded resource shows apiVersion, kind and metadata.name',
      { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      "self.kind == 'Pod' && self.metadata.name.startsWith('p')",
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q1' } },
    ],
  ];
  for (const [what, schema, rule, good, bad] of cases) {
    it(`${what}: ${rule}`, () => {
      assert.deepEqual(errorsOf(schema, [{ rule }], good), []);
      assert.deepEqual(errorsOf(schema, [{ rule }], bad), [`spec: Invalid value: ${JSON.stringify(schemaType(schema))}: failed rule: ${rule}`]);
    });
  }

  it('at the root, self is the resource: apiVersion, kind, metadata.name (upstream shows the root path as <nil>)', () => {
    const v = RuleValidator.of({ type: 'object', properties: { spec: replicas }, 'x-kubernetes-validations': [{ rule: "self.kind == 'Widget' && self.metadata.name.startsWith('w')" }] })!;
    assert.deepEqual(v.validate(object({}, 'w1')), []);
    assert.deepEqual(v.validate(object({}, 'x1')).map(fieldErrorMessage), [`<nil>: Invalid value: "object": failed rule: self.kind == 'Widget' && self.metadata.name.startsWith('w')`]);
  });

  it('rules on nested nodes run for every list item and map value, each at its own path', () => {
    const schema = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0' }] } },
        labels: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'size(self) < 3' }] } },
      },
    };
    assert.deepEqual(errorsOf(schema, [], { items: [1, 0, -1], labels: { a: 'ok', b: 'long' } }), [
      'spec.items[1]: Invalid value: "integer": failed rule: self > 0',
      'spec.items[2]: Invalid value: "integer": failed rule: self > 0',
      'spec.labels[b]: Invalid value: "string": failed rule: size(self) < 3',
    ]);
  });

  it('a null or absent value is not validated (rules see only values)', () => {
    const schema = { type: 'object', properties: { name: { type: 'string', nullable: true, 'x-kubernetes-validations': [{ rule: "self == 'x'" }] } } };
    assert.deepEqual(errorsOf(schema, [], { name: null }), []);
    assert.deepEqual(errorsOf(schema, [], {}), []);
  });
});

function schemaType(s: Schema): string {
  return typeof s.type === 'string' ? s.type : '';
}

describe('validation rules - the errors of a failing rule', () => {
  const spec = { replicas: 1, minReplicas: 2, name: 'bob' };
  const cases: Array<[string, ValidationRule, string]> = [
    ['the default message', { rule: 'self.minReplicas <= self.replicas' }, 'spec: Invalid value: "object": failed rule: self.minReplicas <= self.replicas'],
    ['message, trimmed', { rule: 'self.minReplicas <= self.replicas', message: ' replicas must be at least minReplicas ' }, 'spec: Invalid value: "object": replicas must be at least minReplicas'],
    [
      'messageExpression',
      { rule: 'self.minReplicas <= self.replicas', messageExpression: "'replicas ' + string(self.replicas) + ' is below ' + string(self.minReplicas)" },
      'spec: Invalid value: "object": replicas 1 is below 2',
    ],
    [
      'a messageExpression that fails falls back to the message',
      { rule: 'self.minReplicas <= self.replicas', message: 'too few', messageExpression: "'missing ' + self.optional" },
      'spec: Invalid value: "object": too few',
    ],
    [
      'a messageExpression that gives an empty string falls back to the default',
      { rule: 'self.minReplicas <= self.replicas', messageExpression: "' '" },
      'spec: Invalid value: "object": failed rule: self.minReplicas <= self.replicas',
    ],
    ['reason FieldValueForbidden', { rule: 'self.minReplicas <= self.replicas', reason: 'FieldValueForbidden', message: 'no' }, 'spec: Forbidden: no'],
    ['reason FieldValueRequired', { rule: 'self.minReplicas <= self.replicas', reason: 'FieldValueRequired', message: 'needed' }, 'spec: Required value: needed'],
    [
      'reason FieldValueDuplicate (the value, no message, as upstream)',
      { rule: 'self.minReplicas <= self.replicas', reason: 'FieldValueDuplicate', message: 'dup' },
      'spec: Duplicate value: "object"',
    ],
    ['reason FieldValueInvalid', { rule: 'self.minReplicas <= self.replicas', reason: 'FieldValueInvalid' }, 'spec: Invalid value: "object": failed rule: self.minReplicas <= self.replicas'],
    ['fieldPath', { rule: 'self.minReplicas <= self.replicas', fieldPath: '.replicas', message: 'too few' }, 'spec.replicas: Invalid value: "object": too few'],
    ['a runtime error names the rule (its message if it has one)', { rule: "self.optional == 'x'" }, `spec: Invalid value: "object": no such key: optional evaluating rule: self.optional == 'x'`],
  ];
  for (const [what, rule, want] of cases) it(what, () => assert.deepEqual(errorsOf(replicas, [rule], spec), [want]));

  it('fieldPath into a map names the key as upstream prints it', () => {
    const schema = { type: 'object', properties: { limits: { type: 'object', additionalProperties: { type: 'integer' } } } };
    assert.deepEqual(errorsOf(schema, [{ rule: "self.limits['a.b'] < 10", fieldPath: ".limits['a.b']" }], { limits: { 'a.b': 11 } }), [
      `spec.limits[a.b]: Invalid value: "object": failed rule: self.limits['a.b'] < 10`,
    ]);
  });

  it('every failing rule is reported, not only the first', () => {
    const rules = [{ rule: 'self.minReplicas <= self.replicas' }, { rule: "self.name == 'alice'", message: 'not alice' }, { rule: 'self.replicas > 0' }];
    assert.deepEqual(errorsOf(replicas, rules, spec), ['spec: Invalid value: "object": failed rule: self.minReplicas <= self.replicas', 'spec: Invalid value: "object": not alice']);
  });
});

describe('validation rules - transition rules (oldSelf)', () => {
  const immutable = { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] };
  const schema = { type: 'object', properties: { name: immutable } };

  it('are not evaluated on create', () => assert.deepEqual(errorsOf(schema, [], { name: 'a' }), []));
  it('are evaluated on update', () => {
    assert.deepEqual(errorsOf(schema, [], { name: 'a' }, { name: 'a' }), []);
    assert.deepEqual(errorsOf(schema, [], { name: 'b' }, { name: 'a' }), ['spec.name: Invalid value: "string": Value is immutable']);
  });
  it('are not evaluated where the old object has no value (an update that sets the field)', () => assert.deepEqual(errorsOf(schema, [], { name: 'b' }, {}), []));

  it('map-list items are matched with the old ones by their keys; set-list items have no old value', () => {
    const item = {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, size: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.size >= oldSelf.size', message: 'may not shrink' }],
    };
    const s = { type: 'object', properties: { disks: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: item } } };
    const old = {
      disks: [
        { name: 'a', size: 5 },
        { name: 'b', size: 5 },
      ],
    };
    assert.deepEqual(
      errorsOf(
        s,
        [],
        {
          disks: [
            { name: 'b', size: 4 },
            { name: 'a', size: 6 },
            { name: 'c', size: 1 },
          ],
        },
        old,
      ),
      ['spec.disks[0]: Invalid value: "object": may not shrink'],
    );
    const set = { type: 'object', properties: { disks: { type: 'array', 'x-kubernetes-list-type': 'set', items: { ...item, 'x-kubernetes-map-type': 'atomic' } } } };
    assert.deepEqual(errorsOf(set, [], { disks: [{ name: 'a', size: 1 }] }, old), []);
  });

  it('an atomic map has no old values for its entries', () => {
    const entry = { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf' }] };
    const s = (mapType: string) => ({ type: 'object', properties: { quota: { type: 'object', 'x-kubernetes-map-type': mapType, additionalProperties: entry } } });
    assert.deepEqual(errorsOf(s('granular'), [], { quota: { cpu: 1 } }, { quota: { cpu: 2 } }), ['spec.quota[cpu]: Invalid value: "integer": failed rule: self >= oldSelf']);
    assert.deepEqual(errorsOf(s('atomic'), [], { quota: { cpu: 1 } }, { quota: { cpu: 2 } }), []);
  });

  it('optionalOldSelf: the rule also runs on create, with oldSelf an optional', () => {
    const rule = { rule: '!oldSelf.hasValue() || self >= oldSelf.value()', message: 'may only grow', optionalOldSelf: true };
    const s = { type: 'object', properties: { size: { type: 'integer', 'x-kubernetes-validations': [rule] } } };
    assert.deepEqual(errorsOf(s, [], { size: 1 }), []);
    assert.deepEqual(errorsOf(s, [], { size: 1 }, { size: 2 }), ['spec.size: Invalid value: "integer": may only grow']);
    const orValue = { rule: 'self >= oldSelf.orValue(3)', optionalOldSelf: true };
    assert.deepEqual(errorsOf({ type: 'object', properties: { size: { type: 'integer', 'x-kubernetes-validations': [orValue] } } }, [], { size: 2 }), [
      'spec.size: Invalid value: "integer": failed rule: self >= oldSelf.orValue(3)',
    ]);
  });
});

describe('validation rules - cost', () => {
  const big = Array.from({ length: 3000 }, (_, i) => i);
  const hostile = { rule: 'self.all(x, self.all(y, x <= y || x > y))' };

  it("an expression past the per-call limit (upstream's 1,000,000 by default) stops with upstream's words, and no rule runs after it", () => {
    assert.deepEqual([PER_CALL_LIMIT, RUNTIME_COST_BUDGET], [1_000_000, 10_000_000]);
    const v = RuleValidator.of(resource({ ...ints, 'x-kubernetes-validations': [hostile, { rule: 'size(self) < 10' }] }))!;
    assert.deepEqual(v.validate(object(big), undefined, { ...NO_TIME_LIMIT, perCall: 100_000 }).map(fieldErrorMessage), [
      `spec: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${hostile.rule}`,
    ]);
  });

  it('the rules of one object share a budget; past it the rest are not run', () => {
    const rule = { rule: 'self.all(x, x >= 0)' };
    const v = RuleValidator.of(resource({ ...ints, 'x-kubernetes-validations': [rule, rule, rule] }))!;
    assert.deepEqual(v.validate(object(big), undefined, { perCall: 1_000_000, budget: 15_000, timeMs: Infinity }).map(fieldErrorMessage), [
      'spec: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });

  it('a hostile rule over a large list is stopped by the time limit: under 100 ms of CPU, an answer within a second', () => {
    const v = RuleValidator.of(resource({ ...ints, 'x-kubernetes-validations': [hostile] }))!;
    v.validate(object([1, 2]));
    const huge = Array.from({ length: 20_000 }, (_, i) => i);
    // CPU time, not wall time: what the rule takes from the event loop, whatever else the machine runs.
    const cpu = process.cpuUsage();
    const started = performance.now();
    const errs = v.validate(object(huge)).map(fieldErrorMessage);
    const took = performance.now() - started;
    const used = process.cpuUsage(cpu);
    assert.match(errs.join('\n'), /evaluation time limit exceeded \(50ms of CPU\)': no further validation rules will be run due to call cost exceeds limit for rule: /);
    assert.ok((used.user + used.system) / 1000 < 100, `used ${JSON.stringify(used)} µs of CPU`);
    assert.ok(took < 1000, `took ${took} ms`);
  });

  it('map() and filter() cost in proportion to the list: 5,000 items stay well within the per-call limit', () => {
    const rule = { rule: 'self.map(x, x * 2).size() == size(self) && self.filter(x, x % 2 == 0).size() == size(self) / 2' };
    const v = RuleValidator.of(resource({ ...ints, 'x-kubernetes-validations': [rule] }))!;
    const items = Array.from({ length: 5000 }, (_, i) => i);
    assert.deepEqual(v.validate(object(items), undefined, NO_TIME_LIMIT), []);
  });

  it('ordinary rules cost little: a thousand items checked one by one pass', () => {
    const v = RuleValidator.of(resource({ ...ints, 'x-kubernetes-validations': [{ rule: 'self.all(x, x >= 0) && self.exists(x, x == 999)' }] }))!;
    assert.deepEqual(v.validate(object(big.slice(0, 1000))), []);
  });
});
