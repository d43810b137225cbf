// The set operations of field paths: each result holds exactly the members it should and only the
// nodes leading to them, whichever way it is computed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from '../fieldset.js';

const set = (...paths: string[][]) => {
  const s = new FieldSet();
  for (const p of paths) s.insert(p);
  return s;
};
const a = set(['f:data', 'f:x'], ['f:data', 'f:y'], ['f:metadata', 'f:labels'], ['f:metadata', 'f:labels', 'f:app'], ['f:spec', 'k:{"name":"c"}', 'f:image']);
const b = set(['f:data', 'f:y'], ['f:metadata', 'f:labels', 'f:app'], ['f:spec', 'k:{"name":"d"}'], ['f:status']);

/** Every node's path, members marked with `*`: the structure, not just the members. */
function nodes(s: FieldSet, prefix = ''): string[] {
  const out: string[] = [];
  for (const [e, c] of s.children) out.push(`${prefix}/${e}${c.member ? '*' : ''}`, ...nodes(c, `${prefix}/${e}`));
  return out;
}

const CASES: Array<[name: string, got: FieldSet, want: string[]]> = [
  ['a minus b', a.difference(b), ['/f:data', '/f:data/f:x*', '/f:metadata', '/f:metadata/f:labels*', '/f:spec', '/f:spec/k:{"name":"c"}', '/f:spec/k:{"name":"c"}/f:image*']],
  ['b minus a', b.difference(a), ['/f:spec', '/f:spec/k:{"name":"d"}*', '/f:status*']],
  ['a and b', a.intersection(b), ['/f:data', '/f:data/f:y*', '/f:metadata', '/f:metadata/f:labels', '/f:metadata/f:labels/f:app*']],
  ['a minus itself', a.difference(a), []],
  ['a or b', a.union(b), [...nodes(a), '/f:spec/k:{"name":"d"}*', '/f:status*']],
];

test('fieldset - difference, intersection and union hold exactly their members', () => {
  for (const [name, got, want] of CASES) assert.deepEqual(nodes(got).sort(), [...want].sort(), name);
});

test('fieldset - the operations leave their operands as they were', () => {
  const before = [nodes(a), nodes(b)];
  a.union(b).insert(['f:new']);
  a.difference(b);
  b.intersection(a);
  assert.deepEqual([nodes(a), nodes(b)], before);
});
