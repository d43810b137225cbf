import { test } from 'node:test';
import assert from 'node:assert/strict';
import { looksLikeJwt } from '../authenticators/jwt-shape.js';

test('jwt shape - only three base64url parts go on to JWT decoding', () => {
  const cases: Array<[token: string, want: boolean]> = [
    ['eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJl', true],
    // alg "none" has an empty signature: it must still reach the authenticator, which refuses it.
    ['eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.', true],
    ['abcdef.0123456789abcdef', false], // a bootstrap token
    ['31ada4fd-adec-460c-809a-9e56ceb75269', false], // a static or webhook token
    ['a.b.c.d', false],
    ['eyJ0eXAi.eyJ9.sig=', false], // base64 padding is not base64url
    ['', false],
  ];
  for (const [token, want] of cases) assert.equal(looksLikeJwt(token), want, token);
});
