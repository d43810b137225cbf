import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from '../../../shared/metrics/registry.js';
import { runAuthnChain, type AuthnChain } from '../chain.js';
import { AuthnMetrics } from '../metrics.js';
import type { RequestAuthenticator } from '../types.js';

const jane = { username: 'jane', groups: ['dev'] };
const tokens: RequestAuthenticator = {
  name: 'token-file',
  authenticate: (req) => (req.token === undefined ? { kind: 'skip' } : req.token === 'good' ? { kind: 'ok', user: jane } : { kind: 'fail', error: 'invalid bearer token' }),
};
const broken: RequestAuthenticator = {
  name: 'webhook',
  authenticate: () => {
    throw new Error('unreachable');
  },
};
const anonymous: RequestAuthenticator = { name: 'anonymous', authenticate: () => ({ kind: 'ok', user: { username: 'system:anonymous', groups: [] } }) };

test('authn metrics - attempts and latency per authenticator and result; a skip is no attempt', async () => {
  const registry = new MetricsRegistry();
  const onResult = new AuthnMetrics(registry).observe;
  const chain: AuthnChain = { authenticators: [tokens, broken], anonymous };
  for (const token of ['good', 'good', 'bad', undefined]) await runAuthnChain(chain, token === undefined ? {} : { token }, { onResult });
  // Anonymous is asked only when no authenticator rejected or failed.
  await runAuthnChain({ authenticators: [tokens], anonymous }, {}, { onResult });
  const text = await registry.metrics();
  const cases: Array<[string, string, number | null]> = [
    ['token-file', 'success', 2],
    ['token-file', 'failure', 1],
    // The chain stops at the first success: the webhook is asked only when the token file had no success.
    ['webhook', 'error', 2],
    ['anonymous', 'success', 1],
    ['webhook', 'success', null],
  ];
  for (const [authenticator, result, n] of cases) {
    const line = new RegExp(`^platform_authenticator_attempts_total\\{authenticator="${authenticator}",result="${result}"\\} (\\d+)$`, 'm').exec(text);
    assert.equal(line ? Number(line[1]) : null, n, `${authenticator} ${result}`);
  }
  assert.match(text, /^platform_authenticator_duration_seconds_count\{authenticator="token-file",result="success"\} 2$/m);
  assert.match(text, /^# HELP platform_authenticator_attempts_total \[ALPHA\] /m);
});
