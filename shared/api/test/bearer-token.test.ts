import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerToken } from '../bearer-token.js';

test('bearer token - exactly `Bearer <token>` yields a token; anything else none', () => {
  const cases: [string | undefined, string | undefined][] = [
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
    ['\tBearer abc\t', 'abc'],
    // Upstream splits at most three ways and takes the second part.
    ['Bearer abc def', 'abc'],
    ['Bearer abc\tdef', 'abc\tdef'],
    ['Bearer \tabc', '\tabc'],
    ['Bearer  abc', undefined],
    ['Bearer   abc', undefined],
    ['Bearer\tabc', undefined],
    ['Bearer\t abc', undefined],
    ['Bearer\nabc', undefined],
    ['Bearer\u00a0abc', undefined],
    ['Bearer ', undefined],
    ['Bearer', undefined],
    ['Bearerabc', undefined],
    ['Basic YWxpY2U6c2VjcmV0', undefined],
    ['Token abc', undefined],
    ['', undefined],
    ['   ', undefined],
    [undefined, undefined],
  ];
  for (const [header, want] of cases) assert.equal(bearerToken(header), want, JSON.stringify(header));
});
