import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import YAML from 'yaml';
import type { AuthzAttributes } from '../../../shared/bus/messages.js';
import { OptionsError } from '../../../shared/config/options.js';
import { silentLogger } from '../../../shared/log.js';
import { createCA, issueServingCert } from '../../../shared/local/pki.js';
import { loadWebhookClient, type WebhookClient } from '../../../shared/webhook/client-config.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from '../../../shared/webhook/test/https-server.js';
import { createWebhookAuthorizer, webhookMode, type SarVersion } from '../authorizers/webhook.js';
import type { AuthorizerDecision, ModeContext } from '../types.js';

const TOKEN = 'authz-webhook-secret-token-0123456789';

const jane: AuthzAttributes = {
  user: { username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'], 'acme.io/team': ['blue'] } },
  verb: 'get',
  isResourceRequest: true,
  path: '/apis/apps/v1/namespaces/shop/deployments/web/scale',
  apiGroup: 'apps',
  apiVersion: 'v1',
  resource: 'deployments',
  subresource: 'scale',
  namespace: 'shop',
  name: 'web',
};
const healthz: AuthzAttributes = { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, verb: 'get', isResourceRequest: false, path: '/healthz' };

type Answer = (spec: Record<string, unknown>, apiVersion: string, res: ServerResponse) => void;
/** The SubjectAccessReview a well-behaved webhook returns. */
const review = (apiVersion: string, status: Record<string, unknown>) => ({ apiVersion, kind: 'SubjectAccessReview', status });

describe('authz webhook', () => {
  let dir: string;
  let server: TestHttpsServer;
  let configFile: string;
  // What the webhook says next; each test sets it.
  let answer: Answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: false }));
  const clients: WebhookClient[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'authz-webhook-'));
    const ca = await createCA('webhook-ca');
    server = await startHttpsServer(await issueServingCert(ca), (req: ReceivedRequest, res) => {
      if (req.url === '/hang') return; // never answers
      const body = JSON.parse(req.body) as { apiVersion: string; spec: Record<string, unknown> };
      answer(body.spec, body.apiVersion, res);
    });
    await writeFile(path.join(dir, 'ca.crt'), ca.certPem);
    configFile = path.join(dir, 'webhook.yaml');
    await writeFile(configFile, kubeconfig(`${server.url}/authorize`));
  });
  after(async () => {
    for (const c of clients) c.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  function kubeconfig(url: string): string {
    return YAML.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'authz', cluster: { server: url, 'certificate-authority': 'ca.crt' } }],
      users: [{ name: 'apiserver', user: { token: TOKEN } }],
      contexts: [{ name: 'webhook', context: { cluster: 'authz', user: 'apiserver' } }],
      'current-context': 'webhook',
    });
  }

  async function authorizer(version: SarVersion, opts: { authorizedTtlMs?: number; unauthorizedTtlMs?: number; timeoutMs?: number; file?: string } = {}) {
    let now = 1_000_000;
    const client = await loadWebhookClient(opts.file ?? configFile);
    clients.push(client);
    const a = createWebhookAuthorizer({
      client,
      version,
      authorizedTtlMs: opts.authorizedTtlMs ?? 300_000,
      unauthorizedTtlMs: opts.unauthorizedTtlMs ?? 30_000,
      log: silentLogger(),
      now: () => now,
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    });
    return { ask: (attrs: AuthzAttributes) => a.authorize(attrs) as Promise<AuthorizerDecision>, advance: (ms: number) => void (now += ms) };
  }
  const calls = () => server.received.length;

  test('webhook - v1beta1: the review names groups `group`; an allowing answer allows', async () => {
    answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: true, reason: 'team blue may' }));
    const { ask } = await authorizer('v1beta1');
    const before = calls();
    assert.deepEqual(await ask(jane), { decision: 'Allow', reason: 'team blue may' });
    const sent = server.received[before]!;
    assert.equal(sent.method, 'POST');
    assert.equal(sent.url, '/authorize');
    assert.equal(sent.headers.authorization, `Bearer ${TOKEN}`);
    assert.deepEqual(JSON.parse(sent.body), {
      apiVersion: 'authorization.platform.io/v1beta1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'jane',
        uid: 'u-1',
        group: ['dev', 'system:authenticated'],
        extra: { 'acme.io/team': ['blue'], scopes: ['a', 'b'] },
        resourceAttributes: { namespace: 'shop', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' },
      },
    });
  });

  test('webhook - v1: the review names groups `groups`; non-resource requests send path and verb', async () => {
    answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: true }));
    const { ask } = await authorizer('v1');
    const before = calls();
    assert.deepEqual(await ask(healthz), { decision: 'Allow' });
    assert.deepEqual(JSON.parse(server.received[before]!.body), {
      apiVersion: 'authorization.platform.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'system:anonymous', groups: ['system:unauthenticated'], nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    });
    await ask(jane);
    const spec = JSON.parse(server.received[before + 1]!.body).spec as Record<string, unknown>;
    assert.deepEqual(spec.groups, ['dev', 'system:authenticated']);
    assert.equal(spec.group, undefined);
  });

  test('webhook - denied denies, neither allowed nor denied is no opinion, both is a deny', async () => {
    const { ask } = await authorizer('v1');
    answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: false, denied: true, reason: 'frozen namespace' }));
    assert.deepEqual(await ask(jane), { decision: 'Deny', reason: 'frozen namespace' });
    answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: false, reason: 'not my business' }));
    assert.deepEqual(await ask({ ...jane, verb: 'list', name: undefined, subresource: undefined }), { decision: 'NoOpinion', reason: 'not my business' });
    answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: true, denied: true }));
    assert.equal((await ask({ ...jane, verb: 'watch' })).decision, 'Deny');
    // An evaluation error the webhook reports travels with its decision.
    answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: false, evaluationError: 'rule store unreachable' }));
    assert.deepEqual(await ask({ ...jane, verb: 'update' }), { decision: 'NoOpinion', error: 'webhook authorizer: rule store unreachable' });
  });

  test('webhook - a reply that is not a SubjectAccessReview of the version sent is no opinion, never cached', async () => {
    const { ask } = await authorizer('v1beta1');
    const bad: Array<[string, Answer, RegExp]> = [
      [
        'answers in v1 to a v1beta1 review',
        (_s, _v, res) => sendJson(res, 200, review('authorization.platform.io/v1', { allowed: true })),
        /expected a SubjectAccessReview of authorization\.platform\.io\/v1beta1/,
      ],
      ['answers with another group', (_s, _v, res) => sendJson(res, 200, review('authorization.k8s.io/v1beta1', { allowed: true })), /expected a SubjectAccessReview/],
      ['answers with another kind', (_s, v, res) => sendJson(res, 200, { apiVersion: v, kind: 'TokenReview', status: { allowed: true } }), /expected a SubjectAccessReview/],
      ['has no status', (_s, v, res) => sendJson(res, 200, { apiVersion: v, kind: 'SubjectAccessReview' }), /no status\.allowed/],
      ['says allowed as a string', (_s, v, res) => sendJson(res, 200, review(v, { allowed: 'true' })), /no status\.allowed/],
      ['fails with 500', (_s, v, res) => sendJson(res, 500, review(v, { allowed: true })), /HTTP 500/],
      ['answers 403', (_s, _v, res) => sendJson(res, 403, { kind: 'Status' }), /HTTP 403/],
      ['is not JSON', (_s, _v, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('allowed'), /.+/],
    ];
    for (const [name, a, err] of bad) {
      answer = a;
      const before = calls();
      const d = await ask(healthz);
      assert.equal(d.decision, 'NoOpinion', name);
      assert.match(d.error ?? '', err, name);
      assert.ok(!(d.error ?? '').includes(TOKEN), `${name}: no credential in the error`);
      await ask(healthz);
      assert.equal(calls(), before + 2, `${name}: a failure is not cached`);
    }
  });

  test('webhook - an allowing answer is cached for the authorized TTL, others for the unauthorized TTL', async () => {
    const { ask, advance } = await authorizer('v1', { authorizedTtlMs: 60_000, unauthorizedTtlMs: 5_000 });
    let allowed = true;
    answer = (_s, v, res) => sendJson(res, 200, review(v, allowed ? { allowed: true } : { allowed: false, denied: true }));
    const before = calls();
    assert.equal((await ask(jane)).decision, 'Allow');
    allowed = false; // the webhook changes its mind; the cache hides it until the entry expires
    advance(30_000);
    assert.equal((await ask(jane)).decision, 'Allow');
    assert.equal(calls(), before + 1, 'allow served from the cache');
    // A different attribute set (one more group) is a different question.
    const janeOps = { ...jane, user: { ...jane.user, groups: [...jane.user.groups, 'ops'] } };
    assert.equal((await ask(janeOps)).decision, 'Deny');
    assert.equal(calls(), before + 2);
    advance(4_000);
    assert.equal((await ask(janeOps)).decision, 'Deny');
    assert.equal(calls(), before + 2, 'deny served from the cache within the unauthorized TTL');
    allowed = true;
    advance(1_001);
    assert.equal((await ask(janeOps)).decision, 'Allow', 'deny expired after the unauthorized TTL');
    assert.equal(calls(), before + 3);
    allowed = false;
    advance(30_000);
    assert.equal((await ask(jane)).decision, 'Deny', 'allow expired after the authorized TTL');
    assert.equal(calls(), before + 4);

    // No opinion counts as unauthorized too.
    answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: false }));
    const other = { ...jane, name: 'api' };
    await ask(other);
    advance(4_999);
    await ask(other);
    assert.equal(calls(), before + 5);
    advance(2);
    await ask(other);
    assert.equal(calls(), before + 6);
  });

  test('webhook - identical questions asked at once share one call', async () => {
    const { ask } = await authorizer('v1');
    answer = (_s, v, res) => void setTimeout(() => sendJson(res, 200, review(v, { allowed: true })), 50);
    const before = calls();
    const other = { ...jane, verb: 'patch' };
    const ds = await Promise.all([ask(other), ask(other), ask(other)]);
    assert.deepEqual(
      ds.map((d) => d.decision),
      ['Allow', 'Allow', 'Allow'],
    );
    assert.equal(calls(), before + 1);
  });

  test('webhook - a webhook that does not answer in time is no opinion', async () => {
    const hangFile = path.join(dir, 'hang.yaml');
    await writeFile(hangFile, kubeconfig(`${server.url}/hang`));
    const { ask } = await authorizer('v1', { timeoutMs: 200, file: hangFile });
    const start = Date.now();
    const d = await ask(jane);
    assert.equal(d.decision, 'NoOpinion');
    assert.ok(d.error?.startsWith('webhook authorizer: '), d.error);
    assert.ok(Date.now() - start < 2_000, 'gave up at the deadline');
  });

  test('webhook - the mode reads --authorization-webhook-config-file and a bad file fails start-up', async () => {
    answer = (_s, v, res) => sendJson(res, 200, review(v, { allowed: true }));
    const ctx = (configFile: string) =>
      ({ config: { modes: ['Webhook'], webhook: { configFile, version: 'v1', authorizedTtlMs: 1000, unauthorizedTtlMs: 1000 } }, log: silentLogger() }) as unknown as ModeContext;
    const mode = await webhookMode(ctx(configFile));
    try {
      assert.deepEqual(await mode.authorize(healthz), { decision: 'Allow' });
      assert.equal(mode.rulesFor, undefined, 'a webhook cannot list rules');
    } finally {
      await mode.stop?.();
    }
    await assert.rejects(
      Promise.resolve(webhookMode(ctx(path.join(dir, 'missing.yaml')))),
      (e: unknown) => e instanceof OptionsError && /--authorization-webhook-config-file: .*missing\.yaml/.test(e.message),
    );
    const plain = path.join(dir, 'plain-http.yaml');
    await writeFile(plain, kubeconfig('http://127.0.0.1:1/authorize'));
    await assert.rejects(Promise.resolve(webhookMode(ctx(plain))), /must be an https URL/);
  });
});
