// End to end: admission webhooks. Real HTTPS webhook servers on loopback with their own CA; the
// cluster reads Mutating/ValidatingWebhookConfigurations as they are written and calls the
// webhooks, presenting the credentials its kubeConfigFile names. Each test works in its own
// namespace, which its webhooks select by label, so configurations left by one never reach
// another. What is asserted is what a user sees: status codes and messages, stored objects,
// Warning headers, the audit log, kubectl's output.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { ServerResponse } from 'node:http';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { createCA, issueServingCert, type CertificateAuthority } from '../../shared/local/pki.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from '../../shared/webhook/test/https-server.js';
import { parseOptions } from '../../shared/config/options.js';
import { silentLogger } from '../../shared/log.js';
import { gatewayOptionSpecs } from '../../services/gateway/options.js';
import { auditOptionsFrom, loadAudit } from '../../services/gateway/audit.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { assertOk, assertStatus, configMap, eventually, hostAddress, sleep, uniq, writeAdmissionConfig } from './helpers.js';

const G = 'admissionregistration.platform.io';
const AUDITED_AT_REQUEST = 'wh-audit-request';
const POLICY = `
apiVersion: audit.platform.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/metrics"]
  - level: Request
    namespaces: ["${AUDITED_AT_REQUEST}"]
    verbs: [create]
    resources: [{group: "", resources: [configmaps]}]
  - level: Metadata
    verbs: [create]
    resources: [{group: "", resources: [configmaps]}]
  - level: None
`;

const b64 = (s: string) => Buffer.from(s).toString('base64');
const jsonPatch = (ops: unknown[]) => ({ patchType: 'JSONPatch', patch: b64(JSON.stringify(ops)) });
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** What each path of the webhook server answers: the review's request → the response's fields. */
const behaviours: Record<string, (req: any) => Record<string, unknown> | Promise<Record<string, unknown>>> = {
  '/allow': () => ({ allowed: true }),
  '/deny': () => ({ allowed: false, status: { code: 418, message: 'this namespace only brews tea' } }),
  '/mutate': (r) => ({
    allowed: true,
    warnings: ['labelled by mutate.hooks.test'],
    auditAnnotations: { decision: 'labelled' },
    ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { ...r.object.metadata.labels, mutated: 'yes' } }]),
  }),
  // Idempotent, as mutating webhooks must be: each answers from what it is shown.
  '/first': (r) => {
    const labels = r.object.metadata.labels ?? {};
    const saw = labels.second ? 'second' : 'nothing';
    return labels['first-saw'] === saw ? { allowed: true } : { allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { ...labels, 'first-saw': saw } }]) };
  },
  '/second': (r) => (r.object.metadata.labels?.second ? { allowed: true } : { allowed: true, ...jsonPatch([{ op: 'add', path: `/metadata/labels/${escape('second')}`, value: 'yes' }]) }),
  '/slow': async () => {
    await sleep(1_500);
    return { allowed: true };
  },
};

function answer(req: ReceivedRequest, res: ServerResponse): void | Promise<void> {
  const review = JSON.parse(req.body);
  const behave = behaviours[req.url];
  if (!behave) return sendJson(res, 404, { message: 'no such hook' });
  return Promise.resolve(behave(review.request)).then((response) => {
    // A v1beta1 webhook may answer loosely: no uid, no apiVersion.
    if (review.apiVersion.endsWith('/v1beta1')) return sendJson(res, 200, { response });
    sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } });
  });
}

