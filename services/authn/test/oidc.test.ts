import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createCA, type CertificateAuthority } from '../../../shared/local/pki.js';
import { silentLogger } from '../../../shared/log.js';
import { createOidcAuthenticator, OIDC_NOT_INITIALIZED, type OidcConfig, type OidcTiming } from '../authenticators/oidc.js';
import type { AuthnResult, TokenAuthenticator } from '../types.js';
import { idToken, signingKey, startProvider, type SigningKey, type TestProvider } from './oidc-provider.js';

const FAST: OidcTiming = { retryMs: 50, initialWaitMs: 2_000, requestTimeoutMs: 2_000 };

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('oidc authenticator', () => {
  let dir: string;
  let ca: CertificateAuthority;
  let caFile: string;
  let keyA: SigningKey;
  let keyB: SigningKey;
  let stranger: SigningKey;
  let ecKey: SigningKey;
  let provider: TestProvider;
  const started: TokenAuthenticator[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'oidc-test-'));
    ca = await createCA('oidc-test-ca');
    caFile = path.join(dir, 'ca.crt');
    await writeFile(caFile, ca.certPem);
    [keyA, keyB, stranger, ecKey] = await Promise.all([signingKey('a'), signingKey('b'), signingKey('a'), signingKey('ec', 'ES256')]);
    provider = await startProvider(ca, [keyA, ecKey]);
  });
  after(async () => {
    for (const a of started) await a.stop?.();
    await provider.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function authenticator(cfg: Partial<OidcConfig> = {}, timing: OidcTiming = FAST, p: { url: string } = provider): Promise<TokenAuthenticator> {
    const a = await createOidcAuthenticator({ issuerUrl: p.url, clientId: 'platform', caFile, ...cfg }, silentLogger(), timing);
    started.push(a);
    return a;
  }
  const ok = (username: string, groups: string[] = []): AuthnResult => ({ kind: 'ok', user: { username, groups } });
  const failMatching = (r: AuthnResult, re: RegExp) => {
    assert.equal(r.kind, 'fail', `expected a failure, got ${JSON.stringify(r)}`);
    assert.match((r as { error: string }).error, re);
  };

  test('oidc - a valid token maps sub to "<issuer>#sub"', async () => {
    const a = await authenticator();
    assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: provider.url }), []), ok(`${provider.url}#jane`));
    // aud may be a list that contains the client ID.
    assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: provider.url, aud: ['other', 'platform'], sub: 'x1' }), []), ok(`${provider.url}#x1`));
  });

  test('oidc - the email claim has no prefix unless one is set, and must be verified when the provider says', async () => {
    const a = await authenticator({ usernameClaim: 'email' });
    const email = 'jane@example.com';
    assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: provider.url, email }), []), ok(email));
    assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: provider.url, email, email_verified: true }), []), ok(email));
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url, email, email_verified: false }), []), /email not verified/);
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url, email, email_verified: 'false' }), []), /email not verified/);
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url }), []), /claim "email" is missing/);
    const prefixed = await authenticator({ usernameClaim: 'email', usernamePrefix: 'oidc:' });
    assert.deepEqual(await prefixed.authenticateToken(await idToken(keyA, { iss: provider.url, email }), []), ok(`oidc:${email}`));
  });

  test('oidc - prefix "-" disables the prefix; another claim gets the issuer prefix', async () => {
    const none = await authenticator({ usernamePrefix: '-' });
    assert.deepEqual(await none.authenticateToken(await idToken(keyA, { iss: provider.url }), []), ok('jane'));
    const claim = await authenticator({ usernameClaim: 'preferred_username' });
    assert.deepEqual(await claim.authenticateToken(await idToken(keyA, { iss: provider.url, preferred_username: 'jd' }), []), ok(`${provider.url}#jd`));
  });

  test('oidc - groups from a list or a single string, with the prefix; other types fail', async () => {
    const a = await authenticator({ usernamePrefix: 'oidc:', groupsClaim: 'groups', groupsPrefix: 'oidc:' });
    const cases: Array<[string, unknown, AuthnResult | RegExp]> = [
      ['a list', ['dev', 'qa'], ok('oidc:jane', ['oidc:dev', 'oidc:qa'])],
      ['a string', 'dev', ok('oidc:jane', ['oidc:dev'])],
      ['absent', undefined, ok('oidc:jane')],
      ['a number', 7, /must be a string or an array of strings/],
      ['a list with a number', ['dev', 1], /must be a string or an array of strings/],
    ];
    for (const [name, groups, want] of cases) {
      const r = await a.authenticateToken(await idToken(keyA, { iss: provider.url, ...(groups === undefined ? {} : { groups }) }), []);
      if (want instanceof RegExp) failMatching(r, want);
      else assert.deepEqual(r, want, name);
    }
  });

  test('oidc - required claims must be present with exactly the value', async () => {
    const a = await authenticator({ requiredClaims: { hd: 'example.com', tier: 'gold' } });
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['both present', { hd: 'example.com', tier: 'gold' }, true],
      ['one missing', { hd: 'example.com' }, false],
      ['wrong value', { hd: 'evil.com', tier: 'gold' }, false],
      ['not a string', { hd: 'example.com', tier: ['gold'] }, false],
    ];
    for (const [name, claims, accepted] of cases) {
      const r = await a.authenticateToken(await idToken(keyA, { iss: provider.url, ...claims }), []);
      if (accepted) assert.deepEqual(r, ok(`${provider.url}#jane`), name);
      else failMatching(r, /required claim "(hd|tier)"/);
    }
  });

  test('oidc - expired, not-yet-valid, wrong-audience, tampered and foreign-key tokens fail', async () => {
    const a = await authenticator({}, { ...FAST, minRefetchMs: 60_000 });
    const now = Math.floor(Date.now() / 1000);
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url, iat: now - 7200, exp: now - 3600 }), []), /token expired/);
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url, nbf: now + 3600 }), []), /nbf/);
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url, aud: 'someone-else' }), []), /aud/);

    // Same header and signature, payload edited to another user.
    const [h, p, s] = (await idToken(keyA, { iss: provider.url })).split('.') as [string, string, string];
    const edited = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'admin' })).toString('base64url');
    failMatching(await a.authenticateToken(`${h}.${edited}.${s}`, []), /signature verification failed/);

    // Signed by a key the provider never published, under a published key ID and under a new one.
    failMatching(await a.authenticateToken(await idToken(stranger, { iss: provider.url }), []), /signature verification failed/);
    failMatching(await a.authenticateToken(await idToken(stranger, { iss: provider.url }, { kid: 'nope' }), []), /unknown key/);
  });

  test('oidc - only the configured signing algorithms are accepted', async () => {
    const rsOnly = await authenticator();
    const ecToken = await idToken(ecKey, { iss: provider.url });
    failMatching(await rsOnly.authenticateToken(ecToken, []), /alg.*not allowed/);
    // The same token is fine once ES256 is allowed: the rejection above is the algorithm's.
    const both = await authenticator({ signingAlgs: ['RS256', 'ES256'] });
    assert.deepEqual(await both.authenticateToken(ecToken, []), ok(`${provider.url}#jane`));
    // An unsigned token naming our issuer.
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ iss: provider.url, aud: 'platform', sub: 'jane', exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url');
    failMatching(await both.authenticateToken(`${header}.${body}.`, []), /not allowed/);
  });

  test('oidc - tokens of other issuers and non-JWT tokens are skipped', async () => {
    const a = await authenticator();
    assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: 'https://accounts.example.com' }), []), { kind: 'skip' });
    assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: `${provider.url}/` }), []), { kind: 'skip' });
    assert.deepEqual(await a.authenticateToken('static-token-abcdef', []), { kind: 'skip' });
  });

  test('oidc - a user name or group under system: is refused', async () => {
    const a = await authenticator({ usernamePrefix: '-', groupsClaim: 'groups' });
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url, sub: 'system:admin' }), []), /must not start with system:/);
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url, groups: ['dev', 'system:masters'] }), []), /must not start with system:/);
    // With a prefix the same values are harmless.
    const prefixed = await authenticator({ usernamePrefix: 'oidc:', groupsClaim: 'groups', groupsPrefix: 'oidc:' });
    assert.deepEqual(
      await prefixed.authenticateToken(await idToken(keyA, { iss: provider.url, sub: 'system:admin', groups: ['system:masters'] }), []),
      ok('oidc:system:admin', ['oidc:system:masters']),
    );
  });

  test('oidc - a review for another audience is refused', async () => {
    const a = await authenticator();
    failMatching(await a.authenticateToken(await idToken(keyA, { iss: provider.url }), ['vault']), /requested audiences/);
  });

  test('oidc - key rotation: a token with a new key ID verifies after a refetch, at most once per interval', async () => {
    const p = await startProvider(ca, [keyA]);
    try {
      const a = await authenticator({}, { ...FAST, minRefetchMs: 300 }, p);
      assert.equal(p.jwksFetches, 1);
      p.keys = [keyB.jwk];
      // Too soon after the last fetch: an unknown key ID does not reach the provider.
      failMatching(await a.authenticateToken(await idToken(keyB, { iss: p.url }), []), /unknown key/);
      assert.equal(p.jwksFetches, 1);
      await new Promise((r) => setTimeout(r, 350));
      const tokens = await Promise.all([idToken(keyB, { iss: p.url, sub: 'one' }), idToken(keyB, { iss: p.url, sub: 'two' })]);
      // Two concurrent tokens share one refetch.
      assert.deepEqual(await Promise.all(tokens.map(async (t) => a.authenticateToken(t, []))), [ok(`${p.url}#one`), ok(`${p.url}#two`)]);
      assert.equal(p.jwksFetches, 2);
      // The retired key is gone.
      failMatching(await a.authenticateToken(await idToken(keyA, { iss: p.url }), []), /unknown key/);
    } finally {
      await p.close();
    }
  });

  test('oidc - the keys are refetched periodically', async () => {
    const p = await startProvider(ca, [keyA]);
    try {
      const a = await authenticator({}, { ...FAST, refreshMs: 100 }, p);
      p.keys = [keyB.jwk];
      const deadline = Date.now() + 3_000;
      while (p.jwksFetches < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // Within the unknown-key interval, so only the periodic fetch can have loaded key b.
      assert.deepEqual(await a.authenticateToken(await idToken(keyB, { iss: p.url }), []), ok(`${p.url}#jane`));
    } finally {
      await p.close();
    }
  });

  test('oidc - a provider that is down at start-up is retried; tokens fail until its keys load', async () => {
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const a = await authenticator({}, FAST, { url });
    const token = await idToken(keyA, { iss: url });
    assert.deepEqual(await a.authenticateToken(token, []), { kind: 'fail', error: OIDC_NOT_INITIALIZED });
    // Not ours: still skipped while uninitialized.
    assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: provider.url }), []), { kind: 'skip' });
    const p = await startProvider(ca, [keyA], { port });
    try {
      const deadline = Date.now() + 3_000;
      let r = await a.authenticateToken(token, []);
      while (r.kind !== 'ok' && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 25));
        r = await a.authenticateToken(token, []);
      }
      assert.deepEqual(r, ok(`${url}#jane`));
    } finally {
      await p.close();
    }
  });

  test('oidc - a provider whose discovery names another issuer is never trusted', async () => {
    const p = await startProvider(ca, [keyA]);
    p.discoveryIssuer = 'https://evil.example';
    try {
      const a = await authenticator({}, FAST, p);
      await new Promise((r) => setTimeout(r, 150)); // a few retries
      assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: p.url }), []), { kind: 'fail', error: OIDC_NOT_INITIALIZED });
      assert.equal(p.jwksFetches, 0);
    } finally {
      await p.close();
    }
  });

  test('oidc - a provider certificate from another CA is not trusted', async () => {
    const otherCA = await createCA('other');
    const p = await startProvider(otherCA, [keyA]);
    try {
      const a = await authenticator({}, FAST, p);
      assert.deepEqual(await a.authenticateToken(await idToken(keyA, { iss: p.url }), []), { kind: 'fail', error: OIDC_NOT_INITIALIZED });
    } finally {
      await p.close();
    }
  });

  test('oidc - start-up fails on an unreadable CA file or a non-https issuer', async () => {
    await assert.rejects(createOidcAuthenticator({ issuerUrl: provider.url, clientId: 'platform', caFile: path.join(dir, 'missing.crt') }, silentLogger()), /--oidc-ca-file: cannot read/);
    await assert.rejects(createOidcAuthenticator({ issuerUrl: 'http://127.0.0.1:1', clientId: 'platform' }, silentLogger()), /must be an https URL/);
  });
});
