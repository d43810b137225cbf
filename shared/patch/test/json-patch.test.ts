import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../api/status.js';
import { applyJsonPatch, parseJsonPointer } from '../json-patch.js';
import { MAX_JSON_PATCH_OPERATIONS } from '../errors.js';

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    return { code: err.status.code, reason: err.status.reason, message: err.status.message };
  }
  assert.fail('expected the patch to be refused');
}

// RFC 6902 appendix A, written out as document / patch / result (or the error code).
const rfc6902Cases: Array<{ name: string; doc: unknown; patch: unknown; result?: unknown; code?: number }> = [
  { name: 'A.1 adding an object member', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz', value: 'qux' }], result: { baz: 'qux', foo: 'bar' } },
  { name: 'A.2 adding an array element', doc: { foo: ['bar', 'baz'] }, patch: [{ op: 'add', path: '/foo/1', value: 'qux' }], result: { foo: ['bar', 'qux', 'baz'] } },
  { name: 'A.3 removing an object member', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'remove', path: '/baz' }], result: { foo: 'bar' } },
  { name: 'A.4 removing an array element', doc: { foo: ['bar', 'qux', 'baz'] }, patch: [{ op: 'remove', path: '/foo/1' }], result: { foo: ['bar', 'baz'] } },
  { name: 'A.5 replacing a value', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'replace', path: '/baz', value: 'boo' }], result: { baz: 'boo', foo: 'bar' } },
  {
    name: 'A.6 moving a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    result: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  {
    name: 'A.7 moving an array element',
    doc: { foo: ['all', 'grass', 'cows', 'eat'] },
    patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    result: { foo: ['all', 'cows', 'eat', 'grass'] },
  },
  {
    name: 'A.8 testing a value: success',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    patch: [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    result: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  { name: 'A.9 testing a value: error', doc: { baz: 'qux' }, patch: [{ op: 'test', path: '/baz', value: 'bar' }], code: 422 },
  { name: 'A.10 adding a nested member object', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }], result: { foo: 'bar', child: { grandchild: {} } } },
  { name: 'A.11 ignoring unrecognized elements', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], result: { foo: 'bar', baz: 'qux' } },
  { name: 'A.12 adding to a nonexistent target', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }], code: 422 },
  // A.13 (a duplicated "op" member) is a JSON decoding matter: the body decoder keeps the last one.
  { name: 'A.14 ~ escape ordering', doc: { '/': 9, '~1': 10 }, patch: [{ op: 'test', path: '/~01', value: 10 }], result: { '/': 9, '~1': 10 } },
  { name: 'A.15 comparing strings and numbers', doc: { '/': 9, '~1': 10 }, patch: [{ op: 'test', path: '/~01', value: '10' }], code: 422 },
  { name: 'A.16 adding an array value', doc: { foo: ['bar'] }, patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], result: { foo: ['bar', ['abc', 'def']] } },
];

test('json patch - RFC 6902 appendix A', () => {
  for (const c of rfc6902Cases) {
    if (c.code) assert.equal(statusOf(() => applyJsonPatch(c.doc, c.patch)).code, c.code, c.name);
    else assert.deepEqual(applyJsonPatch(c.doc, c.patch), c.result, c.name);
  }
});

