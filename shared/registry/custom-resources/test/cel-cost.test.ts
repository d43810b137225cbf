// The static cost estimate of validation rules: the worst case cel-go's checker computes for
// upstream from the schema's maxItems/maxProperties/maxLength, or from the request size where the
// schema sets no bound. The expected figures are the ones upstream's apiextensions-apiserver 1.25
// reports for the same schemas and rules (its compilation tests): a definition accepted or refused
// there is accepted or refused here.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileRule } from '../validation-rules.js';

type Schema = Record<string, unknown>;
type Gen = (max?: number) => Schema;

const COST_LIMIT = 10_000_000;
const opt = (key: string, max?: number) => (max === undefined ? {} : { [key]: max });

/** The schema of one element of the given kind (`duration` and the like are formatted strings). */
function element(kind: string): Schema {
  if (kind === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
  if (['duration', 'date', 'date-time'].includes(kind)) return { type: 'string', format: kind };
  return { type: kind };
}
const withRequired: Schema = { type: 'object', required: ['required'], properties: { required: { type: 'string' }, optional: { type: 'string' } } };

const array: (kind: string) => Gen = (kind) => (max) => ({ type: 'array', items: element(kind), ...opt('maxItems', max) });
const arrayOfArrays: (kind: string) => Gen = (kind) => (max) => ({ type: 'array', items: { type: 'array', items: { type: kind } }, ...opt('maxItems', max) });
const objectArray: Gen = (max) => ({ type: 'array', items: withRequired, ...opt('maxItems', max) });
const mapArray: (kind: string) => Gen = (kind) => (max) => ({ type: 'array', items: { type: 'object', additionalProperties: { type: kind } }, ...opt('maxItems', max) });
const map: (values: Schema) => Gen = (values) => (max) => ({ type: 'object', additionalProperties: values, ...opt('maxProperties', max) });
const string: Gen = (max) => ({ type: 'string', ...opt('maxLength', max) });
const bytes: Gen = (max) => ({ type: 'string', format: 'byte', ...opt('maxLength', max) });
const nestedSpec: Gen = (max) => ({ type: 'object', additionalProperties: { type: 'string', ...opt('maxLength', max) }, ...opt('maxProperties', max) });
const allBoundedNested: Gen = (max) => ({
  type: 'array',
  items: { type: 'object', additionalProperties: { ...withRequired, ...opt('maxProperties', max) }, ...opt('maxProperties', max) },
  ...opt('maxItems', max),
});
const oneBoundedNested: Gen = (max) => ({ type: 'array', items: { type: 'object', additionalProperties: withRequired, ...opt('maxProperties', max) } });
const boundedStrings: Gen = (max) => ({ type: 'array', items: { type: 'string', ...opt('maxLength', max) }, ...opt('maxItems', max) });
const boundedStringFields =
  (...names: string[]): Gen =>
  (max) => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string', ...opt('maxLength', max) }])) });

/** The estimated cost of `rule` on a node of `schema`. */
function costOf(schema: Schema, rule: string): number {
  const compiled = compileRule({ rule }, schema, false, true);
  assert.deepEqual(compiled.errors, []);
  assert.ok(compiled.maxCost !== undefined);
  return compiled.maxCost;
}

describe('validation rule cost estimate', () => {
  // [what, schema, rule, cost without bounds ('over' = past the per-rule limit), bound, cost with it]
  const cases: Array<[string, Gen, string, number | 'over', number, number]> = [
    ['number array with all', array('number'), 'self.all(x, true)', 4718591, 10, 32],
    ['string array with all', array('string'), 'self.all(x, true)', 3145727, 20, 62],
    ['boolean array with all', array('boolean'), 'self.all(x, true)', 1887437, 5, 17],
    ['array of number arrays with all', arrayOfArrays('number'), 'self.all(x, true)', 3145727, 100, 302],
    ['array of objects with all', objectArray, 'self.all(x, true)', 555128, 50, 152],
    ['map of numbers with all', map(element('number')), 'self.all(x, true)', 1348169, 10, 32],
    ['map of numbers with has', map(element('number')), 'has(self.x)', 0, 100, 0],
    ['map of strings with all', map(element('string')), 'self.all(x, true)', 1179647, 3, 11],
    ['map of booleans with all', map(element('boolean')), 'self.all(x, true)', 943718, 100, 302],
    ['string with contains', string, "self.contains('test')", 314574, 10, 5],
    ['string with startsWith', string, "self.startsWith('test')", 2, 15, 2],
    ['concat string', string, 'size(self + "hello") > size("hello")', 314578, 4, 7],
    ['index of array with numbers', array('number'), 'self[1] == 0.0', 2, 5000, 2],
    ['index of array with strings', array('string'), 'self[1] == self[1]', 314577, 8, 314577],
    ['O(n^2) loop with numbers', array('number'), 'self.all(x, self.all(y, true))', 'over', 10, 352],
    ['O(n^3) loop with numbers', array('number'), 'self.all(x, self.all(y, self.all(z, true)))', 'over', 10, 3552],
    ['regex matches simple', string, 'self.matches("x")', 314574, 50, 22],
    ['regex matches empty string', string, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
    ['regex matches empty regex', string, 'self.matches("")', 1, 100, 1],
    ['map of strings with value length', nestedSpec, 'self.all(x, x.contains(self[x]))', 2752507, 10, 72],
    ['set array bound to zero', array('number'), 'self[3] == 0.0', 2, 0, 2],
    ['set string bound to zero', string, 'self == "x"', 2, 0, 1],
    ['set bytes bound to zero', bytes, 'self == b"x"', 2, 0, 1],
    ['a bound larger than the request allows', array('number'), 'self.all(x, x == 0.0)', 6291454, 3 * 1024 * 2048, 25165826],
    ['nested maps all bounded', allBoundedNested, 'self.all(x, x["y"].required == "z")', 7340027, 10, 72],
    ['nested maps one bounded', oneBoundedNested, 'self.all(x, x["y"].required == "z")', 7340027, 10, 7340027],
    ['int-or-string array with all', array('int-or-string'), 'self.all(x, true)', 4718591, 10, 32],
    ['index of array with int-or-strings', array('int-or-string'), 'self[0] == 5', 3, 10, 3],
    ['index of array of objects', objectArray, 'self[0] == null', 2, 422, 2],
    ['index of array of arrays', arrayOfArrays('number'), 'self[0][0] == -1.0', 3, 51, 3],
    ['array of number maps with all', mapArray('number'), 'self.all(x, x.y == 25.2)', 6291452, 12, 74],
    ['index of array of number maps', mapArray('number'), 'self[0].x > 2.0', 4, 3000, 4],
    ['duration array with all', array('duration'), 'self.all(x, true)', 2359295, 5, 17],
    ['index of duration array', array('duration'), 'self[0].getHours() == 2', 4, 525, 4],
    ['date array with all', array('date'), 'self.all(x, true)', 725936, 15, 47],
    ['date-time array with all', array('date-time'), 'self.all(x, true)', 428963, 25, 77],
    ['map of int-or-strings with all', map(element('int-or-string')), 'self.all(x, true)', 1348169, 15, 47],
    ['map of objects with all', map(withRequired), 'self.all(x, true)', 428963, 20, 62],
    ['map of number maps with all', map({ type: 'object', additionalProperties: { type: 'number' } }), 'self.all(x, true)', 1179647, 10, 32],
    ['map of number arrays with all', map({ type: 'array', items: { type: 'number' } }), 'self.all(x, true)', 1179647, 25, 77],
    ['map of durations with all', map(element('duration')), 'self.all(x, true)', 1048577, 5, 17],
    ['map of dates with all', map(element('date')), 'self.all(x, true)', 524288, 10, 32],
    ['map of date-times with all', map(element('date-time')), 'self.all(x, true)', 349526, 25, 77],
    ['regex find', string, "self.find('[0-9]+') == ''", 629147, 10, 11],
    ['join', boundedStrings, "self.join(' ') == 'aa bb'", 329853068905, 10, 43],
    ['isSorted', boundedStrings, 'self.isSorted() == true', 329854432052, 10, 52],
    ['replace', boundedStringFields('str', 'before', 'after'), "self.str.replace(self.before, self.after) == 'does not matter'", 629154, 10, 16],
    ['split', boundedStringFields('str', 'separator'), 'self.str.split(self.separator) == []', 629160, 10, 22],
    ['lowerAscii', string, "self.lowerAscii() == 'lower!'", 314575, 10, 6],
  ];
  for (const [what, gen, rule, unbounded, max, bounded] of cases) {
    it(`${what}: ${rule}`, () => {
      const calc = costOf(gen(), rule);
      if (unbounded === 'over') assert.ok(calc > COST_LIMIT, `${calc} is within the limit`);
      else assert.equal(calc, unbounded, 'without bounds');
      assert.equal(costOf(gen(max), rule), bounded, `with bound ${max}`);
    });
  }

  it('a rule that fails to compile has no estimate', () => {
    assert.equal(compileRule({ rule: 'self.nope' }, { type: 'object' }, false, true).maxCost, undefined);
  });
});
