import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from '@bufbuild/cel';
import { EXPRESSION_SIZE_CODE_POINT_LIMIT, expressionDepth, sizeProblem } from '../cel-limits.js';

test('cel limits - depth of parsed expressions, measured without recursion', () => {
  const cases: Array<[string, number]> = [
    ['true', 1],
    ['self.a', 2],
    ['1 + 2', 2],
    ['1 + 2 + 3', 3],
    [`${Array(200).fill('1').join(' + ')} > 0`, 201],
    [`self${'.a'.repeat(10)}`, 11],
    ['[[[1]]]', 4],
    ['{"a": {"b": 1}}', 3],
  ];
  for (const [source, depth] of cases) assert.equal(expressionDepth(parse(source).expr, Infinity), depth, source);
  // Thousands deep is measured (and cut short past the limit) without overflowing the stack.
  const chain = parse(`${Array(50_000).fill('1').join('+')} > 0`).expr;
  assert.equal(expressionDepth(chain, Infinity), 50_001);
  assert.equal(expressionDepth(chain), 251);
});

test('cel limits - expression size counts code points, as cel-go', () => {
  assert.equal(sizeProblem('a'.repeat(EXPRESSION_SIZE_CODE_POINT_LIMIT)), undefined);
  assert.equal(sizeProblem('a'.repeat(EXPRESSION_SIZE_CODE_POINT_LIMIT + 1)), 'ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000');
  // 60,000 astral characters are 120,000 UTF-16 units but 60,000 code points.
  assert.equal(sizeProblem('😀'.repeat(60_000)), undefined);
  assert.match(sizeProblem('😀'.repeat(100_001)) ?? '', /size: 100001, limit 100000$/);
});
