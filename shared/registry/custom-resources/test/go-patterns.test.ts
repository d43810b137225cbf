// A definition's `pattern`s are Go's (RE2): what Go accepts compiles and matches as in Go, and no
// value makes a pattern backtrack.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import { builtinTypes } from '../../builtin-types.js';
import { Registry } from '../../registry.js';
import { customResourceType } from '../custom-resource-type.js';
import { crdOf } from '../../test/crd-fixtures.js';

const definition = (pattern: string) =>
  crdOf(
    'example.com',
    'Rule',
    [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { strategy: { type: 'string', pattern } } } } } },
      },
    ],
    { names: { listKind: 'RuleList' } },
  ) as unknown as ApiObject;

const rule = (strategy: string) => ({ apiVersion: 'example.com/v1', kind: 'Rule', metadata: { name: 'a', namespace: 'default' }, spec: { strategy } }) as unknown as ApiObject;

describe('custom resources - Go patterns', () => {
  const cases: Array<[pattern: string, value: string, valid: boolean]> = [
    ['^(?i)(abort|warn)?$', 'WARN', true],
    ['^(?i)(abort|warn)?$', 'retry', false],
    ['^[[:digit:]]+\\z', '42', true],
    ['^[[:digit:]]+\\z', '42\n', false],
    ['^\\-?[0-9]+$', '-3', true],
  ];
  for (const [pattern, value, valid] of cases) {
    it(`${pattern}: ${JSON.stringify(value)} is ${valid ? 'valid' : 'refused'}`, () => {
      const r = new Registry([...builtinTypes]);
      r.define('crd', [customResourceType(definition(pattern))]);
      const errors = r.validate(r.lookup('example.com', 'v1', 'rules')!, rule(value));
      assert.deepEqual(
        errors.map((e) => e.field),
        valid ? [] : ['spec.strategy'],
      );
    });
  }

  it('each pattern of a schema checks its own field (two patterns, two fields)', () => {
    const crd = definition('^(?i)(abort|warn)?$');
    const props = (crd.spec as any).versions[0].schema.openAPIV3Schema.properties.spec.properties;
    props.other = { type: 'array', items: { type: 'object', properties: { code: { type: 'string', pattern: '^[0-9]+$' } } } };
    const r = new Registry([...builtinTypes]);
    r.define('crd', [customResourceType(crd)]);
    const served = r.lookup('example.com', 'v1', 'rules')!;
    const obj = (strategy: string, code: string) => ({ ...rule(strategy), spec: { strategy, other: [{ code }] } }) as unknown as ApiObject;
    assert.deepEqual(r.validate(served, obj('WARN', '42')), []);
    assert.deepEqual(
      r
        .validate(served, obj('retry', 'x'))
        .map((e) => e.field)
        .sort(),
      ['spec.other[0].code', 'spec.strategy'],
    );
  });

  it('a value that would make a backtracking engine run for ages is checked at once', () => {
    const r = new Registry([...builtinTypes]);
    r.define('crd', [customResourceType(definition('^(a+)+$'))]);
    const start = performance.now();
    const errors = r.validate(r.lookup('example.com', 'v1', 'rules')!, rule(`${'a'.repeat(50_000)}!`));
    assert.deepEqual(
      errors.map((e) => e.field),
      ['spec.strategy'],
    );
    assert.ok(performance.now() - start < 2_000, `took ${Math.round(performance.now() - start)} ms`);
  });
});
