import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthnRequest } from '../../../shared/bus/messages.js';
import { createRequestHeaderAuthenticator, headerSpec, identityFromHeaders, REQUEST_HEADER_CN_NOT_ALLOWED, requestHeaderInterest, type RequestHeaderConfig } from '../authenticators/request-header.js';
import { X509_ERRORS } from '../authenticators/x509.js';
import type { AuthnResult } from '../types.js';
import { clientCert, DAY, EKU, rootCA, tamper, type Minted } from './x509-fixtures.js';

const CONFIG: RequestHeaderConfig = {
  clientCAFile: '/unused/in/unit/tests',
  usernameHeaders: ['X-Remote-User', 'X-Forwarded-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeadersPrefixes: ['X-Remote-Extra-'],
  allowedNames: ['front-proxy', 'front-proxy-2'],
};

describe('request-header authenticator', () => {
  let proxyCA: Minted;
  const chains: Record<string, string[]> = {};

  before(async () => {
    proxyCA = await rootCA('front-proxy-ca');
    const clientCA = await rootCA('client-ca');
    const forgedCA = await rootCA('front-proxy-ca');
    const proxy = (await clientCert('front-proxy', proxyCA)).pem;
    Object.assign(chains, {
      proxy: [proxy],
      proxy2: [(await clientCert('front-proxy-2', proxyCA)).pem],
      // Signed by the proxy CA, but not one of the allowed names.
      otherName: [(await clientCert('some-other-service', proxyCA)).pem],
      // An ordinary client certificate: right CA for x509, wrong CA for the proxy.
      client: [(await clientCert('jane', clientCA, ['developers'])).pem],
      expiredProxy: [(await clientCert('front-proxy', proxyCA, [], { notBefore: new Date(Date.now() - 3 * DAY), notAfter: new Date(Date.now() - DAY) })).pem],
      forgedProxy: [(await clientCert('front-proxy', forgedCA, [], { authorityKeyId: false })).pem],
      tamperedProxy: [tamper((await clientCert('front-proxx', proxyCA)).pem, 'front-proxx', 'front-proxy')],
      serverOnlyProxy: [(await clientCert('front-proxy', proxyCA, [], { eku: [EKU.serverAuth] })).pem],
    });
  });

  const headers = { 'x-remote-user': ['alice'], 'x-remote-group': ['devs', 'a,b'], 'x-remote-extra-scopes': ['read', 'write'] };
  const alice: AuthnResult = { kind: 'ok', user: { username: 'alice', groups: ['devs', 'a,b'], extra: { scopes: ['read', 'write'] } } };
  const skip: AuthnResult = { kind: 'skip' };
  const fail = (error: string): AuthnResult => ({ kind: 'fail', error });

  test('request-header - headers count only with a verified, allowed proxy certificate', async () => {
    const auth = createRequestHeaderAuthenticator(CONFIG, proxyCA.pem);
    const cases: Array<[name: string, req: () => AuthnRequest, want: AuthnResult]> = [
      ['proxy certificate and headers', () => ({ certificates: chains.proxy, headers }), alice],
      ['second allowed name', () => ({ certificates: chains.proxy2, headers }), alice],
      ['headers without any certificate are ignored', () => ({ headers }), skip],
      ['headers with an empty certificate list are ignored', () => ({ certificates: [], headers }), skip],
      ['proxy certificate without a username header', () => ({ certificates: chains.proxy, headers: { 'x-remote-group': ['devs'] } }), skip],
      ['proxy certificate with only an empty username', () => ({ certificates: chains.proxy, headers: { 'x-remote-user': [''] } }), skip],
      ['CN not allowed, with headers', () => ({ certificates: chains.otherName, headers }), fail(REQUEST_HEADER_CN_NOT_ALLOWED)],
      ['CN not allowed, without headers', () => ({ certificates: chains.otherName }), fail(REQUEST_HEADER_CN_NOT_ALLOWED)],
      ['ordinary client certificate without proxy headers', () => ({ certificates: chains.client }), skip],
      ['ordinary client certificate with proxy headers', () => ({ certificates: chains.client, headers }), fail(`request-header: ${X509_ERRORS.unknownAuthority}`)],
      ['expired proxy certificate', () => ({ certificates: chains.expiredProxy, headers }), fail(`request-header: ${X509_ERRORS.expired}`)],
      ['forged proxy certificate (same issuer name, other key)', () => ({ certificates: chains.forgedProxy, headers }), fail(`request-header: ${X509_ERRORS.unknownAuthority}`)],
      ['tampered proxy certificate', () => ({ certificates: chains.tamperedProxy, headers }), fail(`request-header: ${X509_ERRORS.unknownAuthority}`)],
      ['proxy certificate not for client auth', () => ({ certificates: chains.serverOnlyProxy, headers }), fail(`request-header: ${X509_ERRORS.usage}`)],
      ['garbage certificate', () => ({ certificates: ['junk'], headers }), fail(`request-header: ${X509_ERRORS.malformed}`)],
      ['a bearer token does not make the headers count', () => ({ token: 'whatever', headers }), skip],
    ];
    for (const [name, req, want] of cases) assert.deepEqual(await auth.authenticate(req()), want, name);
  });

  test('request-header - without allowed names any certificate of the proxy CA is accepted', async () => {
    const { allowedNames: _, ...anyName } = CONFIG;
    for (const cfg of [anyName, { ...CONFIG, allowedNames: [] }]) {
      const auth = createRequestHeaderAuthenticator(cfg, proxyCA.pem);
      assert.deepEqual(await auth.authenticate({ certificates: chains.otherName, headers }), alice);
      // The CA still decides.
      assert.deepEqual(await auth.authenticate({ certificates: chains.client, headers }), fail(`request-header: ${X509_ERRORS.unknownAuthority}`));
    }
  });

  test('request-header - user, groups and extra are read from the headers as upstream does', () => {
    const spec = headerSpec(CONFIG);
    const cases: Array<[name: string, headers: Record<string, string[]>, want: unknown]> = [
      ['no headers', {}, undefined],
      ['username only', { 'x-remote-user': ['bob'] }, { username: 'bob', groups: [] }],
      ['first configured header wins', { 'x-forwarded-user': ['second'], 'x-remote-user': ['first'] }, { username: 'first', groups: [] }],
      ['an empty first header falls through to the next', { 'x-remote-user': [''], 'x-forwarded-user': ['second'] }, { username: 'second', groups: [] }],
      ['the first value of a header is the user', { 'x-remote-user': ['one', 'two'] }, { username: 'one', groups: [] }],
      ['header names are case-insensitive', { 'X-Remote-User': ['bob'], 'X-REMOTE-GROUP': ['g'] }, { username: 'bob', groups: ['g'] }],
      ['groups without a user are nothing', { 'x-remote-group': ['g'] }, undefined],
      ['every group value is one group, commas kept, empties dropped', { 'x-remote-user': ['bob'], 'x-remote-group': ['a', 'b,c', '', 'a'] }, { username: 'bob', groups: ['a', 'b,c', 'a'] }],
      [
        'extra keys are lowercased and percent-decoded, values kept as sent',
        { 'x-remote-user': ['bob'], 'x-remote-extra-acme.com%2fproject': ['p1', 'p%202'], 'X-Remote-Extra-Reason': ['Because'] },
        { username: 'bob', groups: [], extra: { 'acme.com/project': ['p1', 'p%202'], reason: ['Because'] } },
      ],
      [
        'an invalid escape keeps the key as sent; the bare prefix is no key',
        { 'x-remote-user': ['bob'], 'x-remote-extra-bad%zzkey': ['v'], 'x-remote-extra-': ['nothing'] },
        { username: 'bob', groups: [], extra: { 'bad%zzkey': ['v'] } },
      ],
      [
        'keys that name Object members are ordinary keys',
        { 'x-remote-user': ['bob'], 'x-remote-extra-__proto__': ['p'], 'x-remote-extra-constructor': ['c'] },
        { username: 'bob', groups: [], extra: JSON.parse('{"__proto__":["p"],"constructor":["c"]}') },
      ],
      ['unrelated headers are ignored', { 'x-remote-user': ['bob'], 'x-other': ['x'], 'x-remote-extra': ['no dash'] }, { username: 'bob', groups: [] }],
    ];
    for (const [name, h, want] of cases) assert.deepEqual(identityFromHeaders(h, spec), want, name);
  });

  test('request-header - the interest lists the lowercase names the gateway must forward', () => {
    assert.deepEqual(requestHeaderInterest(CONFIG), { headers: ['x-remote-user', 'x-forwarded-user', 'x-remote-group'], headerPrefixes: ['x-remote-extra-'] });
    assert.deepEqual(requestHeaderInterest({ clientCAFile: 'f', usernameHeaders: ['X-User', 'x-user'] }), { headers: ['x-user'], headerPrefixes: [] });
  });

  test('request-header - a bad configuration stops start-up', () => {
    assert.throws(() => createRequestHeaderAuthenticator(CONFIG, 'no certificates here'), /--requestheader-client-ca-file: the CA bundle contains no PEM certificate/);
    assert.throws(() => createRequestHeaderAuthenticator({ ...CONFIG, usernameHeaders: [] }, proxyCA.pem), /--requestheader-username-headers: at least one header is required/);
  });
});
