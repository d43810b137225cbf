import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { requestAuthentication } from '../../../shared/bus/auth-messages.js';
import type { AuthnRequest } from '../../../shared/bus/messages.js';
import { createCA, issueServingCert } from '../../../shared/local/pki.js';
import { sendJson, startHttpsServer, type TestHttpsServer } from '../../../shared/webhook/test/https-server.js';
import { createAuthnService, type AuthnService } from '../service.js';
import { idToken, signingKey, startProvider, type SigningKey, type TestProvider } from './oidc-provider.js';

const WEBHOOK_TOKEN = 'webhook-token-0123456789';

describe('authn service with OIDC and a token webhook', () => {
  let nats: TestNats;
  let dir: string;
  let provider: TestProvider;
  let hook: TestHttpsServer;
  let key: SigningKey;
  let stranger: SigningKey;
  let svc: AuthnService;
  let client: NatsConnection;
  const ask = (req: AuthnRequest) => requestAuthentication(client, req);

  before(async () => {
    nats = await startTestNats();
    dir = await mkdtemp(path.join(os.tmpdir(), 'authn-oidc-webhook-'));
    const ca = await createCA('authn-service-test-ca');
    [key, stranger] = await Promise.all([signingKey('k1'), signingKey('k1')]);
    provider = await startProvider(ca, [key]);
    hook = await startHttpsServer(await issueServingCert(ca), (req, res) => {
      const review = JSON.parse(req.body) as { apiVersion: string; spec: { token: string; audiences?: string[] } };
      const status =
        review.spec.token === WEBHOOK_TOKEN
          ? { authenticated: true, user: { username: 'robot', uid: 'r-1', groups: ['bots'] }, ...(review.spec.audiences ? { audiences: review.spec.audiences } : {}) }
          : { authenticated: false };
      sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'TokenReview', status });
    });
    const caFile = path.join(dir, 'ca.crt');
    await writeFile(caFile, ca.certPem);
    const webhookConfig = path.join(dir, 'webhook.yaml');
    await writeFile(
      webhookConfig,
      YAML.stringify({
        clusters: [{ name: 'hook', cluster: { server: hook.url, 'certificate-authority': 'ca.crt' } }],
        users: [{ name: 'apiserver', user: { token: 'apiserver-credential' } }],
        contexts: [{ name: 'default', context: { cluster: 'hook', user: 'apiserver' } }],
        'current-context': 'default',
      }),
    );
    const nc = await nats.connect('authn');
    client = await nats.connect('gateway');
    svc = await createAuthnService({
      nc,
      config: {
        oidc: { issuerUrl: provider.url, clientId: 'platform', caFile, usernamePrefix: 'oidc:', groupsClaim: 'groups', groupsPrefix: 'oidc:' },
        webhook: { configFile: webhookConfig, version: 'v1' },
      },
    });
  });
  after(async () => {
    await svc?.stop();
    await hook?.close();
    await provider?.close();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('authn service - an OIDC ID token authenticates with prefixed user and groups', async () => {
    const token = await idToken(key, { iss: provider.url, groups: ['dev'] });
    assert.deepEqual(await ask({ token }), { authenticated: true, user: { username: 'oidc:jane', groups: ['oidc:dev', 'system:authenticated'] } });
  });

  test("authn service - a webhook token authenticates with the webhook's user and audiences", async () => {
    assert.deepEqual(await ask({ token: WEBHOOK_TOKEN }), { authenticated: true, user: { username: 'robot', uid: 'r-1', groups: ['bots', 'system:authenticated'] } });
    assert.deepEqual(await ask({ token: WEBHOOK_TOKEN, audiences: ['vault'] }), {
      authenticated: true,
      user: { username: 'robot', uid: 'r-1', groups: ['bots', 'system:authenticated'] },
      audiences: ['vault'],
    });
  });

  test('authn service - forged, expired and unknown tokens are rejected, never anonymous', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string]> = [
      ['signed by another key', await idToken(stranger, { iss: provider.url })],
      ['expired', await idToken(key, { iss: provider.url, iat: now - 7200, exp: now - 3600 })],
      ['issued to another client', await idToken(key, { iss: provider.url, aud: 'other-client' })],
      ['unknown to the webhook', 'some-random-token'],
    ];
    for (const [name, token] of cases) {
      assert.deepEqual(await ask({ token }), { authenticated: false, error: 'invalid bearer token' }, name);
    }
    // No credential at all is still anonymous.
    assert.deepEqual(await ask({}), { authenticated: true, user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
  });
});
