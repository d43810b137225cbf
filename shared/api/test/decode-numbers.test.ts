// Numbers and hostile keys in decoded bodies: a value that cannot be represented exactly is
// refused, never rounded or dropped; `__proto__` and friends stay ordinary own keys.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../status.js';
import { decodeBody } from '../decode.js';

function fails(fn: () => unknown, code: number, msg?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError, `not a StatusError: ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (msg) assert.match(e.message, msg);
    return true;
  });
}

const JSON_TYPES = ['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json'];
const YAML_TYPES = ['application/yaml', 'application/apply-patch+yaml'];

test('decode numbers - a JSON number overflowing float64 is a 400 naming the field', () => {
  const cases: [string, RegExp][] = [
    ['{"spec":{"replicas":1e400}}', /1e400.*spec\.replicas/],
    ['{"spec":{"replicas":-1E+400}}', /-1E\+400.*spec\.replicas/],
    ['{"a":[1,2,1.5e309]}', /1\.5e309.*a\[2\]/],
    [`{"x":${'9'.repeat(400)}}`, /\bx\b/],
    [`{"x":${'9'.repeat(320)}.5}`, /\bx\b/],
    ['[1e999]', /\[0\]/],
    ['1e999', /unable to decode/],
  ];
  for (const mt of [...JSON_TYPES, 'application/yaml']) {
    for (const [body, msg] of cases) {
      fails(() => decodeBody(body, mt), 400, msg);
      fails(() => decodeBody(body, mt), 400, /unable to decode/);
    }
  }
});

test('decode numbers - JSON integers beyond 2^53 are a 400, never rounded', () => {
  const cases: [string, RegExp][] = [
    ['{"spec":{"activeDeadlineSeconds":9007199254740993}}', /9007199254740993.*spec\.activeDeadlineSeconds/],
    ['{"spec":{"activeDeadlineSeconds":9007199254740992}}', /9007199254740992/],
    ['{"a":-9007199254740993}', /-9007199254740993.*\ba\b/],
    ['{"a":9223372036854775807}', /9223372036854775807/],
    ['{"a":99999999999999999999999}', /99999999999999999999999/],
    ['{"a.b":{"c":[{"d":18446744073709551616}]}}', /a\.b\.c\[0\]\.d/],
  ];
  for (const mt of [...JSON_TYPES, 'application/yaml']) {
    for (const [body, msg] of cases) fails(() => decodeBody(body, mt), 400, msg);
  }
});

test('decode numbers - representable numbers decode unchanged', () => {
  const body = '{"max":9007199254740991,"min":-9007199254740991,"f":1.5,"e":1e300,"tiny":1e-400,"neg":-0,"zero":0,"big":1.7976931348623157e308,"long":0.1000000000000000055511151231257827}';
  for (const mt of [...JSON_TYPES, ...YAML_TYPES]) {
    const v = decodeBody(body, mt).value as Record<string, number>;
    assert.equal(v.max, Number.MAX_SAFE_INTEGER, mt);
    assert.equal(v.min, Number.MIN_SAFE_INTEGER, mt);
    assert.equal(v.f, 1.5);
    assert.equal(v.e, 1e300);
    assert.equal(v.tiny, 0);
    assert.equal(JSON.stringify(v.neg), '0');
    assert.equal(v.big, Number.MAX_VALUE);
    assert.equal(v.long, 0.1);
  }
});

test('decode numbers - YAML numbers: overflow, infinities and NaN, big integers, hex, octal', () => {
  const bad: [string, RegExp][] = [
    ['spec:\n  replicas: 1e400\n', /1e400.*spec\.replicas/],
    ['spec:\n  replicas: .inf\n', /spec\.replicas/],
    ['spec:\n  replicas: -.Inf\n', /spec\.replicas/],
    ['spec:\n  replicas: .nan\n', /spec\.replicas/],
    ['a: [1, 2e999]\n', /a\[1\]/],
    ['spec:\n  activeDeadlineSeconds: 9007199254740993\n', /9007199254740993.*spec\.activeDeadlineSeconds/],
    ['a: -9223372036854775808\n', /-9223372036854775808.*\ba\b/],
    ['a: 0x20000000000001\n', /0x20000000000001.*\ba\b/],
    ['a: 0o400000000000000001\n', /0o400000000000000001/],
    // YAML 1.1 (what upstream's decoder speaks) reads 017 as octal 15, YAML 1.2 as 17.
    ['a: 017\n', /017.*\ba\b.*ambiguous/],
    ['a: -0012\n', /ambiguous/],
  ];
  for (const mt of YAML_TYPES) for (const [body, msg] of bad) fails(() => decodeBody(body, mt), 400, msg);
  const good = decodeBody('a: 0x10\nb: 0o17\nc: 0\nd: -0\ne: 1e17\nf: 12.0\ng: 9007199254740991\nh: "9007199254740993"\ni: 0.5\nj: 017.5\nk: .5\n', 'application/yaml').value;
  assert.deepEqual(JSON.parse(JSON.stringify(good)), { a: 16, b: 15, c: 0, d: 0, e: 1e17, f: 12, g: 9007199254740991, h: '9007199254740993', i: 0.5, j: 17.5, k: 0.5 });
});

test('decode keys - __proto__ and Object.prototype names are own keys, never the prototype', () => {
  const keys = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
  const json = `{"data":{${keys.map((k) => `"${k}":"v-${k}"`).join(',')}},"obj":{"__proto__":{"polluted":true}}}`;
  const yaml = `data:\n${keys.map((k) => `  ${k}: v-${k}\n`).join('')}obj:\n  __proto__:\n    polluted: true\n`;
  for (const [body, mt] of [
    [json, 'application/json'],
    [yaml, 'application/yaml'],
  ] as const) {
    const v = decodeBody(body, mt).value as { data: Record<string, string>; obj: Record<string, unknown> };
    assert.deepEqual(Object.keys(v.data), keys, mt);
    for (const k of keys) {
      assert.ok(Object.hasOwn(v.data, k), `${mt}: ${k}`);
      assert.equal(v.data[k], `v-${k}`, `${mt}: ${k}`);
    }
    assert.equal(Object.getPrototypeOf(v.obj), Object.prototype, mt);
    assert.equal((v.obj as { polluted?: unknown }).polluted, undefined, mt);
    assert.deepEqual(JSON.parse(JSON.stringify(v.obj)), JSON.parse('{"__proto__":{"polluted":true}}'), mt);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  }
});
