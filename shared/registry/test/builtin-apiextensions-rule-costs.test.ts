// The estimated cost of x-kubernetes-validations rules when a CustomResourceDefinition is written,
// as upstream limits it: each rule (times how often its node can occur) within
// StaticEstimatedCostLimit, the rules of a schema together within StaticEstimatedCRDCostLimit,
// refused with upstream's paths and words; bounds (maxItems, maxLength, …) bring a rule within.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { createErrors, crd, created, messages, ROOT, specProps, type Mutable } from './crd-helpers.js';

const SPEC = `${ROOT}.properties[spec]`;
const HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
const PAIRS = 'self.all(x, self.all(y, x == y))';
const ORDERED = 'self.all(x, self.all(y, x <= y || x > y))';
const list = (items: object, extra: object, rules: object[]) => ({ type: 'array', items, ...extra, 'x-kubernetes-validations': rules });

describe('customresourcedefinitions - estimated rule cost', () => {
  const cases: Array<[string, (o: Mutable) => void, string[]]> = [
    [
      'a quadratic rule over an unbounded list of strings is refused at the rule',
      (o) => (specProps(o).names = list({ type: 'string' }, {}, [{ rule: PAIRS }])),
      [
        `${SPEC}.properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}`,
        // and it alone is past the schema's total
        `${SPEC}.properties[names].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
        `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`,
      ],
    ],
    [
      'maxItems alone is not enough while each string may be 3 MiB long',
      (o) => (specProps(o).names = list({ type: 'string' }, { maxItems: 10 }, [{ rule: PAIRS }])),
      [`${SPEC}.properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 3.1x ${HINT}`],
    ],
    ['maxItems and maxLength bring it within the limit', (o) => (specProps(o).names = list({ type: 'string', maxLength: 64 }, { maxItems: 10 }, [{ rule: PAIRS }])), []],
    ['so does a list of numbers with maxItems', (o) => (specProps(o).counts = list({ type: 'integer' }, { maxItems: 10 }, [{ rule: PAIRS }])), []],
    [
      'a rule on list items costs once per item: 40 items of unbounded length are past the limit (a factor under 1.5 is shown to six places)',
      (o) => (specProps(o).names = { type: 'array', maxItems: 40, items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.contains('abc')" }] } }),
      [`${SPEC}.properties[names].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.258296x ${HINT}`],
    ],
    ['twenty items are within it', (o) => (specProps(o).names = { type: 'array', maxItems: 20, items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.contains('abc')" }] } }), []],
    [
      'a messageExpression is held to the limit too',
      (o) => (specProps(o).names = list({ type: 'string' }, {}, [{ rule: 'true', messageExpression: `${PAIRS} ? 'same' : 'different'` }])),
      [
        `${SPEC}.properties[names].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${HINT}`,
        `${SPEC}.properties[names].x-kubernetes-validations[0].messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
        `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`,
      ],
    ],
    [
      'rules each within the limit are refused together past the schema’s total, the four costliest named',
      (o) => {
        // each rule is estimated at 9,005,002: twelve of them are 108,060,024
        for (const c of 'abcdefghijkl') specProps(o)[c] = list({ type: 'integer' }, { maxItems: 1000 }, [{ rule: ORDERED }]);
      },
      [
        ...'abcd'
          .split('')
          .map((c) => `${SPEC}.properties[${c}].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`),
        `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.080600x ${HINT}`,
      ],
    ],
  ];
  for (const [what, mutate, want] of cases) it(what, () => assert.deepEqual(createErrors(mutate), want));

  it('an update may keep a rule the stored definition already has past the per-rule limit, but not add one', () => {
    const stored = created() as Mutable;
    specProps(stored).names = list({ type: 'string' }, { maxItems: 10 }, [{ rule: PAIRS }]);
    const update = structuredClone(stored);
    assert.deepEqual(messages(crd.strategy!.validateUpdate!(update as ApiObject, stored as ApiObject)), []);
    specProps(update).others = list({ type: 'string' }, { maxItems: 10 }, [{ rule: 'self.all(x, self.all(y, x != y))' }]);
    assert.deepEqual(messages(crd.strategy!.validateUpdate!(update as ApiObject, stored as ApiObject)), [
      `${SPEC}.properties[others].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 3.1x ${HINT}`,
    ]);
  });
});
