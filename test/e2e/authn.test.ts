// End to end: every authentication method that needs no outside server, through the real HTTPS
// gateway: client certificates, the authenticating front proxy, static and bootstrap tokens,
// service-account tokens from TokenRequest (bound, audience-scoped, tampered, forged), TokenReview
// in both versions, impersonation on an AlwaysAllow cluster, and the same identities seen by
// @kubernetes/client-node and upstream kubectl. Each case checks who the server says the caller
// is (SelfSubjectReview) or the status a user gets back.

import 'reflect-metadata'; // before @peculiar/x509, which resolves its parsers through tsyringe
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { SignJWT, generateKeyPair } from 'jose';
import YAML from 'yaml';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startTestCluster, type RequestOptions, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl, type KubectlResult } from '../support/kubectl.js';
import { createCA, issueClientCert, issueServingCert, type CertificateAuthority, type PemPair } from '../../shared/local/pki.js';
import { kubeconfigObject, kubeconfigYaml } from '../../shared/local/kubeconfig.js';
import { assertOk, assertStatus, eventually, uniq } from './helpers.js';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const TOKEN_REVIEWS = (version: string) => `/apis/authentication.platform.io/${version}/tokenreviews`;
const SECRETS = '/api/v1/namespaces/platform-system/secrets';
const SERVICE_ACCOUNTS = '/api/v1/namespaces/default/serviceaccounts';
const PODS = '/api/v1/namespaces/default/pods';
const AUTHENTICATED = 'system:authenticated';

type Res = Awaited<ReturnType<TestCluster['request']>>;

interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** A client certificate signed by `ca` but outside its validity window (for expired / not yet valid). */
async function outOfDateClientCert(ca: CertificateAuthority, commonName: string, notBefore: Date, notAfter: Date): Promise<PemPair> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '0a1b2c3d4e5f',
    subject: `CN=${commonName}`,
    issuer: ca.certificate.subject,
    notBefore,
    notAfter,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ],
  });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: cert.toString('pem'), keyPem: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}

function b64url(v: unknown): string {
  return Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
}

function jwtParts(token: string): { header: any; payload: any; signature: string } {
  const [h, p, s] = token.split('.');
  assert.ok(h && p && s !== undefined, 'a service-account token is a three-part JWS');
  return { header: JSON.parse(Buffer.from(h, 'base64url').toString()), payload: JSON.parse(Buffer.from(p, 'base64url').toString()), signature: s };
}

const sorted = (xs: string[] | undefined) => [...(xs ?? [])].sort();

const bin = findKubectl();
const skipKubectl = bin ? false : 'kubectl not on PATH';