test('json patch - more operations', () => {
  const cases: Array<{ name: string; doc: unknown; patch: unknown; result: unknown }> = [
    {
      name: 'copy deep-copies',
      doc: { a: { b: 1 } },
      patch: [
        { op: 'copy', from: '/a', path: '/c' },
        { op: 'replace', path: '/c/b', value: 2 },
      ],
      result: { a: { b: 1 }, c: { b: 2 } },
    },
    { name: 'add at the end index', doc: [1, 2], patch: [{ op: 'add', path: '/2', value: 3 }], result: [1, 2, 3] },
    { name: 'add replaces an existing member', doc: { a: 1 }, patch: [{ op: 'add', path: '/a', value: 2 }], result: { a: 2 } },
    { name: 'add at the root replaces the document', doc: { a: 1 }, patch: [{ op: 'add', path: '', value: [1] }], result: [1] },
    { name: 'replace the root', doc: { a: 1 }, patch: [{ op: 'replace', path: '', value: { b: 2 } }], result: { b: 2 } },
    { name: 'replace keeps member order', doc: { a: 1, b: 2, c: 3 }, patch: [{ op: 'replace', path: '/a', value: 9 }], result: { a: 9, b: 2, c: 3 } },
    {
      name: 'null is a value',
      doc: { a: 1 },
      patch: [
        { op: 'add', path: '/b', value: null },
        { op: 'test', path: '/b', value: null },
      ],
      result: { a: 1, b: null },
    },
    {
      name: 'test compares objects regardless of member order',
      doc: { a: { x: 1, y: [1, { z: 2 }] } },
      patch: [{ op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } }],
      result: { a: { x: 1, y: [1, { z: 2 }] } },
    },
    { name: 'move to the same place', doc: { a: 1 }, patch: [{ op: 'move', from: '/a', path: '/a' }], result: { a: 1 } },
    { name: 'empty member name', doc: { '': 1 }, patch: [{ op: 'replace', path: '/', value: 2 }], result: { '': 2 } },
    { name: 'numeric member of an object', doc: { '0': 'a' }, patch: [{ op: 'remove', path: '/0' }], result: {} },
  ];
  for (const c of cases) assert.deepEqual(applyJsonPatch(c.doc, c.patch), c.result, c.name);
});

test('json patch - kubectl patch --type=json on a Deployment', () => {
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'app', image: 'nginx:1.24', livenessProbe: { httpGet: { path: '/' } } }] } } },
  };
  const patch = [
    { op: 'test', path: '/spec/replicas', value: 1 },
    { op: 'replace', path: '/spec/replicas', value: 3 },
    { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25' },
    { op: 'remove', path: '/spec/template/spec/containers/0/livenessProbe' },
    { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
    { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'sidecar', image: 'envoy' } },
  ];
  const before = structuredClone(deploy);
  assert.deepEqual(applyJsonPatch(deploy, patch), {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web', 'app.kubernetes.io/name': 'web' } },
    spec: {
      replicas: 3,
      template: {
        spec: {
          containers: [
            { name: 'app', image: 'nginx:1.25' },
            { name: 'sidecar', image: 'envoy' },
          ],
        },
      },
    },
  });
  assert.deepEqual(deploy, before, 'the original is not changed');

  // A failed test leaves nothing applied and says what differed.
  const failed = statusOf(() =>
    applyJsonPatch(deploy, [
      { op: 'replace', path: '/spec/replicas', value: 5 },
      { op: 'test', path: '/spec/replicas', value: 2 },
    ]),
  );
  assert.equal(failed.code, 422);
  assert.equal(failed.reason, 'Invalid');
  assert.match(failed.message, /^the server rejected our request due to an error in our request: jsonpatch test operation does not apply: is: 5, expected: 2/);
  assert.deepEqual(deploy, before);
});

