import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose';
import { StatusError } from '../../api/status.js';
import type { TokenIssueRequest } from '../../bus/messages.js';
import { keyId } from '../keys.js';
import { createTokenIssuer, signLegacyServiceAccountToken } from '../tokens.js';
import { generateKeyPairSync } from 'node:crypto';
const rsaKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const ecKey = (namedCurve: 'P-256' | 'P-384' | 'P-521' = 'P-256') => generateKeyPairSync('ec', { namedCurve });

const NOW = Date.parse('2030-01-01T00:00:00.250Z');
const NOW_S = Math.floor(NOW / 1000);
const SA = { namespace: 'team-a', name: 'builder', uid: 'sa-uid-1' };
const request = (over: Partial<TokenIssueRequest> = {}): TokenIssueRequest => ({ serviceAccount: SA, audiences: [], expirationSeconds: 3600, ...over });

describe('token issuer', () => {
  const rsa = rsaKey();
  const ec = ecKey('P-384');

  test('issuer - a bound token carries the issuer, subject, audiences, lifetime, jti and the platform.io claim', async () => {
    const issuer = createTokenIssuer({ keyFiles: [], issuers: ['https://platform.local', 'https://old'] }, rsa.privateKey, { now: () => NOW });
    const reply = await issuer.issue(request({ boundObject: { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: 'pod-uid' } }));
    assert.deepEqual(reply.audiences, ['https://platform.local'], "no audiences asked = the API server's (the first issuer)");
    assert.equal(reply.expirationTimestamp, '2030-01-01T01:00:00Z');
    const { payload } = await compactVerify(reply.token, rsa.publicKey);
    const claims = JSON.parse(Buffer.from(payload).toString()) as Record<string, unknown>;
    assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...claims, jti: 'x' },
      {
        iss: 'https://platform.local',
        sub: 'system:serviceaccount:team-a:builder',
        aud: ['https://platform.local'],
        exp: NOW_S + 3600,
        iat: NOW_S,
        nbf: NOW_S,
        jti: 'x',
        'platform.io': { namespace: 'team-a', serviceaccount: { name: 'builder', uid: 'sa-uid-1' }, pod: { name: 'web-0', uid: 'pod-uid' } },
      },
    );
    assert.deepEqual(decodeProtectedHeader(reply.token), { alg: 'RS256', kid: keyId(rsa.publicKey), typ: 'JWT' });
  });

  test('issuer - asked-for audiences are used (deduplicated); --api-audiences is the default', async () => {
    const issuer = createTokenIssuer({ keyFiles: [], issuers: ['https://platform.local'], apiAudiences: ['api', 'api2'] }, ec.privateKey, { now: () => NOW });
    const own = await issuer.issue(request());
    assert.deepEqual(own.audiences, ['api', 'api2']);
    assert.deepEqual(decodeJwt(own.token).aud, ['api', 'api2']);
    const vault = await issuer.issue(request({ audiences: ['vault', 'vault'], boundObject: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'secret-uid' } }));
    assert.deepEqual(vault.audiences, ['vault']);
    const claims = decodeJwt(vault.token);
    assert.deepEqual(claims.aud, ['vault']);
    assert.deepEqual(claims['platform.io'], { namespace: 'team-a', serviceaccount: { name: 'builder', uid: 'sa-uid-1' }, secret: { name: 's', uid: 'secret-uid' } });
    assert.equal(decodeProtectedHeader(vault.token).alg, 'ES384');
    assert.notEqual(claims.jti, decodeJwt(own.token).jti, 'every token has its own jti');
  });

  test('issuer - --service-account-max-token-expiration caps the lifetime', async () => {
    const issuer = createTokenIssuer({ keyFiles: [], issuers: ['https://platform.local'], maxExpirationSeconds: 1800 }, ec.privateKey, { now: () => NOW });
    const capped = await issuer.issue(request({ expirationSeconds: 7200 }));
    assert.equal(capped.expirationTimestamp, '2030-01-01T00:30:00Z');
    assert.equal(decodeJwt(capped.token).exp, NOW_S + 1800);
    assert.equal(capped.expirationSeconds, 1800);
    const under = await issuer.issue(request({ expirationSeconds: 600 }));
    assert.equal(decodeJwt(under.token).exp, NOW_S + 600);
    assert.equal(under.expirationSeconds, 600);
  });

  test('issuer - invalid requests are 400 Bad Request', async () => {
    const issuer = createTokenIssuer({ keyFiles: [], issuers: ['https://platform.local'] }, ec.privateKey, { now: () => NOW });
    const cases: Array<[string, TokenIssueRequest]> = [
      ['under 10 minutes', request({ expirationSeconds: 599 })],
      ['fractional seconds', request({ expirationSeconds: 1000.5 })],
      ['over 2^32 seconds', request({ expirationSeconds: 2 ** 32 + 1 })],
      ['no service account uid', request({ serviceAccount: { ...SA, uid: '' } })],
      ['no namespace', request({ serviceAccount: { ...SA, namespace: '' } })],
      ['empty audience', request({ audiences: [''] })],
      ['bound to a node', request({ boundObject: { kind: 'Node' as 'Pod', apiVersion: 'v1', name: 'n', uid: 'u' } })],
      ['bound object without uid', request({ boundObject: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: '' } })],
    ];
    for (const [name, req] of cases) {
      await assert.rejects(issuer.issue(req), (err: unknown) => err instanceof StatusError && err.code === 400 && err.status.reason === 'BadRequest', name);
    }
  });

  test('issuer - a legacy token names its secret and service account and never expires', async () => {
    const token = await signLegacyServiceAccountToken(rsa.privateKey, { namespace: 'team-a', serviceAccountName: 'builder', serviceAccountUid: 'sa-uid-1', secretName: 'builder-token-x' });
    const { payload } = await compactVerify(token, rsa.publicKey);
    assert.deepEqual(JSON.parse(Buffer.from(payload).toString()), {
      iss: 'platform/serviceaccount',
      sub: 'system:serviceaccount:team-a:builder',
      'platform.io/serviceaccount/namespace': 'team-a',
      'platform.io/serviceaccount/secret.name': 'builder-token-x',
      'platform.io/serviceaccount/service-account.name': 'builder',
      'platform.io/serviceaccount/service-account.uid': 'sa-uid-1',
    });
    await assert.rejects(signLegacyServiceAccountToken(rsa.privateKey, { namespace: 'team-a', serviceAccountName: 'builder', serviceAccountUid: '', secretName: 's' }));
  });
});
