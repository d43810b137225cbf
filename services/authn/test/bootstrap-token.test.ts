import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createBootstrapTokenAuthenticator } from '../authenticators/bootstrap-token.js';
import { createAuthnObjectIndex } from '../objects.js';
import type { AuthnResult } from '../types.js';
import { bootstrapSecret, memoryObjects } from './token-fixtures.js';

const ID = 'abc123';
const SECRET = '0123456789abcdef';
const TOKEN = `${ID}.${SECRET}`;
const NOW = Date.parse('2030-01-01T00:00:00Z');

function authenticatorWith(...secrets: ApiObject[]) {
  const objects = memoryObjects();
  for (const s of secrets) objects.put('secrets', s);
  return { objects, authn: createBootstrapTokenAuthenticator(objects, { now: () => NOW }) };
}

const okUser = (groups: string[]): AuthnResult => ({ kind: 'ok', user: { username: `system:bootstrap:${ID}`, groups } });

describe('bootstrap tokens', () => {
  test('bootstrap - a valid token is system:bootstrap:<id> in system:bootstrappers plus the extra groups, sorted', async () => {
    const { authn } = authenticatorWith(bootstrapSecret(ID, SECRET, { 'auth-extra-groups': 'system:bootstrappers:worker, system:bootstrappers:ingress', expiration: '2030-01-01T00:00:01Z' }));
    assert.deepEqual(await authn.authenticateToken(TOKEN, []), okUser(['system:bootstrappers', 'system:bootstrappers:ingress', 'system:bootstrappers:worker']));
  });

  test('bootstrap - a token without extra groups or expiration gets system:bootstrappers only', async () => {
    const { authn } = authenticatorWith(bootstrapSecret(ID, SECRET));
    assert.deepEqual(await authn.authenticateToken(TOKEN, []), okUser(['system:bootstrappers']));
  });

  test('bootstrap - stringData fields count as data', async () => {
    const s = bootstrapSecret(ID, SECRET);
    delete (s.data as Record<string, string>)['usage-bootstrap-authentication'];
    s.stringData = { 'usage-bootstrap-authentication': 'true' };
    const { authn } = authenticatorWith(s);
    assert.equal((await authn.authenticateToken(TOKEN, [])).kind, 'ok');
  });

  const rejected: Array<[string, ApiObject | null, string?]> = [
    ['no secret for the id', null],
    ['wrong secret', bootstrapSecret(ID, 'ffffffffffffffff')],
    ['secret differing in the last character', bootstrapSecret(ID, '0123456789abcdeg')],
    ['token-id in the data differs from the name', bootstrapSecret(ID, SECRET, { 'token-id': 'zzz999' })],
    ['expired', bootstrapSecret(ID, SECRET, { expiration: '2029-12-31T23:59:59Z' })],
    ['expiring exactly now', bootstrapSecret(ID, SECRET, { expiration: '2030-01-01T00:00:00Z' })],
    ['unreadable expiration', bootstrapSecret(ID, SECRET, { expiration: 'next tuesday' })],
    ['usage-bootstrap-authentication false', bootstrapSecret(ID, SECRET, { 'usage-bootstrap-authentication': 'false' })],
    [
      'usage-bootstrap-authentication absent',
      (() => {
        const s = bootstrapSecret(ID, SECRET);
        delete (s.data as Record<string, string>)['usage-bootstrap-authentication'];
        return s;
      })(),
    ],
    ['usage only for signing', bootstrapSecret(ID, SECRET, { 'usage-bootstrap-authentication': 'yes', 'usage-bootstrap-signing': 'true' })],
    ['extra group outside system:bootstrappers:', bootstrapSecret(ID, SECRET, { 'auth-extra-groups': 'system:bootstrappers:ok,system:masters' })],
    ['extra group with a trailing colon', bootstrapSecret(ID, SECRET, { 'auth-extra-groups': 'system:bootstrappers:' })],
    ['empty entry in the extra groups', bootstrapSecret(ID, SECRET, { 'auth-extra-groups': 'system:bootstrappers:a,' })],
    ['secret being deleted', bootstrapSecret(ID, SECRET, {}, { deletionTimestamp: '2029-12-31T00:00:00Z' })],
    ['secret in another namespace', bootstrapSecret(ID, SECRET, {}, { namespace: 'default' })],
    ['secret of another type', { ...bootstrapSecret(ID, SECRET), type: 'Opaque' }],
  ];
  for (const [name, secret] of rejected) {
    test(`bootstrap - rejected (401, not skipped): ${name}`, async () => {
      const { authn } = authenticatorWith(...(secret ? [secret] : []));
      const r = await authn.authenticateToken(TOKEN, []);
      assert.equal(r.kind, 'fail');
      assert.ok(!JSON.stringify(r).includes(SECRET), 'the secret part never appears in the error');
    });
  }

  test('bootstrap - tokens not of the bootstrap shape are left to other authenticators', async () => {
    const { authn } = authenticatorWith(bootstrapSecret(ID, SECRET));
    for (const t of ['ABC123.0123456789abcdef', 'abc12.0123456789abcdef', 'abc123.0123456789abcde', `${TOKEN}x`, `${ID}:${SECRET}`, 'eyJhbGciOiJSUzI1NiJ9.e30.sig', 'static-token']) {
      assert.deepEqual(await authn.authenticateToken(t, []), { kind: 'skip' }, t);
    }
  });

  test('bootstrap - a secret deleted or changed later stops the token', async () => {
    const { authn, objects } = authenticatorWith(bootstrapSecret(ID, SECRET));
    assert.equal((await authn.authenticateToken(TOKEN, [])).kind, 'ok');
    objects.put('secrets', bootstrapSecret(ID, SECRET, { 'usage-bootstrap-authentication': 'false' }));
    assert.equal((await authn.authenticateToken(TOKEN, [])).kind, 'fail');
    objects.put('secrets', bootstrapSecret(ID, SECRET));
    assert.equal((await authn.authenticateToken(TOKEN, [])).kind, 'ok');
    objects.remove('secrets', 'platform-system', `bootstrap-token-${ID}`);
    assert.equal((await authn.authenticateToken(TOKEN, [])).kind, 'fail');
  });

  test('bootstrap - before the secrets are loaded a token is refused, not accepted blindly', async () => {
    const objects = createAuthnObjectIndex();
    const authn = createBootstrapTokenAuthenticator(objects, { now: () => NOW, syncWaitMs: 20 });
    objects.apply({
      key: 'k',
      ref: { group: '', resource: 'secrets', namespace: 'platform-system', name: `bootstrap-token-${ID}` },
      revision: 1,
      object: bootstrapSecret(ID, SECRET),
    });
    assert.equal((await authn.authenticateToken(TOKEN, [])).kind, 'fail');
    objects.markSynced();
    assert.equal((await authn.authenticateToken(TOKEN, [])).kind, 'ok');
  });
});