test('json patch - errors carry upstream codes', () => {
  const doc = { a: [1, 2], o: { k: 'v' } };
  const cases: Array<{ name: string; patch: unknown; code: number; message?: RegExp }> = [
    { name: 'not an array', patch: { op: 'add', path: '/x', value: 1 }, code: 400, message: /must be a JSON array/ },
    { name: 'operation not an object', patch: ['add'], code: 400 },
    { name: 'missing op', patch: [{ path: '/x', value: 1 }], code: 400, message: /missing "op"/ },
    { name: 'unknown op', patch: [{ op: 'upsert', path: '/x', value: 1 }], code: 400, message: /unknown op "upsert"/ },
    { name: 'missing path', patch: [{ op: 'remove' }], code: 400, message: /missing "path"/ },
    { name: 'pointer without leading slash', patch: [{ op: 'remove', path: 'a' }], code: 400, message: /invalid JSON pointer/ },
    { name: 'bad escape', patch: [{ op: 'remove', path: '/a~2' }], code: 400 },
    { name: 'missing value', patch: [{ op: 'add', path: '/x' }], code: 400, message: /missing "value"/ },
    { name: 'missing from', patch: [{ op: 'move', path: '/x' }], code: 400, message: /missing "from"/ },
    { name: 'remove a missing member', patch: [{ op: 'remove', path: '/o/nope' }], code: 422, message: /path "\/o\/nope" does not exist/ },
    { name: 'replace a missing member', patch: [{ op: 'replace', path: '/nope', value: 1 }], code: 422 },
    { name: 'index out of bounds', patch: [{ op: 'add', path: '/a/5', value: 1 }], code: 422, message: /out of bounds/ },
    { name: 'leading zero index', patch: [{ op: 'replace', path: '/a/01', value: 1 }], code: 422 },
    { name: '- only appends', patch: [{ op: 'remove', path: '/a/-' }], code: 422 },
    { name: 'move into own child', patch: [{ op: 'move', from: '/o', path: '/o/k2' }], code: 422, message: /own children/ },
    { name: 'move from a missing path', patch: [{ op: 'move', from: '/nope', path: '/x' }], code: 422 },
    { name: 'remove the root', patch: [{ op: 'remove', path: '' }], code: 422 },
    { name: 'child of a scalar', patch: [{ op: 'add', path: '/o/k/x', value: 1 }], code: 422 },
    { name: 'array length is not a member', patch: [{ op: 'test', path: '/a/length', value: 2 }], code: 422 },
    { name: 'inherited member is not a member', patch: [{ op: 'test', path: '/o/constructor', value: {} }], code: 422 },
  ];
  for (const c of cases) {
    const s = statusOf(() => applyJsonPatch(doc, c.patch));
    assert.equal(s.code, c.code, c.name);
    if (c.message) assert.match(s.message, c.message, c.name);
  }
});

test('json patch - more than 10000 operations are refused before any work', () => {
  const ok = Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, () => ({ op: 'test', path: '/a', value: 1 }));
  assert.deepEqual(applyJsonPatch({ a: 1 }, ok), { a: 1 });
  const s = statusOf(() => applyJsonPatch({ a: 1 }, [...ok, { op: 'test', path: '/a', value: 1 }]));
  assert.equal(s.code, 413);
  assert.equal(s.message, 'The allowed maximum operations in a JSON patch is 10000, got 10001');
});

test('json patch - __proto__ paths are plain members', () => {
  const out = applyJsonPatch({ a: {} }, [
    { op: 'add', path: '/__proto__', value: { polluted: true } },
    { op: 'add', path: '/a/__proto__', value: { polluted: true } },
    { op: 'add', path: '/constructor', value: { prototype: { polluted: true } } },
    { op: 'copy', from: '/a/__proto__', path: '/b' },
  ]) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(JSON.stringify(out), '{"a":{"__proto__":{"polluted":true}},"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"b":{"polluted":true}}');
  // Navigating through an absent __proto__ finds nothing rather than Object.prototype.
  assert.equal(statusOf(() => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: true }])).code, 422);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('json patch - pointer parsing', () => {
  const cases: Array<[string, string[] | null]> = [
    ['', []],
    ['/', ['']],
    ['/a/b', ['a', 'b']],
    ['/a~1b', ['a/b']],
    ['/m~0n', ['m~n']],
    ['/~01', ['~1']],
    ['/ ', [' ']],
    ['a', null],
    ['/~', null],
    ['/~2', null],
  ];
  for (const [pointer, tokens] of cases) assert.deepEqual(parseJsonPointer(pointer), tokens, pointer);
});
