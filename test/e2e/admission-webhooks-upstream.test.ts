// End to end: admission webhooks where this server once differed from kube-apiserver 1.24 (issue
// 33): how often a no-op write calls a webhook, whose credentials the server presents to a webhook
// its kubeConfigFile names no user for, and what a client gets for a refusal whose code is
// missing or outside 400–599. Real HTTPS webhooks on loopback, a real cluster; each test works in
// its own namespace, which its webhooks select by label.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { ServerResponse } from 'node:http';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { createCA, issueServingCert, type CertificateAuthority } from '../../shared/local/pki.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from '../../shared/webhook/test/https-server.js';
import { assertOk, assertStatus, configMap, eventually, uniq, writeAdmissionConfig } from './helpers.js';

const G = 'admissionregistration.platform.io';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** What each path answers: the review's request → the response's fields. */
const behaviours: Record<string, (req: any) => Record<string, unknown>> = {
  '/allow': () => ({ allowed: true }),
  '/code-700': () => ({ allowed: false, status: { code: 700, message: 'out of range' } }),
  '/no-code': () => ({ allowed: false, status: { message: 'no code given' } }),
  '/code-200': () => ({ allowed: false, status: { code: 200, message: 'a success code' } }),
};

function answer(req: ReceivedRequest, res: ServerResponse): void {
  const review = JSON.parse(req.body);
  const behave = behaviours[req.url];
  if (!behave) return sendJson(res, 404, { message: 'no such hook' });
  sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...behave(review.request) } });
}

describe('admission webhooks as upstream calls them', () => {
  let c: TestCluster;
  let dir: string;
  let ca: CertificateAuthority;
  let hooks: TestHttpsServer;

  const reviews = (url: string) => hooks.received.filter((r) => r.url === url).map((r) => ({ request: JSON.parse(r.body).request, authorization: r.headers.authorization }));

  async function namespace(prefix: string): Promise<string> {
    const name = uniq(prefix);
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'webhook-test': name } } } }), 201);
    return name;
  }

  function webhook(name: string, url: string, ns: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      name,
      clientConfig: { url, caBundle: b64(ca.certPem) },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'webhook-test': ns } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 5,
      ...extra,
    };
  }

  async function validating(webhooks: Array<Record<string, unknown>>): Promise<void> {
    const body = { apiVersion: `${G}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: uniq('validating') }, webhooks };
    assertOk(await c.request('POST', `/apis/${G}/v1/validatingwebhookconfigurations`, { body }), 201);
  }

  const createCm = (ns: string, name = uniq('cm')) => c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(name, { k: 'v' }) });
  const inEffect = <T>(what: string, probe: () => Promise<T>) => eventually(what, probe, { timeoutMs: 5_000, intervalMs: 50 });

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'admission-webhooks-upstream-'));
    ca = await createCA('webhook-upstream-ca');
    hooks = await startHttpsServer(await issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }), answer);
    // One user named by the webhook's host:port, and a current context whose user matches nothing.
    await writeFile(
      path.join(dir, 'webhook-kubeconfig.yaml'),
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        users: [
          { name: `127.0.0.1:${hooks.port}`, user: { token: 'host-token' } },
          { name: 'context-user', user: { token: 'context-token' } },
        ],
        contexts: [{ name: 'default', context: { user: 'context-user' } }],
        'current-context': 'default',
      }),
    );
    const configuration = { apiVersion: 'apiserver.config.platform.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'webhook-kubeconfig.yaml' };
    const configFile = await writeAdmissionConfig(dir, [
      { name: 'ValidatingAdmissionWebhook', configuration },
      { name: 'MutatingAdmissionWebhook', configuration },
    ]);
    c = await startTestCluster({ admission: { configFile } });
  });

  after(async () => {
    await c?.stop();
    await hooks?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("credentials: the kubeConfigFile user named by the webhook's host:port is presented; a webhook no user names gets none, not the current context's", async () => {
    const ns = await namespace('wh-creds');
    await validating([webhook('by-ip.hooks.test', `${hooks.url}/allow`, ns), webhook('by-name.hooks.test', `https://localhost:${hooks.port}/allow`, ns)]);
    // A fresh name each try: a try made while only one webhook was in effect has stored its object.
    let name = '';
    await inEffect('both webhooks called', async () => {
      name = uniq('cm');
      assertOk(await createCm(ns, name), 201);
      assert.equal(reviews('/allow').filter((r) => r.request.name === name).length, 2);
    });
    const byWebhook = new Map(hooks.received.filter((r) => r.url === '/allow' && JSON.parse(r.body).request.name === name).map((r) => [r.headers.host, r.headers.authorization]));
    assert.equal(byWebhook.get(`127.0.0.1:${hooks.port}`), 'Bearer host-token');
    assert.equal(byWebhook.get(`localhost:${hooks.port}`), undefined, 'no credentials for a host the kubeConfigFile names no user for');
  });

  it('a no-op PUT of /status calls a matching validating webhook once, as upstream', async () => {
    const ns = await namespace('wh-noop');
    await validating([
      {
        ...webhook('status.hooks.test', `${hooks.url}/allow`, ns),
        rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces/status', 'namespaces'] }],
      },
    ]);
    const calls = (sub: string) => reviews('/allow').filter((r) => r.request.name === ns && (r.request.subResource ?? '') === sub).length;
    // The webhook is in effect once a change through /status reaches it.
    await inEffect('the webhook called for a status change', async () => {
      const ns0 = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`));
      assertOk(await c.request('PUT', `/api/v1/namespaces/${ns}/status`, { body: { ...ns0, status: { ...ns0.status, conditions: [{ type: 'Probe', status: 'True' }] } } }));
      assert.ok(calls('status') > 0);
    });
    const now = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}`));
    const before = calls('status');
    const put = assertOk(await c.request('PUT', `/api/v1/namespaces/${ns}/status`, { body: now }));
    assert.equal(put.metadata.resourceVersion, now.metadata.resourceVersion, 'nothing was written');
    assert.equal(calls('status') - before, 1, 'called once for the no-op status PUT');
    const mainBefore = calls('');
    assertOk(await c.request('PUT', `/api/v1/namespaces/${ns}`, { body: now }));
    assert.equal(calls('') - mainBefore, 1, 'called once for the no-op PUT of the object');
  });

  it('a refusal with code 700 answers HTTP 700 with a Status of code 700; none or a code below 400 answers 400', async () => {
    const ns = await namespace('wh-codes');
    const selecting = (value: string) => ({ objectSelector: { matchLabels: { hook: value } } });
    await validating([
      webhook('code-700.hooks.test', `${hooks.url}/code-700`, ns, selecting('700')),
      webhook('no-code.hooks.test', `${hooks.url}/no-code`, ns, selecting('none')),
      webhook('code-200.hooks.test', `${hooks.url}/code-200`, ns, selecting('200')),
    ]);
    const createLabelled = (value: string) => c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(uniq('cm'), {}, { hook: value }) });
    const huge = await inEffect('the 700 webhook refuses', async () => assertStatus(await createLabelled('700'), 700));
    assert.deepEqual([huge.status, huge.message], ['Failure', 'admission webhook "code-700.hooks.test" denied the request: out of range']);
    const none = assertStatus(await createLabelled('none'), 400);
    assert.deepEqual([none.status, none.message], ['Failure', 'admission webhook "no-code.hooks.test" denied the request: no code given']);
    const low = assertStatus(await createLabelled('200'), 400);
    assert.equal(low.message, 'admission webhook "code-200.hooks.test" denied the request: a success code');
  });
});
