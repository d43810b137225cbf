import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { busRequest } from '../../../shared/bus/client.js';
import { requestAuthentication } from '../../../shared/bus/auth-messages.js';
import { Subjects } from '../../../shared/bus/subjects.js';
import type { AuthnInterest, AuthnReply, AuthnRequest } from '../../../shared/bus/messages.js';
import { createCA, issueClientCert, type CertificateAuthority } from '../../../shared/local/pki.js';
import { createAuthnService, type AuthnConfig } from '../service.js';
import { clientCert, DAY, rootCA } from './x509-fixtures.js';

describe('authn service with client certificates and the authenticating proxy', () => {
  let nats: TestNats;
  let dir: string;
  let config: AuthnConfig;
  let nc: NatsConnection;
  let client: NatsConnection;
  let stopService: () => Promise<void>;
  const pem: Record<string, string[]> = {};

  const ask = (req: AuthnRequest) => requestAuthentication(client, req);

  before(async () => {
    nats = await startTestNats();
    dir = await mkdtemp(path.join(os.tmpdir(), 'authn-x509-'));
    const clientCA: CertificateAuthority = await createCA('platform-client-ca');
    const proxyCA: CertificateAuthority = await createCA('platform-front-proxy-ca');
    await writeFile(path.join(dir, 'client-ca.crt'), clientCA.certPem);
    await writeFile(path.join(dir, 'proxy-ca.crt'), proxyCA.certPem);
    await writeFile(path.join(dir, 'empty.crt'), '');

    // Same issuer name as the client CA, another key.
    const forger = await rootCA('platform-client-ca');
    const asIssuer = { certificate: clientCA.certificate, keys: clientCA.keys, pem: clientCA.certPem };
    Object.assign(pem, {
      jane: [(await issueClientCert(clientCA, { commonName: 'jane', organizations: ['developers', 'qa'] })).certPem],
      expired: [(await clientCert('old-jane', asIssuer, [], { notBefore: new Date(Date.now() - 3 * DAY), notAfter: new Date(Date.now() - DAY) })).pem],
      forged: [(await clientCert('jane', forger, ['system:masters'], { authorityKeyId: false })).pem],
      otherCA: [(await clientCert('mallory', await rootCA('elsewhere'), ['system:masters'])).pem],
      proxy: [(await issueClientCert(proxyCA, { commonName: 'front-proxy' })).certPem],
      proxyOtherName: [(await issueClientCert(proxyCA, { commonName: 'not-the-proxy' })).certPem],
    });

    config = {
      clientCAFile: path.join(dir, 'client-ca.crt'),
      requestHeader: {
        clientCAFile: path.join(dir, 'proxy-ca.crt'),
        usernameHeaders: ['X-Remote-User'],
        groupHeaders: ['X-Remote-Group'],
        extraHeadersPrefixes: ['X-Remote-Extra-'],
        allowedNames: ['front-proxy'],
      },
      anonymousAuth: true,
    };
    nc = await nats.connect('authn');
    client = await nats.connect('gateway');
    const svc = await createAuthnService({ nc, config });
    stopService = () => svc.stop();
  });

  after(async () => {
    await stopService?.();
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const proxyHeaders = { 'x-remote-user': ['alice'], 'x-remote-group': ['devs', 'ops'], 'x-remote-extra-acme.com%2fteam': ['blue'] };
  const anonymous: AuthnReply = { authenticated: true, user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } };

  test('authn x509 - a client certificate is its CN with its O groups and system:authenticated', async () => {
    assert.deepEqual(await ask({ certificates: pem.jane }), { authenticated: true, user: { username: 'jane', groups: ['developers', 'qa', 'system:authenticated'] } });
  });

  test('authn x509 - a bad client certificate is rejected, never anonymous', async () => {
    const cases: Array<[name: string, error: string]> = [
      ['expired', 'x509: certificate has expired or is not yet valid'],
      ['forged', 'x509: certificate signed by unknown authority'],
      ['otherCA', 'x509: certificate signed by unknown authority'],
    ];
    for (const [name, error] of cases) assert.deepEqual(await ask({ certificates: pem[name] }), { authenticated: false, error }, name);
    assert.deepEqual(await ask({ certificates: ['not a certificate'] }), { authenticated: false, error: 'x509: malformed certificate' });
  });

  test('authn x509 - proxy headers with the proxy certificate are the user the proxy names', async () => {
    assert.deepEqual(await ask({ certificates: pem.proxy, headers: proxyHeaders }), {
      authenticated: true,
      user: { username: 'alice', groups: ['devs', 'ops', 'system:authenticated'], extra: { 'acme.com/team': ['blue'] } },
    });
  });

  test('authn x509 - proxy headers are ignored without the proxy certificate', async () => {
    // An ordinary client certificate stays its own user.
    assert.deepEqual(await ask({ certificates: pem.jane, headers: proxyHeaders }), { authenticated: true, user: { username: 'jane', groups: ['developers', 'qa', 'system:authenticated'] } });
    // No certificate at all: the headers are nothing, the request is anonymous.
    assert.deepEqual(await ask({ headers: proxyHeaders }), anonymous);
    assert.deepEqual(await ask({}), anonymous);
    // A certificate of the proxy CA with a name that is not allowed, or a forged one, is refused.
    assert.deepEqual(await ask({ certificates: pem.proxyOtherName, headers: proxyHeaders }), {
      authenticated: false,
      error: 'request-header: client certificate CN not allowed; x509: certificate signed by unknown authority',
    });
    assert.deepEqual(await ask({ certificates: pem.forged, headers: proxyHeaders }), {
      authenticated: false,
      error: 'request-header: x509: certificate signed by unknown authority; x509: certificate signed by unknown authority',
    });
  });

  test('authn x509 - the proxy certificate alone is not a user', async () => {
    assert.deepEqual(await ask({ certificates: pem.proxy }), { authenticated: false, error: 'x509: certificate signed by unknown authority' });
  });

  test('authn x509 - authn.interest names the proxy headers for the gateway', async () => {
    assert.deepEqual(await busRequest<AuthnInterest>(client, Subjects.authnInterest, {}), { headers: ['x-remote-user', 'x-remote-group'], headerPrefixes: ['x-remote-extra-'] });
  });

  test('authn x509 - start-up fails on an empty or missing CA file', async () => {
    const other = await nats.connect('authn-bad');
    try {
      await assert.rejects(createAuthnService({ nc: other, config: { clientCAFile: path.join(dir, 'empty.crt') } }), /--client-ca-file: the CA bundle contains no PEM certificate/);
      await assert.rejects(createAuthnService({ nc: other, config: { clientCAFile: path.join(dir, 'missing.crt') } }), /--client-ca-file: cannot read/);
      await assert.rejects(
        createAuthnService({ nc: other, config: { requestHeader: { ...config.requestHeader!, clientCAFile: path.join(dir, 'empty.crt') } } }),
        /--requestheader-client-ca-file: the CA bundle contains no PEM certificate/,
      );
    } finally {
      await other.close();
    }
  });
});
