import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import YAML from 'yaml';
import { createCA, issueClientCert, issueServingCert, type CertificateAuthority } from '../../../shared/local/pki.js';
import { silentLogger, type Logger } from '../../../shared/log.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from '../../../shared/webhook/test/https-server.js';
import { createWebhookTokenAuthenticator, WEBHOOK_NOT_AUTHENTICATED, WEBHOOK_UNAVAILABLE, type WebhookTokenConfig } from '../authenticators/webhook-token.js';
import type { TokenAuthenticator } from '../types.js';

const API_CREDENTIAL = 'apiserver-to-webhook-credential';
const GOOD = 'good-token-0123456789';
const REVOKED = 'revoked-token-0123456789';
const GROUP = 'authentication.platform.io';

interface Review {
  apiVersion: string;
  kind: string;
  spec: { token: string; audiences?: string[] };
}

/** What a well-behaved webhook answers: GOOD is jane, REVOKED has an error, anything else is unknown. */
function standardAnswer(review: Review, res: ServerResponse): void {
  const status =
    review.spec.token === GOOD
      ? { authenticated: true, user: { username: 'jane', uid: 'u-1', groups: ['dev'], extra: { scopes: ['read', 'write'] } }, ...(review.spec.audiences ? { audiences: review.spec.audiences } : {}) }
      : review.spec.token === REVOKED
        ? { authenticated: false, error: 'token revoked' }
        : { authenticated: false };
  sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'TokenReview', status });
}

function capturingLogger(): { log: Logger; text(): string } {
  const lines: string[] = [];
  return { log: pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) }), text: () => lines.join('') };
}

