// The bearer-token authenticator hands the token to token authenticators exactly as extracted:
// no second parsing rule (trimming) that could turn a mangled token into a valid one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBearerTokenAuthenticator } from '../authenticators/bearer-token.js';
import type { TokenAuthenticator } from '../types.js';

const exact: TokenAuthenticator = {
  name: 'exact',
  authenticateToken: (token) => (token === 'good' ? { kind: 'ok', user: { username: 'alice', groups: [] } } : { kind: 'fail', error: 'unknown token' }),
};

test('bearer token authenticator - the token is used verbatim', async () => {
  const a = createBearerTokenAuthenticator([exact]);
  const cases: [string | undefined, string][] = [
    ['good', 'ok'],
    [' good', 'fail'],
    ['good ', 'fail'],
    ['\tgood', 'fail'],
    ['good\t', 'fail'],
    ['', 'skip'],
    [undefined, 'skip'],
  ];
  for (const [token, want] of cases) {
    const r = await a.authenticate(token === undefined ? {} : { token });
    assert.equal(r.kind, want, JSON.stringify(token));
  }
});
