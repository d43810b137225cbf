// Which small JSON documents may skip the scan (json-plain.ts), and that decoding answers the same
// either way: a document it cannot vouch for goes through the scanner, which reports duplicates,
// nesting and numbers exactly as before.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPlainJson, mayParseFirst, PLAIN_JSON_MAX_CHARS } from '../json-plain.js';
import { scanJson } from '../json-scan.js';
import { decodeBody } from '../decode.js';

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

const CASES: Array<[name: string, text: string, plain: boolean]> = [
  ['an object without duplicates', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}', true],
  ['a duplicate key at the top', '{"a":1,"a":2}', false],
  ['a duplicate key in a nested object', '{"a":{"b":1,"c":2,"b":3}}', false],
  ['a duplicate key in an array item', '[{"n":1},{"n":2,"n":3}]', false],
  ['the same key in sibling objects', '[{"n":1},{"n":2}]', true],
  ['keys and values holding quotes and colons', '{"x\\"y":"p\\":q","z":"\\\\","w\\\\":":"}', true],
  ['a value string that looks like a key', '{"a":"b\\":c","d":1}', true],
  ['whitespace around colons', '{ "a" :\n 1 ,\t"b"\r\n: [ ] }', true],
  ['a __proto__ key', '{"__proto__":{"x":1},"y":2}', true],
  ['empty containers', '{"a":{},"b":[],"c":[{}]}', true],
  ['nesting at the limit', deep(100), true],
  ['nesting past the limit', deep(101), false],
  ['an integer beyond 2^53 - 1', '{"n":9007199254740993}', false],
  ['the largest safe integer', '{"n":9007199254740991}', true],
  ['a float written with an exponent', '{"n":1.5e3,"m":2.5e-7}', true],
  ['a float that overflows', '{"n":1e400}', false],
  ['a scalar document', '"just a string"', true],
];

test('json-plain - which documents may skip the scan', () => {
  for (const [name, text, plain] of CASES) assert.equal(isPlainJson(text, JSON.parse(text), 100), plain, name);
});

test('json-plain - only small texts that open few containers are parsed before the scan', () => {
  assert.equal(mayParseFirst('{"a":[1,{"b":2}]}', 100), true);
  assert.equal(mayParseFirst(deep(100), 100), true);
  assert.equal(mayParseFirst(deep(101), 100), false, 'deeper than the limit: scanned first');
  assert.equal(mayParseFirst(`[${'{},'.repeat(100)}{}]`, 100), false, 'more containers than the limit, however shallow');
  assert.equal(mayParseFirst(`"${'x'.repeat(PLAIN_JSON_MAX_CHARS)}"`, 100), false, 'too long');
});

test('json-plain - a deep body is refused as fast as before', () => {
  const t0 = performance.now();
  assert.throws(() => decodeBody('['.repeat(64_000), 'application/json'), /exceeds the maximum nesting depth of 100/);
  assert.ok(performance.now() - t0 < 10, `took ${(performance.now() - t0).toFixed(1)} ms`);
});

test('json-plain - a document that may skip the scan is one the scan accepts without duplicates', () => {
  for (const [name, text, plain] of CASES) if (plain) assert.deepEqual(scanJson(text, 100), [], name);
});

test('json-plain - decoding answers the same with or without the scan', () => {
  assert.deepEqual(decodeBody('{"a":1,"a":2}', 'application/json'), { value: { a: 2 }, duplicateFields: ['.a'] });
  assert.deepEqual(decodeBody('{"a":{"b":1,"b":2}}', 'application/json').duplicateFields, ['.a.b']);
  assert.deepEqual(decodeBody('{"a":1,"b":"x\\":"}', 'application/json'), { value: { a: 1, b: 'x":' }, duplicateFields: [] });
  assert.throws(() => decodeBody(deep(101), 'application/json'), /exceeds the maximum nesting depth of 100/);
  assert.throws(() => decodeBody('{"n":9007199254740993}', 'application/json'), /cannot be represented exactly/);
  assert.throws(() => decodeBody('{"n":1e400}', 'application/json'), /out of the range of a 64-bit float/);
  assert.throws(() => decodeBody('{"a":1', 'application/json'), /malformed: unexpected end of JSON input/);
});
