import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { TokenIssueRequest } from '../../../shared/bus/messages.js';
import { createServiceAccountAuthenticator } from '../authenticators/service-account.js';
import { keyId, signingAlgorithm, type ServiceAccountConfig } from '../../../shared/serviceaccount/keys.js';
import { createTokenIssuer, signLegacyServiceAccountToken } from '../../../shared/serviceaccount/tokens.js';
import type { AuthnResult } from '../types.js';
import { ecKey, memoryObjects, opaqueSecret, pod, rsaKey, serviceAccount, tokenSecret } from './token-fixtures.js';

const ISSUER = 'https://platform.local';
const NS = 'team-a';
const HOUR = 3_600_000;

const rsa = rsaKey();
const ec = ecKey('P-256');
const stranger = rsaKey();

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function cfg(over: Partial<ServiceAccountConfig> = {}): ServiceAccountConfig {
  return { keyFiles: [], issuers: [ISSUER, 'https://old.platform.local'], lookup: false, ...over };
}

/** Signs arbitrary claims with a key, as an attacker holding that key (or ours, for malformed claims) would. */
function forge(claims: Record<string, unknown>, key: KeyObject, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: signingAlgorithm(key), kid: keyId(key), ...header }).sign(key);
}

function fixture(opts: { lookup?: boolean; signing?: KeyObject; now?: number; config?: Partial<ServiceAccountConfig> } = {}) {
  const objects = memoryObjects();
  const sa = serviceAccount(NS, 'builder');
  const p = pod(NS, 'web-0');
  const s = opaqueSecret(NS, 'bound-secret');
  objects.put('serviceaccounts', sa);
  objects.put('pods', p);
  objects.put('secrets', s);
  const config = cfg({ lookup: opts.lookup ?? false, ...opts.config });
  const authn = createServiceAccountAuthenticator(config, { verify: [rsa.publicKey, ec.publicKey] }, objects);
  const issuer = createTokenIssuer(config, opts.signing ?? rsa.privateKey, opts.now === undefined ? {} : { now: () => opts.now! });
  const saRef = { namespace: NS, name: 'builder', uid: sa.metadata.uid! };
  const issue = (over: Partial<TokenIssueRequest> = {}) => issuer.issue({ serviceAccount: saRef, audiences: [], expirationSeconds: 3600, ...over }).then((r) => r.token);
  const boundToPod = { kind: 'Pod' as const, apiVersion: 'v1', name: 'web-0', uid: p.metadata.uid! };
  const boundToSecret = { kind: 'Secret' as const, apiVersion: 'v1', name: 'bound-secret', uid: s.metadata.uid! };
  return { objects, authn, issue, sa, pod: p, secret: s, saRef, boundToPod, boundToSecret };
}

const check = (r: AuthnResult | Promise<AuthnResult>) => Promise.resolve(r);
const kind = async (r: AuthnResult | Promise<AuthnResult>) => (await r).kind;

