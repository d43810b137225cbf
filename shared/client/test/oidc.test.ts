import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createCA, issueServingCert } from '../../local/pki.js';
import { loadClientConfigFiles, resolveClientConfig } from '../config.js';
import { OidcCredentials, idTokenExpired } from '../oidc.js';

const jwt = (exp: number) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'jane', exp })).toString('base64url')}.sig`;

describe('oidc auth provider', () => {
  let dir: string;
  let server: https.Server;
  let issuer: string;
  let caPem: string;
  const requests: Array<{ auth?: string; form: URLSearchParams }> = [];
  let answer: Record<string, unknown> = {};
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'oidc-'));
    const ca = await createCA('test-idp-ca');
    caPem = ca.certPem;
    const cert = await issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer, token_endpoint: `${issuer}/token` }));
        return;
      }
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        requests.push({ ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), form: new URLSearchParams(body) });
        res.statusCode = answer.error ? 400 : 200;
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an expired id-token is refreshed at the issuer and the new tokens are written back to the file', async () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    const expired = jwt(now / 1000 - 60);
    const fresh = jwt(now / 1000 + 3600);
    const file = path.join(dir, 'config');
    await writeFile(path.join(dir, 'idp-ca.crt'), caPem);
    await writeFile(
      file,
      `# kept as written
current-context: x
clusters: [{name: c, cluster: {server: "https://api:6443"}}]
contexts: [{name: x, context: {cluster: c, user: jane}}]
users:
- name: jane
  user:
    auth-provider:
      name: oidc
      config: {idp-issuer-url: "${issuer}", client-id: kubectl, client-secret: s3cret, refresh-token: r1, id-token: "${expired}", idp-certificate-authority: idp-ca.crt}
`,
    );
    const cfg = await resolveClientConfig(await loadClientConfigFiles([file]));
    answer = { id_token: fresh, refresh_token: 'r2' };
    const oidc = new OidcCredentials(cfg.authProvider!, () => now);
    assert.deepEqual(await oidc.headers(), { Authorization: `Bearer ${fresh}` });
    assert.deepEqual(await oidc.headers(), { Authorization: `Bearer ${fresh}` }, 'valid now: no second refresh');
    assert.equal(requests.length, 1);
    assert.deepEqual(Object.fromEntries(requests[0]!.form), { grant_type: 'refresh_token', refresh_token: 'r1' });
    assert.equal(requests[0]!.auth, `Basic ${Buffer.from('kubectl:s3cret').toString('base64')}`);
    const written = await readFile(file, 'utf8');
    assert.match(written, /# kept as written/);
    const again = await resolveClientConfig(await loadClientConfigFiles([file]));
    assert.equal(again.authProvider!.config['id-token'], fresh);
    assert.equal(again.authProvider!.config['refresh-token'], 'r2');

    oidc.invalidate();
    answer = { access_token: 'only-access' };
    await assert.rejects(oidc.headers(), /did not contain an id_token/);
    answer = { error: 'invalid_grant' };
    await assert.rejects(oidc.headers(), /HTTP 400: invalid_grant/);
  });

  it('expiry is read from the token with a little slack; other providers are refused', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    assert.equal(idTokenExpired(jwt(now / 1000 + 3600), now), false);
    assert.equal(idTokenExpired(jwt(now / 1000 + 5), now), true, 'within the 10 s delta');
    assert.equal(idTokenExpired('not.a.jwt', now), true);
    assert.throws(() => new OidcCredentials({ name: 'gcp', config: {}, user: 'u' }), /auth provider "gcp" is not supported/);
  });
});