function ok(r: KubectlResult): string {
  assert.equal(r.code, 0, `kubectl failed (${r.code}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

describe('authentication end to end (AlwaysAllow)', () => {
  let c: TestCluster;
  let dir: string;

  /** POSTs a SelfSubjectReview with the given credentials (no admin token unless asked for). */
  const whoamiRaw = (opts: RequestOptions = {}): Promise<Res> => c.request('POST', SSR, { token: null, ...opts, body: SSR_BODY });
  /** The identity the server reports for these credentials; fails unless the review is answered. */
  const whoami = async (opts: RequestOptions = {}): Promise<UserInfo> => {
    const r = await whoamiRaw(opts);
    const body = assertOk(r, 201);
    assert.equal(body.kind, 'SelfSubjectReview');
    assert.equal(body.apiVersion, 'authentication.platform.io/v1');
    assert.ok(body.status?.userInfo, `no status.userInfo in ${r.text.slice(0, 300)}`);
    return body.status.userInfo as UserInfo;
  };
  const assert401 = (r: Res, what: string) => {
    assert.equal(r.status, 401, `${what}: expected 401, got ${r.status}: ${r.text.slice(0, 300)}`);
    const st = assertStatus(r, 401, 'Unauthorized');
    assert.equal(st.status, 'Failure');
  };
  const tokenReview = async (token: string | undefined, audiences?: string[], version = 'v1'): Promise<any> => {
    const spec: Record<string, unknown> = {};
    if (token !== undefined) spec.token = token;
    if (audiences) spec.audiences = audiences;
    return assertOk(await c.request('POST', TOKEN_REVIEWS(version), { body: { apiVersion: `authentication.platform.io/${version}`, kind: 'TokenReview', spec } }), 201);
  };
  const requestToken = (sa: string, spec: Record<string, unknown>): Promise<Res> =>
    c.request('POST', `${SERVICE_ACCOUNTS}/${sa}/token`, { body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec } });
  const issueToken = async (sa: string, spec: Record<string, unknown> = {}): Promise<string> => {
    const r = assertOk(await requestToken(sa, spec), 201);
    assert.equal(typeof r.status?.token, 'string');
    return r.status.token as string;
  };
  const createServiceAccount = async (name: string): Promise<any> =>
    assertOk(await c.request('POST', SERVICE_ACCOUNTS, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } } }), 201);
  const createBootstrapSecret = async (id: string, secret: string, extra: Record<string, string> = {}): Promise<void> => {
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'bootstrap.platform.io/token',
      metadata: { name: `bootstrap-token-${id}`, namespace: 'platform-system' },
      stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:worker', ...extra },
    };
    assertOk(await c.request('POST', SECRETS, { body }), 201);
  };
  /** Waits (through TokenReview, which the gateway does not cache) until authn accepts the token. */
  const untilAccepted = (token: string, what: string) =>
    eventually(
      what,
      async () => {
        const r = await tokenReview(token);
        assert.equal(r.status.authenticated, true, JSON.stringify(r.status));
        return r;
      },
      { timeoutMs: 2500, intervalMs: 100 },
    );

  before(async () => {
    // Upstream group names as npm start serves them: kubectl's typed clients name authentication.k8s.io.
    c = await startTestCluster({ fullAuthn: true, upstreamGroupAliases: true });
    dir = await mkdtemp(path.join(os.tmpdir(), 'authn-e2e-'));
  });
  after(async () => {
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // ---- client certificates -----------------------------------------------------------------

  it('client certificate - CN is the user, each O a group, plus system:authenticated', async () => {
    const cert = await issueClientCert(c.ca, { commonName: 'carol', organizations: ['devs', 'ops'] });
    const u = await whoami({ cert });
    assert.equal(u.username, 'carol');
    assert.deepEqual(sorted(u.groups), ['devs', 'ops', AUTHENTICATED]);
  });

  it('client certificate - an expired or not yet valid certificate is 401, never anonymous', async () => {
    const day = 24 * 3600 * 1000;
    const expired = await outOfDateClientCert(c.ca, 'old-carol', new Date(Date.now() - 10 * day), new Date(Date.now() - day));
    assert401(await whoamiRaw({ cert: expired }), 'expired certificate');
    const future = await outOfDateClientCert(c.ca, 'future-carol', new Date(Date.now() + day), new Date(Date.now() + 10 * day));
    assert401(await whoamiRaw({ cert: future }), 'not yet valid certificate');
    // Made the same way but in date, it is accepted: the refusals above are about the dates.
    const current = await outOfDateClientCert(c.ca, 'current-carol', new Date(Date.now() - day), new Date(Date.now() + day));
    assert.equal((await whoami({ cert: current })).username, 'current-carol');
  });

  it('client certificate - signed by another CA (even claiming system:masters) is 401', async () => {
    const evil = await createCA('platform-test-ca');
    const cert = await issueClientCert(evil, { commonName: 'platform-admin', organizations: ['system:masters'] });
    assert401(await whoamiRaw({ cert }), 'certificate of another CA');
    assert401(await c.request('POST', '/api/v1/namespaces', { token: null, cert, body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: uniq('evil') } } }), 'create as another CA');
  });

  it('client certificate - a serving certificate (no clientAuth usage) of the cluster CA is 401', async () => {
    const serving = await issueServingCert(c.ca, { commonName: 'sneaky' });
    assert401(await whoamiRaw({ cert: serving }), 'serving certificate used as a client certificate');
  });

  // Anonymous access is off under AlwaysAllow (upstream's ApplyAuthorization): what would be anonymous is 401.
  it('client certificate - no certificate and no token is anonymous, which AlwaysAllow turns away: 401', async () => {
    assert401(await whoamiRaw({}), 'no credentials');
  });

  it('client certificate - an admin certificate in system:masters creates a namespace', async () => {
    const cert = await issueClientCert(c.ca, { commonName: 'cert-admin', organizations: ['system:masters'] });
    const u = await whoami({ cert });
    assert.equal(u.username, 'cert-admin');
    assert.ok(u.groups?.includes('system:masters'), JSON.stringify(u));
    const name = uniq('by-cert');
    const created = assertOk(await c.request('POST', '/api/v1/namespaces', { token: null, cert, body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201);
    assert.equal(created.metadata.name, name);
    assertOk(await c.request('GET', `/api/v1/namespaces/${name}`, { token: null, cert }));
  });

  // ---- front proxy -------------------------------------------------------------------------

  const proxyHeaders = {
    'X-Remote-User': 'dave',
    'X-Remote-Group': ['g1', 'g2'],
    'X-Remote-Extra-Acme.com%2FProject': 'p1',
    'X-Remote-Extra-Scopes': ['read', 'write'],
  };

  it('front proxy - the proxy certificate plus X-Remote-* headers is the identity the headers name', async () => {
    const proxy = await issueClientCert(c.proxyCA!, { commonName: 'front-proxy' });
    const u = await whoami({ cert: proxy, headers: proxyHeaders });
    assert.equal(u.username, 'dave');
    assert.deepEqual(sorted(u.groups), ['g1', 'g2', AUTHENTICATED]);
    assert.deepEqual(u.extra, { 'acme.com/project': ['p1'], scopes: ['read', 'write'] });
  });

  it('front proxy - the same headers with a normal client certificate are ignored: the certificate decides', async () => {
    const cert = await issueClientCert(c.ca, { commonName: 'erin', organizations: ['staff'] });
    const u = await whoami({ cert, headers: proxyHeaders });
    assert.equal(u.username, 'erin');
    assert.deepEqual(sorted(u.groups), ['staff', AUTHENTICATED]);
    assert.equal(u.extra, undefined);
  });

  it('front proxy - the headers without any certificate are ignored: anonymous (401 under AlwaysAllow)', async () => {
    assert401(await whoamiRaw({ headers: proxyHeaders }), 'proxy headers without a certificate');
  });

  it('front proxy - the headers with a static token are ignored: the token decides', async () => {
    const u = await whoami({ token: c.userToken, headers: proxyHeaders });
    assert.equal(u.username, 'jane');
  });

  it('front proxy - a proxy-CA certificate with a CN not in the allowed names is 401', async () => {
    const notProxy = await issueClientCert(c.proxyCA!, { commonName: 'not-the-proxy' });
    assert401(await whoamiRaw({ cert: notProxy, headers: proxyHeaders }), 'proxy CA certificate with another CN');
  });

  it('front proxy - the proxy certificate without a user header is 401, never the proxy itself', async () => {
    const proxy = await issueClientCert(c.proxyCA!, { commonName: 'front-proxy' });
    // The proxy CA is not a client CA: its certificate alone identifies nobody.
    assert401(await whoamiRaw({ cert: proxy, headers: { 'X-Remote-Group': 'g1' } }), 'proxy certificate without X-Remote-User');
  });

  // ---- static tokens -----------------------------------------------------------------------

  it('static token - the token file user with uid and groups', async () => {
    const u = await whoami({ token: c.userToken });
    assert.equal(u.username, 'jane');
    assert.equal(u.uid, 'jane-uid');
    assert.deepEqual(sorted(u.groups), ['developers', 'qa', AUTHENTICATED]);
    const admin = await whoami({ token: c.adminToken });
    assert.equal(admin.username, 'platform-admin');
    assert.ok(admin.groups?.includes('system:masters'));
  });

  it('static token - an invalid token is 401 with a Status body', async () => {
    const r = await whoamiRaw({ token: 'not-a-valid-token' });
    assert401(r, 'invalid token');
    assert.equal(r.json.message, 'Unauthorized');
    assert.ok(!r.text.includes('not-a-valid-token'), 'the presented token is not echoed back');
    assert401(await c.request('GET', '/api/v1/namespaces', { token: `${c.userToken}x` }), 'a valid token with a byte appended');
  });

  it('static token - an empty "Authorization: Bearer " is anonymous (401 under AlwaysAllow)', async () => {
    assert401(await whoamiRaw({ headers: { authorization: 'Bearer ' } }), 'empty bearer');
  });

  // ---- bootstrap tokens --------------------------------------------------------------------

  it('bootstrap token - a token secret authenticates as system:bootstrap:<id>; wrong secret and expired are 401', async () => {
    await createBootstrapSecret('abcdef', '0123456789abcdef');
    const token = 'abcdef.0123456789abcdef';
    await untilAccepted(token, 'the bootstrap token becomes valid');
    const u = await whoami({ token });
    assert.equal(u.username, 'system:bootstrap:abcdef');
    assert.deepEqual(sorted(u.groups), [AUTHENTICATED, 'system:bootstrappers', 'system:bootstrappers:worker']);

    assert401(await whoamiRaw({ token: 'abcdef.0123456789abcdee' }), 'wrong token secret');
    assert401(await whoamiRaw({ token: 'abcdef.0123456789ABCDEF' }), 'token secret in upper case');

    // Secrets reach authn through its watch in order: once the last one is accepted, the expired
    // and unusable ones before it have been seen too.
    await createBootstrapSecret('expird', '0123456789abcdef', { expiration: '2020-01-01T00:00:00Z' });
    await createBootstrapSecret('nousag', '0123456789abcdef', { 'usage-bootstrap-authentication': 'false' });
    await createBootstrapSecret('marker', '0123456789abcdef');
    await untilAccepted('marker.0123456789abcdef', 'the marker bootstrap token becomes valid');
    assert401(await whoamiRaw({ token: 'expird.0123456789abcdef' }), 'expired bootstrap token');
    assert401(await whoamiRaw({ token: 'nousag.0123456789abcdef' }), 'bootstrap token without the authentication usage');
  });

  it('bootstrap token - deleting the secret revokes the token', async () => {
    // A fresh id, proven valid through TokenReview only, so no gateway cache holds a success.
    await createBootstrapSecret('revoke', 'fedcba9876543210');
    const token = 'revoke.fedcba9876543210';
    await untilAccepted(token, 'the bootstrap token becomes valid');
    assert.equal((await c.request('DELETE', `${SECRETS}/bootstrap-token-revoke`)).status, 200);
    await eventually('the deleted bootstrap token is refused', async () => assert401(await whoamiRaw({ token }), 'deleted bootstrap token'), { timeoutMs: 4000, intervalMs: 100 });
  });

  // ---- service-account tokens (TokenRequest) -----------------------------------------------

  let builder: any;

  it('TokenRequest - 201 with a token that authenticates as the service account', async () => {
    builder = await createServiceAccount('builder');
    const before = Date.now();
    const r = assertOk(await requestToken('builder', { expirationSeconds: 3600 }), 201);
    assert.equal(r.kind, 'TokenRequest');
    assert.equal(r.apiVersion, 'authentication.platform.io/v1');
    assert.equal(typeof r.status.token, 'string');
    const exp = Date.parse(r.status.expirationTimestamp);
    assert.ok(Math.abs(exp - (before + 3600_000)) < 60_000, `expirationTimestamp ${r.status.expirationTimestamp} is about an hour from now`);
    const { payload } = jwtParts(r.status.token);
    assert.equal(payload.iss, c.serviceAccountIssuer);
    assert.equal(payload.sub, 'system:serviceaccount:default:builder');
    assert.equal(payload.exp - payload.iat, 3600);

    const u = await whoami({ token: r.status.token });
    assert.equal(u.username, 'system:serviceaccount:default:builder');
    assert.equal(u.uid, builder.metadata.uid);
    assert.deepEqual(sorted(u.groups), [AUTHENTICATED, 'system:serviceaccounts', 'system:serviceaccounts:default']);
  });

  it('TokenRequest - expirationSeconds 60 is 422; an unknown service account is 404', async () => {
    const st = assertStatus(await requestToken('builder', { expirationSeconds: 60 }), 422, 'Invalid');
    assert.ok(
      st.details?.causes?.some((x: any) => x.field === 'spec.expirationSeconds'),
      JSON.stringify(st.details),
    );
    const nf = assertStatus(await requestToken('no-such-sa', { expirationSeconds: 3600 }), 404, 'NotFound');
    assert.match(nf.message, /no-such-sa/);
  });

  it('TokenRequest - a token bound to a pod works until the pod is deleted', async () => {
    const pod = uniq('bound');
    assertOk(
      await c.request('POST', PODS, {
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: pod }, spec: { serviceAccountName: 'builder', containers: [{ name: 'main', image: 'registry.example/app:1' }] } },
      }),
      201,
    );
    const r = assertOk(await requestToken('builder', { expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod } }), 201);
    const token = r.status.token as string;
    assert.equal(r.spec.boundObjectRef?.name, pod);
    assert.equal((await whoami({ token })).username, 'system:serviceaccount:default:builder');
    // A second token for the same pod, never used through the gateway (so never cached there).
    const unused = await issueToken('builder', { expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod } });

    const del = await c.request('DELETE', `${PODS}/${pod}`);
    assert.ok(del.status === 200 || del.status === 202, `delete pod: ${del.status} ${del.text.slice(0, 200)}`);
    await eventually('TokenReview refuses a token of the deleted pod', async () => assert.equal((await tokenReview(unused)).status.authenticated, false), { timeoutMs: 3000, intervalMs: 100 });
    assert401(await whoamiRaw({ token: unused }), 'uncached token of a deleted pod');
    // The gateway may serve the used token from its success cache (~10 s), not longer.
    await eventually('the token of the deleted pod is refused', async () => assert401(await whoamiRaw({ token }), 'token of a deleted pod'), { timeoutMs: 15_000, intervalMs: 100 });
  });

  it('TokenRequest - a token of a deleted service account is refused', async () => {
    await createServiceAccount('ephemeral');
    const token = await issueToken('ephemeral', { expirationSeconds: 3600 });
    await untilAccepted(token, 'the service-account token is valid');
    assert.equal((await c.request('DELETE', `${SERVICE_ACCOUNTS}/ephemeral`)).status, 200);
    await eventually('TokenReview refuses the token of a deleted service account', async () => assert.equal((await tokenReview(token)).status.authenticated, false), {
      timeoutMs: 3000,
      intervalMs: 100,
    });
    assert401(await whoamiRaw({ token }), 'token of a deleted service account');
  });

  it('TokenRequest - tampered, unsigned and foreign-signed tokens are 401', async () => {
    const token = await issueToken('builder', { expirationSeconds: 3600 });
    const { header, payload, signature } = jwtParts(token);
    const claim = (p: any) => `${b64url(header)}.${b64url(p)}.${signature}`;
    const tampered = claim({ ...payload, sub: 'system:serviceaccount:platform-system:builder' });
    assert401(await whoamiRaw({ token: tampered }), 'tampered subject');
    assert401(await whoamiRaw({ token: claim({ ...payload, exp: payload.exp + 3600 }) }), 'tampered expiry');
    assert401(await whoamiRaw({ token: `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.` }), 'alg none');
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(privateKey);
    assert401(await whoamiRaw({ token: foreign }), 'signed by another key');
    // The genuine token still works: the refusals above are about the changes, not the token.
    assert.equal((await whoami({ token })).username, 'system:serviceaccount:default:builder');
  });

  // ---- TokenReview -------------------------------------------------------------------------

  for (const version of ['v1', 'v1beta1']) {
    it(`TokenReview ${version} - a valid token, a garbage token, a missing token`, async () => {
      const r = await c.request('POST', TOKEN_REVIEWS(version), { body: { apiVersion: `authentication.platform.io/${version}`, kind: 'TokenReview', spec: { token: c.userToken } } });
      const ok = assertOk(r, 201);
      assert.equal(ok.kind, 'TokenReview');
      assert.equal(ok.apiVersion, `authentication.platform.io/${version}`);
      assert.equal(ok.status.authenticated, true);
      assert.equal(ok.status.user.username, 'jane');
      assert.equal(ok.status.user.uid, 'jane-uid');
      assert.deepEqual(sorted(ok.status.user.groups), ['developers', 'qa', AUTHENTICATED]);
      if (version === 'v1beta1') assert.match(r.headers.get('warning') ?? '', /deprecated/);

      const bad = await tokenReview('garbage.token.value', undefined, version);
      assert.equal(bad.status.authenticated, false);
      assert.ok(!bad.status.user?.username, JSON.stringify(bad.status));

      assertStatus(await c.request('POST', TOKEN_REVIEWS(version), { body: { apiVersion: `authentication.platform.io/${version}`, kind: 'TokenReview', spec: {} } }), 400, 'BadRequest');
    });
  }

  it('TokenReview - audiences are checked for a token requested with audiences ["api-x"]', async () => {
    const token = await issueToken('builder', { expirationSeconds: 3600, audiences: ['api-x'] });
    assert.deepEqual(jwtParts(token).payload.aud, ['api-x']);
    const good = await tokenReview(token, ['api-x']);
    assert.equal(good.status.authenticated, true, JSON.stringify(good.status));
    assert.equal(good.status.user.username, 'system:serviceaccount:default:builder');
    assert.deepEqual(good.status.audiences, ['api-x']);
    const other = await tokenReview(token, ['other']);
    assert.equal(other.status.authenticated, false, JSON.stringify(other.status));
    // Not meant for the API server itself: as a bearer token it is refused.
    assert401(await whoamiRaw({ token }), 'a token for audience api-x used against the API server');
  });

  // ---- impersonation (AlwaysAllow) ---------------------------------------------------------

  it('impersonation - user, two groups and an extra become the identity', async () => {
    const u = await whoami({
      token: c.adminToken,
      headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': ['a', 'b'], 'Impersonate-Extra-Acme.com%2Fproject': 'x' },
    });
    assert.equal(u.username, 'alice');
    assert.deepEqual(u.groups, ['a', 'b', AUTHENTICATED]);
    assert.deepEqual(u.extra, { 'acme.com/project': ['x'] });
  });

  it('impersonation - Impersonate-Group without Impersonate-User is 400', async () => {
    const st = assertStatus(await whoamiRaw({ token: c.adminToken, headers: { 'Impersonate-Group': 'a' } }), 400, 'BadRequest');
    assert.ok(st.message.length > 0);
  });

  it('impersonation - a service account gets the service-account groups', async () => {
    const u = await whoami({ token: c.adminToken, headers: { 'Impersonate-User': 'system:serviceaccount:ns1:sa1' } });
    assert.equal(u.username, 'system:serviceaccount:ns1:sa1');
    assert.deepEqual(sorted(u.groups), [AUTHENTICATED, 'system:serviceaccounts', 'system:serviceaccounts:ns1']);
  });

  it('impersonation - an invalid caller token is 401 before any impersonation', async () => {
    assert401(await whoamiRaw({ token: 'not-a-valid-token', headers: { 'Impersonate-User': 'alice' } }), 'impersonation with an invalid token');
  });

  // ---- @kubernetes/client-node -------------------------------------------------------------

  it('client-node - a client-certificate kubeconfig lists namespaces', async () => {
    const cert = await issueClientCert(c.ca, { commonName: 'cn-user', organizations: ['system:masters'] });
    const file = path.join(dir, 'cert.kubeconfig');
    await writeFile(file, kubeconfigYaml({ server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem }), { mode: 0o600 });
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    const list = await kc.makeApiClient(CoreV1Api).listNamespace();
    assert.ok(
      list.items.some((n) => n.metadata?.name === 'default'),
      'default namespace listed',
    );
    assert.equal((await whoamiWith(kc)).username, 'cn-user');
  });

  it('client-node - user.as in the kubeconfig impersonates', async () => {
    const cert = await issueClientCert(c.ca, { commonName: 'cn-admin', organizations: ['system:masters'] });
    const cfg = kubeconfigObject({ server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem }) as any;
    cfg.users[0].user.as = 'alice';
    const file = path.join(dir, 'as.kubeconfig');
    await writeFile(file, YAML.stringify(cfg), { mode: 0o600 });
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    const list = await kc.makeApiClient(CoreV1Api).listNamespace();
    assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
    const u = await whoamiWith(kc);
    assert.equal(u.username, 'alice');
    assert.deepEqual(u.groups, [AUTHENTICATED]);
  });

  /** SelfSubjectReview with exactly the TLS options and headers client-node derives from `kc`. */
  async function whoamiWith(kc: KubeConfig): Promise<UserInfo> {
    const opts: https.RequestOptions = { method: 'POST', headers: { 'content-type': 'application/json' } };
    await kc.applyToHTTPSOptions(opts);
    const body = JSON.stringify(SSR_BODY);
    const text = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = https.request(`${kc.getCurrentCluster()!.server}${SSR}`, { ...opts, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => chunks.push(b));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(text.status, 201, text.text.slice(0, 300));
    return JSON.parse(text.text).status.userInfo as UserInfo;
  }

  // ---- upstream kubectl (skipped when it is not on PATH) -----------------------------------

  describe('kubectl', { skip: skipKubectl }, () => {
    let k: Kubectl;
    let certK: Kubectl;

    before(async () => {
      k = new Kubectl(bin!, c.kubeconfigPath);
      const cert = await issueClientCert(c.ca, { commonName: 'kubectl-cert-user', organizations: ['system:masters', 'ops'] });
      const file = path.join(dir, 'kubectl-cert.kubeconfig');
      await writeFile(file, kubeconfigYaml({ server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem }), { mode: 0o600 });
      certK = new Kubectl(bin!, file);
    });
    after(async () => {
      for (const d of [k?.cacheDir, certK?.cacheDir]) if (d) await rm(d, { recursive: true, force: true });
    });

    const selfSubjectReview = JSON.stringify(SSR_BODY);

    it('kubectl create -f SelfSubjectReview (platform group) reports the client-certificate user', async () => {
      const out = JSON.parse(ok(await certK.run(['create', '--validate=false', '-f', '-', '-o', 'json'], { input: selfSubjectReview })));
      assert.equal(out.status.userInfo.username, 'kubectl-cert-user');
      assert.deepEqual(sorted(out.status.userInfo.groups), ['ops', AUTHENTICATED, 'system:masters']);
    });

    it('kubectl --as=alice --as-group=a: get ns works and the server sees alice in a', async () => {
      const out = ok(await k.run(['--as=alice', '--as-group=a', 'get', 'ns']));
      assert.match(out, /^default\s/m);
      const who = JSON.parse(ok(await k.run(['--as=alice', '--as-group=a', 'create', '--validate=false', '-f', '-', '-o', 'json'], { input: selfSubjectReview })));
      assert.equal(who.status.userInfo.username, 'alice');
      assert.deepEqual(who.status.userInfo.groups, ['a', AUTHENTICATED]);
    });

    it('kubectl auth whoami (authentication.k8s.io, served as an alias)', async () => {
      const r = JSON.parse(ok(await k.run(['auth', 'whoami', '-o', 'json'])));
      assert.equal(r.apiVersion, 'authentication.k8s.io/v1');
      assert.equal(r.status.userInfo.username, 'platform-admin');
    });

    // A protobuf TokenRequest in authentication.k8s.io/v1, answered in the spelling it was posted in.
    it('kubectl create token builder - the token authenticates as the service account', async () => {
      const sa = await c.request('POST', SERVICE_ACCOUNTS, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } } });
      assert.ok(sa.status === 201 || sa.status === 409, `service account builder: ${sa.status}`);
      const token = ok(await k.run(['create', 'token', 'builder', '-n', 'default', '--duration=1h'])).trim();
      const who = assertOk(await c.request('POST', SSR, { token, body: SSR_BODY }), 201);
      assert.equal(who.status.userInfo.username, 'system:serviceaccount:default:builder');
    });
  });
});