describe('service-account tokens', () => {
  test('service account - a bound token is the service account, with pod and credential extras and the granted audiences', async () => {
    for (const signing of [rsa.privateKey, ec.privateKey]) {
      const f = fixture({ signing, lookup: true });
      const token = await f.issue({ boundObject: f.boundToPod });
      const r = await check(f.authn.authenticateToken(token, []));
      assert.equal(r.kind, 'ok');
      if (r.kind !== 'ok') return;
      const jti = String(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti);
      assert.deepEqual(r, {
        kind: 'ok',
        user: {
          username: 'system:serviceaccount:team-a:builder',
          uid: f.saRef.uid,
          groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a'],
          extra: {
            'authentication.platform.io/pod-name': ['web-0'],
            'authentication.platform.io/pod-uid': [f.boundToPod.uid],
            'authentication.platform.io/credential-id': [`JTI=${jti}`],
          },
        },
        audiences: [ISSUER],
      });
    }
  });

  test('service account - audiences: the intersection with those asked for; none in common is a 401', async () => {
    const f = fixture();
    const token = await f.issue({ audiences: ['vault', 'api'] });
    const r = await check(f.authn.authenticateToken(token, ['api', 'other']));
    assert.equal(r.kind, 'ok');
    assert.deepEqual(r.kind === 'ok' && r.audiences, ['api']);
    assert.equal(await kind(f.authn.authenticateToken(token, ['other'])), 'fail');
    assert.equal(await kind(f.authn.authenticateToken(token, [])), 'fail', 'a token for vault and api is not one for the API server itself');
    const own = await f.issue();
    assert.equal(await kind(f.authn.authenticateToken(own, ['vault'])), 'fail');
  });

  test('service account - every configured issuer is accepted', async () => {
    const f = fixture({ config: { issuers: ['https://old.platform.local', ISSUER], apiAudiences: ['api'] } });
    const fromOld = await f.issue();
    const current = fixture({ config: { apiAudiences: ['api'] } });
    assert.equal(await kind(current.authn.authenticateToken(fromOld, [])), 'ok');
  });

  test('service account - forged, tampered, expired and misdirected tokens are 401s', async () => {
    const f = fixture();
    const valid = await f.issue({ boundObject: f.boundToPod });
    const [h, p, sig] = valid.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const nowS = Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => Promise<string>, RegExp]> = [
      [
        'tampered payload (another service account)',
        async () => `${h}.${b64url({ ...claims, sub: 'system:serviceaccount:kube:admin', 'platform.io': { namespace: 'kube', serviceaccount: { name: 'admin', uid: 'x' } } })}.${sig}`,
        /signature/,
      ],
      ['tampered signature', async () => `${h}.${p}.${sig.slice(0, -4)}AAAA`, /signature/],
      ['signed with a key we do not trust', async () => forge(claims, stranger.privateKey), /signature/],
      ['signed with a key we do not trust, naming our kid', async () => forge(claims, stranger.privateKey, { kid: keyId(rsa.publicKey) }), /signature/],
      ['kid of the EC key on an RSA signature', async () => forge(claims, rsa.privateKey, { kid: keyId(ec.publicKey) }), /signature/],
      ['alg none', async () => `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.`, /signature/],
      [
        'HS256 keyed with our public key',
        async () => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(Buffer.from(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string)),
        /signature/,
      ],
      ['expired', () => fixture({ now: Date.now() - 2 * HOUR }).issue(), /expired/],
      ['not yet valid', () => fixture({ now: Date.now() + 2 * HOUR }).issue(), /not valid yet/],
      ['issued in the future', async () => forge({ ...claims, iat: nowS + 3600, nbf: nowS - 10 }, rsa.privateKey), /issued in the future/],
      ['no expiry', async () => forge({ ...claims, exp: undefined }, rsa.privateKey), /no expiry/],
      ['expiry not a number', async () => forge({ ...claims, exp: String(nowS + 3600) }, rsa.privateKey), /malformed exp/],
      ['subject differs from the claim', async () => forge({ ...claims, sub: 'system:serviceaccount:team-a:other' }, rsa.privateKey), /subject does not match/],
      ['no platform.io claim', async () => forge({ ...claims, 'platform.io': undefined }, rsa.privateKey), /lacks the platform.io claim/],
      ['service account without uid', async () => forge({ ...claims, 'platform.io': { namespace: NS, serviceaccount: { name: 'builder' } } }, rsa.privateKey), /lacks the platform.io claim/],
      ['malformed bound pod', async () => forge({ ...claims, 'platform.io': { ...(claims['platform.io'] as object), pod: { name: 'web-0' } } }, rsa.privateKey), /malformed bound object/],
      ['malformed audience', async () => forge({ ...claims, aud: [1] }, rsa.privateKey), /malformed aud/],
      ['legacy issuer without the legacy claims', async () => forge({ ...claims, iss: 'platform/serviceaccount' }, rsa.privateKey), /lacks its service account or secret claims/],
    ];
    for (const [name, make, reason] of cases) {
      const r = await check(f.authn.authenticateToken(await make(), []));
      assert.equal(r.kind, 'fail', name);
      assert.match(r.kind === 'fail' ? r.error : '', reason, name);
    }
    assert.equal(await kind(f.authn.authenticateToken(valid, [])), 'ok', 'the untouched token still works');
  });

  test('service account - a token within the clock-skew leeway is accepted', async () => {
    const f = fixture({ now: Date.now() + 30_000 });
    assert.equal(await kind(f.authn.authenticateToken(await f.issue(), [])), 'ok');
  });

  test('service account - tokens that are not ours are left to other authenticators', async () => {
    const f = fixture();
    const claims = { iss: 'https://accounts.example.com', sub: 'jane', aud: 'platform', exp: Math.floor(Date.now() / 1000) + 60 };
    const cases: Array<[string, string]> = [
      ['another issuer, signed by a stranger', await forge(claims, stranger.privateKey)],
      ['another issuer, signed with our key', await forge(claims, rsa.privateKey)],
      ['no issuer', await forge({ sub: 'x' }, rsa.privateKey)],
      ['static token', 'static-token-0123456789'],
      ['bootstrap token', 'abc123.0123456789abcdef'],
      ['three segments of garbage', 'not.a.jwt'],
      ['payload not JSON', `${b64url({ alg: 'RS256' })}.${Buffer.from('hello').toString('base64url')}.sig`],
    ];
    for (const [name, token] of cases) assert.deepEqual(await check(f.authn.authenticateToken(token, [])), { kind: 'skip' }, name);
  });

  test('service account - with lookup on, deleted, deleting or re-created objects revoke bound tokens', async () => {
    const cases: Array<[string, (f: ReturnType<typeof fixture>) => void]> = [
      ['service account deleted', (f) => f.objects.remove('serviceaccounts', NS, 'builder')],
      ['service account re-created (same name, new uid)', (f) => f.objects.put('serviceaccounts', serviceAccount(NS, 'builder'))],
      ['service account being deleted', (f) => f.objects.put('serviceaccounts', { ...f.sa, metadata: { ...f.sa.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } })],
      ['pod deleted', (f) => f.objects.remove('pods', NS, 'web-0')],
      ['pod re-created', (f) => f.objects.put('pods', pod(NS, 'web-0'))],
      ['pod being deleted', (f) => f.objects.put('pods', { ...f.pod, metadata: { ...f.pod.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } })],
      ['bound secret deleted', (f) => f.objects.remove('secrets', NS, 'bound-secret')],
      ['bound secret re-created', (f) => f.objects.put('secrets', opaqueSecret(NS, 'bound-secret'))],
    ];
    for (const [name, change] of cases) {
      for (const lookup of [true, false]) {
        const f = fixture({ lookup });
        const tokens = [await f.issue({ boundObject: f.boundToPod }), await f.issue({ boundObject: f.boundToSecret })];
        const affected = name.startsWith('pod') ? [tokens[0]!] : name.startsWith('bound secret') ? [tokens[1]!] : tokens;
        for (const t of tokens) assert.equal(await kind(f.authn.authenticateToken(t, [])), 'ok', `${name}: before`);
        change(f);
        for (const t of tokens) {
          const expected = lookup && affected.includes(t) ? 'fail' : 'ok';
          assert.equal(await kind(f.authn.authenticateToken(t, [])), expected, `${name}, lookup ${lookup}`);
        }
      }
    }
  });

  test('service account - a legacy token is valid while its secret holds it and its service account lives', async () => {
    const setup = async (lookup: boolean) => {
      const f = fixture({ lookup });
      const token = await signLegacyServiceAccountToken(rsa.privateKey, { namespace: NS, serviceAccountName: 'builder', serviceAccountUid: f.saRef.uid, secretName: 'builder-token' });
      f.objects.put('secrets', tokenSecret(NS, 'builder-token', f.sa, token));
      return { ...f, token };
    };
    const f = await setup(true);
    assert.deepEqual(await check(f.authn.authenticateToken(f.token, [])), {
      kind: 'ok',
      user: { username: 'system:serviceaccount:team-a:builder', uid: f.saRef.uid, groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a'] },
      audiences: [ISSUER],
    });
    assert.equal(await kind(f.authn.authenticateToken(f.token, ['vault'])), 'fail', 'a legacy token is only for the API server');

    const cases: Array<[string, (g: Awaited<ReturnType<typeof setup>>) => Promise<void> | void]> = [
      ['secret deleted', (g) => g.objects.remove('secrets', NS, 'builder-token')],
      [
        'secret being deleted',
        (g) => {
          const s = tokenSecret(NS, 'builder-token', g.sa, g.token);
          g.objects.put('secrets', { ...s, metadata: { ...s.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } });
        },
      ],
      [
        'secret now holds another token',
        async (g) => {
          // Legacy tokens carry no jti or iat, so only another claim makes another token.
          const other = await signLegacyServiceAccountToken(rsa.privateKey, { namespace: NS, serviceAccountName: 'builder', serviceAccountUid: g.saRef.uid, secretName: 'builder-token-2' });
          assert.notEqual(other, g.token);
          g.objects.put('secrets', tokenSecret(NS, 'builder-token', g.sa, other));
        },
      ],
      ['secret holds the token with a character more', (g) => g.objects.put('secrets', tokenSecret(NS, 'builder-token', g.sa, `${g.token}x`))],
      ['service account deleted', (g) => g.objects.remove('serviceaccounts', NS, 'builder')],
      ['service account re-created', (g) => g.objects.put('serviceaccounts', serviceAccount(NS, 'builder'))],
    ];
    for (const [name, change] of cases) {
      for (const lookup of [true, false]) {
        const g = await setup(lookup);
        await change(g);
        assert.equal(await kind(g.authn.authenticateToken(g.token, [])), lookup ? 'fail' : 'ok', `${name}, lookup ${lookup}`);
      }
    }
  });

  test('service account - lookup on without the object views refuses to start', () => {
    assert.throws(() => createServiceAccountAuthenticator(cfg({ lookup: true }), { verify: [rsa.publicKey] }));
  });
});