describe('webhook token authenticator', () => {
  let dir: string;
  let ca: CertificateAuthority;
  let hook: TestHttpsServer;
  let configFile: string;
  let answer: (review: Review, res: ServerResponse) => void | Promise<void> = standardAnswer;
  const started: TokenAuthenticator[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'webhook-token-test-'));
    ca = await createCA('webhook-test-ca');
    const [serving, client] = await Promise.all([issueServingCert(ca), issueClientCert(ca, { commonName: 'platform-apiserver' })]);
    hook = await startHttpsServer(serving, (req, res) => answer(JSON.parse(req.body) as Review, res), { clientCAPem: ca.certPem });
    await writeFile(path.join(dir, 'ca.crt'), ca.certPem);
    await writeFile(path.join(dir, 'client.crt'), client.certPem);
    await writeFile(path.join(dir, 'client.key'), client.keyPem);
    configFile = await writeConfig('webhook.yaml', `${hook.url}/authenticate`);
  });
  after(async () => {
    for (const a of started) await a.stop?.();
    await hook.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A client configuration for `server` with the CA, a client certificate and a token. */
  async function writeConfig(name: string, server: string): Promise<string> {
    const file = path.join(dir, name);
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'authn', cluster: { server, 'certificate-authority': 'ca.crt' } }],
      users: [{ name: 'apiserver', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key', token: API_CREDENTIAL } }],
      contexts: [{ name: 'webhook', context: { cluster: 'authn', user: 'apiserver' } }],
      'current-context': 'webhook',
    };
    await writeFile(file, YAML.stringify(doc));
    return file;
  }
  async function authenticator(cfg: Partial<WebhookTokenConfig> = {}, log: Logger = silentLogger()): Promise<TokenAuthenticator> {
    answer = standardAnswer;
    const a = await createWebhookTokenAuthenticator({ configFile, ...cfg }, log);
    started.push(a);
    return a;
  }
  /** Requests the webhook received while `fn` ran. */
  async function receivedDuring(fn: () => Promise<void>): Promise<ReceivedRequest[]> {
    const before = hook.received.length;
    await fn();
    return hook.received.slice(before);
  }
  const jane = { username: 'jane', uid: 'u-1', groups: ['dev'], extra: { scopes: ['read', 'write'] } };

  test('webhook token - sends a v1beta1 TokenReview by default and takes the user from the answer', async () => {
    const a = await authenticator();
    const got = await receivedDuring(async () => {
      assert.deepEqual(await a.authenticateToken(GOOD, []), { kind: 'ok', user: jane });
    });
    assert.equal(got.length, 1);
    assert.equal(got[0]!.method, 'POST');
    assert.equal(got[0]!.url, '/authenticate');
    assert.equal(got[0]!.headers['content-type'], 'application/json');
    assert.equal(got[0]!.headers.authorization, `Bearer ${API_CREDENTIAL}`);
    assert.equal(got[0]!.clientCN, 'platform-apiserver');
    assert.deepEqual(JSON.parse(got[0]!.body), { apiVersion: `${GROUP}/v1beta1`, kind: 'TokenReview', metadata: {}, spec: { token: GOOD } });
  });

  test("webhook token - v1 on request; audiences are sent and the answer's are returned", async () => {
    const a = await authenticator({ version: 'v1' });
    const got = await receivedDuring(async () => {
      assert.deepEqual(await a.authenticateToken(GOOD, ['vault', 'api']), { kind: 'ok', user: jane, audiences: ['vault', 'api'] });
    });
    assert.deepEqual(JSON.parse(got[0]!.body), { apiVersion: `${GROUP}/v1`, kind: 'TokenReview', metadata: {}, spec: { token: GOOD, audiences: ['vault', 'api'] } });
    // The webhook vouches for other audiences than the ones asked about: not authenticated.
    answer = (review, res) => sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'jane' }, audiences: ['other'] } });
    assert.deepEqual(await a.authenticateToken(GOOD, ['vault']), { kind: 'fail', error: 'webhook: token is not valid for the requested audiences' });
  });

  test("webhook token - not authenticated: the webhook's error or a generic one", async () => {
    const a = await authenticator();
    assert.deepEqual(await a.authenticateToken(REVOKED, []), { kind: 'fail', error: 'webhook: token revoked' });
    assert.deepEqual(await a.authenticateToken('unknown-token', []), { kind: 'fail', error: WEBHOOK_NOT_AUTHENTICATED });
  });

  test('webhook token - an answer of another version or kind, a 500 or a malformed user fails and is not cached', async () => {
    const { log, text } = capturingLogger();
    const cases: Array<[string, (review: Review, res: ServerResponse) => void]> = [
      ['v1 answer to a v1beta1 review', (_r, res) => sendJson(res, 200, { apiVersion: `${GROUP}/v1`, kind: 'TokenReview', status: { authenticated: true, user: { username: 'jane' } } })],
      ['another group', (_r, res) => sendJson(res, 200, { apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', status: { authenticated: true, user: { username: 'jane' } } })],
      ['another kind', (r, res) => sendJson(res, 200, { apiVersion: r.apiVersion, kind: 'SubjectAccessReview', status: { authenticated: true, user: { username: 'jane' } } })],
      ['HTTP 500', (r, res) => sendJson(res, 500, { apiVersion: r.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'jane' } } })],
      ['no user name', (r, res) => sendJson(res, 200, { apiVersion: r.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: {} } })],
      ['groups not strings', (r, res) => sendJson(res, 200, { apiVersion: r.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'jane', groups: [1] } } })],
    ];
    for (const [name, bad] of cases) {
      const a = await authenticator({}, log);
      answer = bad;
      assert.deepEqual(await a.authenticateToken(GOOD, []), { kind: 'fail', error: WEBHOOK_UNAVAILABLE }, name);
      // Not remembered: once the webhook behaves, the same token works at once.
      answer = standardAnswer;
      const got = await receivedDuring(async () => assert.deepEqual(await a.authenticateToken(GOOD, []), { kind: 'ok', user: jane }, name));
      assert.equal(got.length, 1, name);
    }
    assert.match(text(), /token webhook answered with an error status/);
    assert.match(text(), /token webhook answer is unusable/);
    assert.ok(!text().includes(GOOD), 'the log carries the token');
    assert.ok(!text().includes(API_CREDENTIAL), 'the log carries the API server credential');
  });

  test('webhook token - an unreachable webhook fails without leaking the token', async () => {
    const { log, text } = capturingLogger();
    // Port 1 on the loopback: nothing listens, the connection is refused.
    const file = await writeConfig('down.yaml', 'https://127.0.0.1:1/authenticate');
    const a = await authenticator({ configFile: file }, log);
    assert.deepEqual(await a.authenticateToken(GOOD, []), { kind: 'fail', error: WEBHOOK_UNAVAILABLE });
    assert.match(text(), /token webhook call failed/);
    assert.match(text(), /ECONNREFUSED/);
    assert.ok(!text().includes(GOOD));
  });

  test('webhook token - answers are cached for the TTL, failures too, per token and audiences', async () => {
    const a = await authenticator({ cacheTtlMs: 300 });
    let got = await receivedDuring(async () => {
      for (let i = 0; i < 3; i++) assert.deepEqual(await a.authenticateToken(GOOD, []), { kind: 'ok', user: jane });
      for (let i = 0; i < 3; i++) assert.deepEqual(await a.authenticateToken(REVOKED, []), { kind: 'fail', error: 'webhook: token revoked' });
      // Another audience is another question.
      assert.equal((await a.authenticateToken(GOOD, ['vault'])).kind, 'ok');
    });
    assert.equal(got.length, 3);
    await new Promise((r) => setTimeout(r, 350));
    got = await receivedDuring(async () => {
      assert.deepEqual(await a.authenticateToken(GOOD, []), { kind: 'ok', user: jane });
    });
    assert.equal(got.length, 1, 'after the TTL the webhook is asked again');
  });

  test('webhook token - concurrent identical reviews share one call', async () => {
    const a = await authenticator();
    answer = (review, res) => void setTimeout(() => standardAnswer(review, res), 100);
    const got = await receivedDuring(async () => {
      const results = await Promise.all(Array.from({ length: 5 }, async () => a.authenticateToken(GOOD, [])));
      for (const r of results) assert.deepEqual(r, { kind: 'ok', user: jane });
    });
    assert.equal(got.length, 1);
  });

  test('webhook token - start-up fails on a missing or invalid configuration file', async () => {
    await assert.rejects(createWebhookTokenAuthenticator({ configFile: path.join(dir, 'missing.yaml') }, silentLogger()), /--authentication-token-webhook-config-file: .*missing\.yaml: cannot read/);
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, YAML.stringify({ clusters: [{ name: 'x', cluster: { server: 'http://insecure.example' } }] }));
    await assert.rejects(createWebhookTokenAuthenticator({ configFile: bad }, silentLogger()), /must be an https URL/);
  });
});