describe('admission webhooks', () => {
  let c: TestCluster;
  let dir: string;
  let ca: CertificateAuthority;
  let hooks: TestHttpsServer;
  let svcHooks: TestHttpsServer;
  let logFile: string;

  const received = (server: TestHttpsServer, url: string) => server.received.filter((r) => r.url === url);
  const reviewsAt = (url: string) => received(hooks, url).map((r) => JSON.parse(r.body));

  async function namespace(prefix: string, labels: Record<string, string> = {}, name = uniq(prefix)): Promise<string> {
    assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...labels, 'webhook-test': name } } } }), 201);
    return name;
  }

  /** A webhook of ours for the configmaps of one test's namespace. */
  function webhook(name: string, urlPath: string, ns: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      name,
      clientConfig: { url: `${hooks.url}${urlPath}`, caBundle: b64(ca.certPem) },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'webhook-test': ns } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 5,
      ...extra,
    };
  }

  async function configure(kind: 'Mutating' | 'Validating', webhooks: Array<Record<string, unknown>>, version = 'v1'): Promise<string> {
    const name = uniq(kind.toLowerCase());
    const plural = `${kind.toLowerCase()}webhookconfigurations`;
    assertOk(await c.request('POST', `/apis/${G}/${version}/${plural}`, { body: { apiVersion: `${G}/${version}`, kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks } }), 201);
    return name;
  }

  const createCm = (ns: string, name: string, labels?: Record<string, string>, query = '') =>
    c.request('POST', `/api/v1/namespaces/${ns}/configmaps${query}`, { body: configMap(name, { k: 'v' }, labels) });

  /** Waits until a configuration written a moment ago is in effect: `probe` stops failing. */
  const inEffect = <T>(what: string, probe: () => Promise<T>) => eventually(what, probe, { timeoutMs: 5_000, intervalMs: 50 });

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'admission-webhooks-'));
    ca = await createCA('webhook-test-ca');
    const [serving, svcServing] = await Promise.all([
      issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
      issueServingCert(ca, { dnsNames: ['guard.hooks.svc'], ipAddresses: [] }),
    ]);
    // The service's webhook is reached through its Endpoints, which may not hold a loopback address.
    [hooks, svcHooks] = await Promise.all([startHttpsServer(serving, answer), startHttpsServer(svcServing, answer, { host: '0.0.0.0' })]);
    // What the API server presents: a token to the service's host, another to everything else.
    await writeFile(
      path.join(dir, 'webhook-kubeconfig.yaml'),
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        users: [
          { name: '*.hooks.svc', user: { token: 'service-token' } },
          { name: '*', user: { token: 'default-token' } },
        ],
      }),
    );
    const webhookAdmission = { apiVersion: 'apiserver.config.platform.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'webhook-kubeconfig.yaml' };
    const configFile = await writeAdmissionConfig(dir, [
      { name: 'ValidatingAdmissionWebhook', configuration: webhookAdmission },
      { name: 'MutatingAdmissionWebhook', configuration: webhookAdmission },
    ]);
    const policyFile = path.join(dir, 'policy.yaml');
    logFile = path.join(dir, 'audit.log');
    await writeFile(policyFile, POLICY);
    const audit = await loadAudit(auditOptionsFrom(parseOptions(gatewayOptionSpecs, ['--audit-policy-file', policyFile, '--audit-log-path', logFile])), silentLogger());
    c = await startTestCluster({ admission: { configFile }, gateway: { audit } });
  });

  after(async () => {
    await c?.stop();
    await hooks?.close();
    await svcHooks?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a validating webhook denies with its own code and message; a configuration change takes effect within moments, both ways', async () => {
    const ns = await namespace('wh-deny');
    const t0 = Date.now();
    const config = await configure('Validating', [webhook('deny.hooks.test', '/deny', ns)]);
    const denied = await inEffect('the new webhook denies', async () => assertStatus(await createCm(ns, uniq('cm')), 418));
    const tookMs = Date.now() - t0;
    assert.equal(denied.message, 'admission webhook "deny.hooks.test" denied the request: this namespace only brews tea');
    assert.ok(tookMs < 4_000, `a new configuration took ${tookMs} ms to take effect`);
    const review = reviewsAt('/deny').at(-1);
    assert.equal(review.apiVersion, 'admission.platform.io/v1');
    assert.deepEqual(
      [review.request.operation, review.request.namespace, review.request.userInfo.username, review.request.options.kind, review.request.oldObject],
      ['CREATE', ns, 'platform-admin', 'CreateOptions', null],
    );
    assert.equal(received(hooks, '/deny').at(-1)!.headers.authorization, 'Bearer default-token', 'the kubeConfigFile user for any other host');

    const bin = findKubectl();
    if (bin) {
      const k = new Kubectl(bin, c.kubeconfigPath);
      try {
        const r = await k.run(['create', 'configmap', 'from-kubectl', '-n', ns, '--from-literal=a=b']);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /admission webhook "deny\.hooks\.test" denied the request: this namespace only brews tea/);
      } finally {
        await rm(k.cacheDir, { recursive: true, force: true });
      }
    }

    const t1 = Date.now();
    assertOk(await c.request('DELETE', `/apis/${G}/v1/validatingwebhookconfigurations/${config}`));
    await inEffect('the deleted webhook no longer denies', async () => assertOk(await createCm(ns, uniq('cm')), 201));
    assert.ok(Date.now() - t1 < 4_000, 'a deleted configuration stops in moments');
  });

  it("a mutating webhook's patch is stored; its warning reaches the client; the audit log records the mutation (the patch only at Request level)", async () => {
    const ns = await namespace('wh-mutate', {}, AUDITED_AT_REQUEST);
    const other = await namespace('wh-mutate-meta');
    const config = await configure('Mutating', [webhook('mutate.hooks.test', '/mutate', ns), webhook('mutate-meta.hooks.test', '/mutate', other)]);
    const created = await inEffect('the patch is applied', async () => {
      const r = await createCm(ns, uniq('cm'), { app: 'web' });
      const body = assertOk(r, 201);
      assert.equal(body.metadata.labels.mutated, 'yes');
      return r;
    });
    assert.equal(created.headers.get('warning'), '299 - "labelled by mutate.hooks.test"');
    const stored = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/${created.json.metadata.name}`));
    assert.deepEqual(stored.metadata.labels, { app: 'web', mutated: 'yes' });
    const meta = await inEffect("the other namespace's webhook applies too", async () => {
      const r = await createCm(other, uniq('cm'));
      assert.equal(assertOk(r, 201).metadata.labels.mutated, 'yes');
      return r;
    });
    const eventOf = (r: { headers: Headers }) =>
      eventually('the audit event', async () => {
        const events = (await readFile(logFile, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
        const done = events.find((e) => e.auditID === r.headers.get('audit-id') && e.stage === 'ResponseComplete');
        assert.ok(done);
        return done;
      });
    const atRequest = (await eventOf(created)).annotations;
    // Other tests' configurations sort before or after this one: find this webhook's index.
    const key = Object.keys(atRequest).find((k) => k.startsWith('mutation.webhook.admission.platform.io/round_0_index_'))!;
    assert.deepEqual(JSON.parse(atRequest[key]), { configuration: config, webhook: 'mutate.hooks.test', mutated: true });
    const patch = JSON.parse(atRequest[key.replace('mutation.', 'patch.')]);
    assert.deepEqual([patch.configuration, patch.webhook, patch.patchType, patch.patch[0].op, patch.patch[0].path], [config, 'mutate.hooks.test', 'JSONPatch', 'add', '/metadata/labels']);
    assert.equal(atRequest['mutate.hooks.test/decision'], 'labelled');
    const atMetadata = (await eventOf(meta)).annotations;
    const metaKey = Object.keys(atMetadata).find((k) => k.startsWith('mutation.webhook.admission.platform.io/round_0_index_'))!;
    assert.deepEqual(JSON.parse(atMetadata[metaKey]), { configuration: config, webhook: 'mutate-meta.hooks.test', mutated: true });
    assert.deepEqual(
      Object.keys(atMetadata).filter((k) => k.startsWith('patch.')),
      [],
      'no patch at Metadata level',
    );
  });

  it('reinvocation: a webhook with IfNeeded is called again after a later webhook changed the object', async () => {
    const ns = await namespace('wh-reinvoke');
    const config = `a-${uniq('reinvoke')}`;
    assertOk(
      await c.request('POST', `/apis/${G}/v1/mutatingwebhookconfigurations`, {
        body: {
          apiVersion: `${G}/v1`,
          kind: 'MutatingWebhookConfiguration',
          metadata: { name: config },
          webhooks: [webhook('first.hooks.test', '/first', ns, { reinvocationPolicy: 'IfNeeded' }), webhook('second.hooks.test', '/second', ns)],
        },
      }),
      201,
    );
    const before = received(hooks, '/first').length;
    const cm = await inEffect('both webhooks run', async () => {
      const body = assertOk(await createCm(ns, uniq('cm')), 201);
      assert.equal(body.metadata.labels.second, 'yes');
      return body;
    });
    assert.equal(cm.metadata.labels['first-saw'], 'second', "the first webhook saw the second's change when called again");
    const calls = reviewsAt('/first')
      .slice(before)
      .filter((r) => r.request.object.metadata.name === cm.metadata.name);
    assert.equal(calls.length, 2);
  });

  it('a webhook that times out: the request fails under failurePolicy Fail and goes through under Ignore', async () => {
    const ns = await namespace('wh-timeout');
    await configure('Validating', [
      webhook('slow-fail.hooks.test', '/slow', ns, { timeoutSeconds: 1, objectSelector: { matchLabels: { policy: 'fail' } } }),
      webhook('slow-ignore.hooks.test', '/slow', ns, { timeoutSeconds: 1, failurePolicy: 'Ignore', objectSelector: { matchLabels: { policy: 'ignore' } } }),
    ]);
    const failed = await inEffect('the slow webhook is called', async () => assertStatus(await createCm(ns, uniq('cm'), { policy: 'fail' }), 500, 'InternalError'));
    assert.match(failed.message, /^Internal error occurred: failed calling webhook "slow-fail\.hooks\.test": failed to call webhook: .*no response within 1000 ms/);
    const start = Date.now();
    assertOk(await createCm(ns, uniq('cm'), { policy: 'ignore' }), 201);
    const took = Date.now() - start;
    assert.ok(took >= 900 && took < 5_000, `waited ${took} ms for the ignored webhook`);
  });

  it('namespaceSelector and objectSelector pick the requests a webhook sees', async () => {
    const guarded = await namespace('wh-select', { guard: 'on' });
    const open = await namespace('wh-select-open', { guard: 'off' });
    await configure('Validating', [
      {
        ...webhook('select.hooks.test', '/deny', guarded),
        namespaceSelector: { matchExpressions: [{ key: 'guard', operator: 'In', values: ['on'] }] },
        objectSelector: { matchExpressions: [{ key: 'exempt', operator: 'DoesNotExist' }] },
      },
    ]);
    await inEffect('the guarded namespace refuses', async () => assertStatus(await createCm(guarded, uniq('cm')), 418));
    assertOk(await createCm(guarded, uniq('cm'), { exempt: 'yes' }), 201);
    assertOk(await createCm(open, uniq('cm')), 201);
    // Labelling the other namespace brings it under the webhook.
    assertOk(await c.request('PATCH', `/api/v1/namespaces/${open}`, { body: { metadata: { labels: { guard: 'on' } } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    await inEffect('the relabelled namespace refuses', async () => assertStatus(await createCm(open, uniq('cm')), 418));
  });

  it('a v1beta1 configuration: v1beta1 reviews, a loose answer accepted; sideEffects Unknown refuses a dry run without a call', async () => {
    const ns = await namespace('wh-beta');
    const hook = webhook('beta.hooks.test', '/allow', ns, { sideEffects: undefined, admissionReviewVersions: ['v1beta1'], timeoutSeconds: undefined });
    const created = await c.request('POST', `/apis/${G}/v1beta1/validatingwebhookconfigurations`, {
      body: { apiVersion: `${G}/v1beta1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: uniq('beta') }, webhooks: [JSON.parse(JSON.stringify(hook))] },
    });
    const cfg = assertOk(created, 201);
    assert.match(created.headers.get('warning') ?? '', /v1beta1 ValidatingWebhookConfiguration is deprecated/);
    assert.deepEqual([cfg.webhooks[0].sideEffects, cfg.webhooks[0].failurePolicy, cfg.webhooks[0].timeoutSeconds], ['Unknown', 'Ignore', 30]);
    await inEffect('the v1beta1 webhook is called', async () => {
      const before = received(hooks, '/allow').length;
      assertOk(await createCm(ns, uniq('cm')), 201);
      assert.equal(received(hooks, '/allow').length, before + 1);
    });
    assert.equal(reviewsAt('/allow').at(-1).apiVersion, 'admission.platform.io/v1beta1');
    const calls = received(hooks, '/allow').length;
    const dry = assertStatus(await createCm(ns, uniq('cm'), undefined, '?dryRun=All'), 400, 'BadRequest');
    assert.equal(dry.message, 'admission webhook "beta.hooks.test" does not support dry run');
    assert.equal(received(hooks, '/allow').length, calls, 'the webhook was not called');
  });

  it("a webhook named by a Service: reached through its Endpoints, its certificate checked for <svc>.<ns>.svc, the service's kubeConfigFile user presented", async (t) => {
    const ip = hostAddress();
    if (!ip) return t.skip('no non-loopback address on this machine');
    const ns = await namespace('wh-service');
    const svcNs = await namespace('hooks', {}, 'hooks');
    assertOk(
      await c.request('POST', `/api/v1/namespaces/${svcNs}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'guard' }, spec: { ports: [{ name: 'https', port: 443 }] } } }),
      201,
    );
    assertOk(
      await c.request('POST', `/api/v1/namespaces/${svcNs}/endpoints`, {
        body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'guard' }, subsets: [{ addresses: [{ ip }], ports: [{ name: 'https', port: svcHooks.port }] }] },
      }),
      201,
    );
    await configure('Validating', [{ ...webhook('service.hooks.test', '/deny', ns), clientConfig: { service: { namespace: svcNs, name: 'guard', path: '/deny' }, caBundle: b64(ca.certPem) } }]);
    const denied = await inEffect('the service webhook answers', async () => assertStatus(await createCm(ns, uniq('cm')), 418));
    assert.match(denied.message, /admission webhook "service\.hooks\.test" denied the request/);
    assert.equal(received(svcHooks, '/deny').at(-1)!.headers.authorization, 'Bearer service-token');
  });

  it('webhook configurations are never sent to webhooks: a webhook refusing everything can still be removed', async () => {
    const ns = await namespace('wh-all');
    const everything = { ...webhook('everything.hooks.test', '/deny', ns), rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }], namespaceSelector: {} };
    const config = await configure('Validating', [everything]);
    await inEffect('everything is refused', async () => assertStatus(await createCm(ns, uniq('cm')), 418));
    assertOk(await c.request('DELETE', `/apis/${G}/v1/validatingwebhookconfigurations/${config}`));
    await inEffect('writes work again', async () => assertOk(await createCm(ns, uniq('cm')), 201));
  });
});
