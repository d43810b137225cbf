import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch, createMergePatch } from '../merge-patch.js';

// RFC 7386 appendix A, written out as original / patch / result.
const rfc7386Cases: Array<[unknown, unknown, unknown]> = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

test('merge patch - RFC 7386 appendix A', () => {
  for (const [original, patch, expected] of rfc7386Cases) {
    assert.deepEqual(applyMergePatch(original, patch), expected, `${JSON.stringify(original)} + ${JSON.stringify(patch)}`);
  }
});

test('merge patch - RFC 7386 section 3 example', () => {
  const original = {
    title: 'Goodbye!',
    author: { givenName: 'John', familyName: 'Doe' },
    tags: ['example', 'sample'],
    content: 'This will be unchanged',
  };
  const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
  assert.deepEqual(applyMergePatch(original, patch), {
    title: 'Hello!',
    author: { givenName: 'John' },
    tags: ['example'],
    content: 'This will be unchanged',
    phoneNumber: '+01-123-456-7890',
  });
});

test('merge patch - kubectl label adds, overwrites and removes labels', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web', tier: 'fe', old: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  // `kubectl label pod p env=prod tier=be --overwrite old-`
  const patched = applyMergePatch(pod, { metadata: { labels: { env: 'prod', tier: 'be', old: null } } });
  assert.deepEqual(patched, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'web', tier: 'be', env: 'prod' } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  // Removing a label that is not there is not an error.
  assert.deepEqual(applyMergePatch({ metadata: { name: 'p' } }, { metadata: { labels: { gone: null } } }), { metadata: { name: 'p', labels: {} } });
});

test('merge patch - inputs are not changed and results share nothing with them', () => {
  const original = { a: { b: [1, 2] }, keep: { x: 1 } };
  const patch = { a: { c: { d: 1 } } };
  const before = structuredClone(original);
  const patchBefore = structuredClone(patch);
  const out = applyMergePatch(original, patch) as { a: { b: number[]; c: { d: number } }; keep: { x: number } };
  assert.deepEqual(original, before);
  assert.deepEqual(patch, patchBefore);
  out.keep.x = 2;
  out.a.b.push(3);
  out.a.c.d = 9;
  assert.deepEqual(original, before);
  assert.deepEqual(patch, patchBefore);
});

test('merge patch - __proto__ and constructor keys stay plain data', () => {
  const patch = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "metadata": {"__proto__": {"x": 1}}}');
  const out = applyMergePatch({ metadata: { name: 'a' } }, patch) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.ok(Object.hasOwn(out, '__proto__'));
  assert.equal(JSON.stringify(out), '{"metadata":{"name":"a","__proto__":{"x":1}},"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
  // An inherited member of the target is not mistaken for an existing value.
  assert.deepEqual(applyMergePatch({}, { toString: { a: null } }), { toString: {} });
});

test('merge patch - createMergePatch round-trips', () => {
  const cases: Array<[unknown, unknown]> = [
    [
      { a: 1, b: { c: 2, d: 3 }, e: [1] },
      { a: 1, b: { c: 4 }, e: [1, 2], f: 'new' },
    ],
    [{ metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { a: '1' } } }],
    [{ a: { b: 1 } }, { a: 'scalar now' }],
    [{ same: { x: 1 } }, { same: { x: 1 } }],
    [[1, 2], { a: 1 }],
  ];
  for (const [original, modified] of cases) {
    const patch = createMergePatch(original, modified);
    assert.deepEqual(applyMergePatch(original, patch), modified, JSON.stringify(patch));
  }
  assert.deepEqual(createMergePatch({ a: 1, b: 2 }, { a: 1 }), { b: null });
  assert.deepEqual(createMergePatch({ same: { x: 1 } }, { same: { x: 1 } }), {});
});
