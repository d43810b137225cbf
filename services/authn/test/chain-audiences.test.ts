import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIENCE_MISMATCH, runAuthnChain, type AuthnChain } from '../chain.js';
import type { RequestAuthenticator } from '../types.js';

const jane = { username: 'jane', groups: ['dev'] };
const agnostic: RequestAuthenticator = { name: 'static', authenticate: (req) => (req.token === 'static' ? { kind: 'ok', user: jane } : { kind: 'skip' }) };
const scoped: RequestAuthenticator = { name: 'sa', authenticate: (req) => (req.token === 'sa' ? { kind: 'ok', user: jane, audiences: ['vault'] } : { kind: 'skip' }) };

test("authn chain - an audience-agnostic credential answers only for the API server's own audiences", async () => {
  const chain: AuthnChain = { authenticators: [agnostic, scoped], implicitAudiences: ['https://api', 'api'] };
  const cases: Array<[string, { token: string; audiences?: string[] }, unknown]> = [
    ['no audiences asked: valid for the API server', { token: 'static' }, { authenticated: true, user: { ...jane, groups: ['dev', 'system:authenticated'] } }],
    [
      'asked for one of the API audiences: answered with the shared ones',
      { token: 'static', audiences: ['api', 'other'] },
      { authenticated: true, user: { ...jane, groups: ['dev', 'system:authenticated'] }, audiences: ['api'] },
    ],
    ['asked only for a foreign audience: not authenticated', { token: 'static', audiences: ['vault'] }, { authenticated: false, error: AUDIENCE_MISMATCH }],
    [
      'a credential with its own audiences keeps them',
      { token: 'sa', audiences: ['vault'] },
      { authenticated: true, user: { ...jane, groups: ['dev', 'system:authenticated'] }, audiences: ['vault'] },
    ],
  ];
  for (const [name, req, want] of cases) assert.deepEqual(await runAuthnChain(chain, req), want, name);
  // Without configured API audiences an agnostic credential is valid for no named audience.
  assert.equal((await runAuthnChain({ authenticators: [agnostic] }, { token: 'static', audiences: ['api'] })).authenticated, false);
});
