// The YAML pre-scan (yaml-depth.ts) refuses the layouts on which the yaml library recurses or
// rescans once per indicator or property before the library sees them, and leaves ordinary YAML
// alone: each hostile row is a few KiB that took the library from hundreds of milliseconds to a
// stack overflow, and must now be 400 at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../status.js';
import { decodeBody } from '../decode.js';
import { estimateYamlDepth } from '../yaml-depth.js';

const N = 5_000;
const hostile: Array<[string, string]> = [
  ['compact block entries in a flow sequence', `a: [1,${'- '.repeat(N)}`],
  ['compact block entries in a flow mapping', `a: {${'- '.repeat(N)}`],
  ['block entries on lines inside a flow sequence', `a: [\n${'- x\n'.repeat(N)}]`],
  ['explicit keys in a flow sequence', `a: [${'? '.repeat(N)}x]`],
  ['explicit keys in a flow mapping', `a: {${'? '.repeat(N)}x}`],
  ['value indicators in a flow mapping', `a: {${': '.repeat(N)}}`],
  ['implicit keys in one flow entry', `a: [${'b: '.repeat(N)}x]`],
  ['a run of anchors on one node', `a: ${'&a '.repeat(N)}x`],
  ['a run of tags on one node', `a: ${'!t '.repeat(N)}x`],
  ['compact entries with anchors between them', `${'- &a '.repeat(N)}x`],
  ['compact entries with tags between them', `${'- !t '.repeat(N)}x`],
];

test('yaml pre-scan - hostile runs are refused as too deep, at once', () => {
  for (const [name, text] of hostile) {
    const t = performance.now();
    assert.throws(
      () => decodeBody(text, 'application/yaml'),
      (err: unknown) => err instanceof StatusError && err.code === 400 && /maximum nesting depth of 100/.test(err.message),
      name,
    );
    assert.ok(performance.now() - t < 50, `${name}: ${(performance.now() - t).toFixed(0)} ms`);
  }
});

test('yaml pre-scan - ordinary YAML is not counted deeper than it is (within its factor of two)', () => {
  const rows: Array<[string, string, number]> = [
    ['flow mapping with spaces before colons', `m: {${Array.from({ length: 300 }, (_, i) => `k${i} : v`).join(', ')}}`, 3],
    ['flow sequence of dashes inside scalars', 'a: [-1, -x, "- ", b- c, \'- \']', 2],
    ['anchor and tag on one node', 'a: &x !!str v\nb: *x', 3],
    ['anchored sequence items', '- &first\n  name: a\n- *first\n', 3],
    ['a flow sequence across lines', `a: [\n${'  x,\n'.repeat(300)}  y]`, 2],
    ['explicit key in a flow mapping', '{? a : b, c: d}', 3],
  ];
  for (const [name, text, most] of rows) {
    const { depth } = estimateYamlDepth(text, 100);
    assert.ok(depth <= most, `${name}: counted ${depth}, at most ${most}`);
    assert.doesNotThrow(() => decodeBody(text, 'application/yaml'), name);
  }
});
