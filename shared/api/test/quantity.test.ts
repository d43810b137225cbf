import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuantity, Quantity } from '../quantity.js';

test("quantity - parsed and printed in upstream's canonical form", () => {
  const cases: Array<[unknown, string | undefined]> = [
    ['0', '0'],
    ['1', '1'],
    ['500m', '500m'],
    ['0.1', '100m'],
    ['.5', '500m'],
    ['1.5', '1500m'],
    ['1000', '1k'],
    ['1500', '1500'],
    ['1.5k', '1500'],
    ['2000000', '2M'],
    ['1Gi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['2048Mi', '2Gi'],
    ['0.5Ki', '512'],
    ['1000Ki', '1000Ki'],
    ['1e3', '1e3'],
    ['12e6', '12e6'],
    ['1E3', '1e3'],
    ['3E', '3E'],
    ['0.0000000001', '1n'],
    ['-1', '-1'],
    [5, '5'],
    [0.25, '250m'],
    ['1 Gi', undefined],
    ['abc', undefined],
    ['1Gib', undefined],
    [null, undefined],
    ['1'.repeat(101), undefined],
    ['1e999', undefined],
  ];
  for (const [raw, want] of cases) assert.equal(parseQuantity(raw)?.toString(), want, String(raw));
});

test("quantity - arithmetic is exact; a zero left side takes the other's format", () => {
  const q = (s: string) => parseQuantity(s)!;
  assert.equal(q('100m').add(q('0.2')).toString(), '300m');
  assert.equal(q('1Gi').add(q('512Mi')).toString(), '1536Mi');
  assert.equal(Quantity.zero().add(q('1Gi')).toString(), '1Gi');
  assert.equal(q('1Gi').sub(q('1Gi')).toString(), '0');
  assert.equal(q('1Gi').cmp(q('1073741824')), 0);
  assert.equal(q('999m').cmp(q('1')), -1);
  assert.equal(q('1500m').value(), 2n);
  assert.equal(q('1n').milliValue(), 1n);
  assert.equal(q('1500m').roundUp().toString(), '2');
});
