// End to end: admission webhooks' matchConditions, with a real HTTPS webhook server. A webhook is
// called only when every condition holds (CEL over object, oldObject and request); a condition that
// cannot be evaluated refuses the request with 403 under failurePolicy Fail and skips the webhook
// under Ignore; a configuration whose conditions do not compile, use `authorizer` or number more
// than 64 is refused with 422. Each test works in its own namespace, selected by its webhooks.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { createCA, issueServingCert, type CertificateAuthority } from '../../shared/local/pki.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from '../../shared/webhook/test/https-server.js';
import { assertOk, assertStatus, configMap, createNamespace, eventually, uniq } from './helpers.js';

const G = 'admissionregistration.platform.io';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const jsonPatch = (ops: unknown[]) => ({ patchType: 'JSONPatch', patch: b64(JSON.stringify(ops)) });

const behaviours: Record<string, (r: any) => Record<string, unknown>> = {
  '/deny': () => ({ allowed: false, status: { code: 418, message: 'checked and refused' } }),
  '/allow': () => ({ allowed: true }),
  '/label': (r) => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { ...r.object.metadata.labels, stamped: 'yes' } }]) }),
};

function answer(req: ReceivedRequest, res: ServerResponse): void {
  const review = JSON.parse(req.body);
  const behave = behaviours[req.url];
  if (!behave) return sendJson(res, 404, { message: 'no such hook' });
  sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...behave(review.request) } });
}

describe('admission webhooks, matchConditions', { timeout: 180_000 }, () => {
  let c: TestCluster;
  let ca: CertificateAuthority;
  let hooks: TestHttpsServer;

  /** Names of the config maps `url` was called for in `ns`. */
  const calledFor = (url: string, ns: string) =>
    hooks.received
      .filter((r) => r.url === url)
      .map((r) => JSON.parse(r.body).request)
      .filter((r) => r.namespace === ns)
      .map((r) => r.name);

  function webhook(name: string, url: string, ns: string, extra: Record<string, unknown> = {}) {
    return {
      name,
      clientConfig: { url: `${hooks.url}${url}`, caBundle: b64(ca.certPem) },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 5,
      ...extra,
    };
  }

  const configure = (kind: 'Mutating' | 'Validating', webhooks: unknown[], name = uniq(kind.toLowerCase())) =>
    c.request('POST', `/apis/${G}/v1/${kind.toLowerCase()}webhookconfigurations`, { body: { apiVersion: `${G}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks } });
  const createCm = (ns: string, name: string, labels?: Record<string, string>) => c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(name, { k: 'v' }, labels) });

  async function namespace(prefix: string): Promise<string> {
    const ns = uniq(prefix);
    await createNamespace(c, ns);
    return ns;
  }

  before(async () => {
    ca = await createCA('match-conditions-webhook-ca');
    hooks = await startHttpsServer(await issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }), answer);
    c = await startTestCluster({});
  });
  after(async () => {
    await c?.stop();
    await hooks?.close();
  });

  it('match conditions - the webhook is called only when every condition is true', async () => {
    const ns = await namespace('mc-call');
    const conditions = [
      { name: 'checked', expression: "has(object.metadata.labels) && object.metadata.labels['check'] == 'yes'" },
      { name: 'example.com/not-probes', expression: "!object.metadata.name.startsWith('probe-')" },
      { name: 'creates', expression: "request.operation == 'CREATE' && oldObject == null && request.resource.resource == 'configmaps'" },
    ];
    assertOk(await configure('Validating', [webhook('checked.hooks.test', '/deny', ns, { matchConditions: conditions })]), 201);
    const refused = await eventually('the webhook in effect', async () => assertStatus(await createCm(ns, uniq('checked'), { check: 'yes' }), 418), { timeoutMs: 10_000, intervalMs: 100 });
    assert.equal(refused.message, 'admission webhook "checked.hooks.test" denied the request: checked and refused');

    assertOk(await createCm(ns, 'unlabelled'), 201);
    assertOk(await createCm(ns, 'other-label', { check: 'no' }), 201);
    assertOk(await createCm(ns, 'probe-1', { check: 'yes' }), 201);
    assert.deepEqual(
      calledFor('/deny', ns).filter((n) => !n.startsWith('checked-')),
      [],
      'the webhook is never asked about objects a condition excludes',
    );
    // An update is excluded by `creates`, even with the label.
    assertOk(
      await c.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/unlabelled`, { body: { metadata: { labels: { check: 'yes' } } }, headers: { 'content-type': 'application/merge-patch+json' } }),
    );
    assert.deepEqual(
      calledFor('/deny', ns).filter((n) => !n.startsWith('checked-')),
      [],
    );
  });

  it('match conditions - a mutating webhook sees only the requests its conditions select', async () => {
    const ns = await namespace('mc-mutate');
    const conditions = [
      { name: 'admins', expression: "'system:masters' in request.userInfo.groups || request.userInfo.username == 'platform-admin'" },
      { name: 'stamp', expression: "object.data.k == 'stamp'" },
    ];
    assertOk(await configure('Mutating', [webhook('stamp.hooks.test', '/label', ns, { matchConditions: conditions })]), 201);
    const stamped = await eventually(
      'the webhook in effect',
      async () => {
        const r = assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(uniq('stamp'), { k: 'stamp' }) }), 201);
        assert.equal(r.metadata.labels?.stamped, 'yes');
        return r;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.equal(stamped.metadata.labels.stamped, 'yes');
    const plain = assertOk(await createCm(ns, 'plain'), 201);
    assert.equal(plain.metadata.labels, undefined);
  });

  it('match conditions - an evaluation error refuses with 403 under Fail and skips the webhook under Ignore', async () => {
    const ns = await namespace('mc-errors');
    const broken = [{ name: 'old-name', expression: "oldObject.metadata.name == 'x'" }];
    assertOk(await configure('Validating', [webhook('fail.hooks.test', '/allow', ns, { failurePolicy: 'Fail', matchConditions: broken })]), 201);
    const refused = await eventually('the webhook in effect', async () => assertStatus(await createCm(ns, 'refused'), 403, 'Forbidden'), { timeoutMs: 10_000, intervalMs: 100 });
    assert.equal(refused.message, `configmaps "refused" is forbidden: expression 'oldObject.metadata.name == 'x'' resulted in error: no such key: metadata`);
    assert.deepEqual(calledFor('/allow', ns), []);

    const ignoring = await namespace('mc-ignore');
    assertOk(await configure('Validating', [webhook('ignore.hooks.test', '/deny', ignoring, { failurePolicy: 'Ignore', matchConditions: broken })]), 201);
    // Give the configuration time to be in effect: a deny would show it.
    assertOk(await configure('Validating', [webhook('probe.hooks.test', '/deny', ignoring, { objectSelector: { matchLabels: { probe: 'yes' } } })]), 201);
    await eventually('the configurations in effect', async () => assertStatus(await createCm(ignoring, uniq('probe'), { probe: 'yes' }), 418), { timeoutMs: 10_000, intervalMs: 100 });
    assertOk(await createCm(ignoring, 'ignored'), 201);
    assert.ok(!calledFor('/deny', ignoring).includes('ignored'), 'the webhook whose condition failed under Ignore was not called');
  });

  it('match conditions - refused on write: a compile error, a non-bool, authorizer, a bad or duplicate name, more than 64', async () => {
    const ns = 'unused';
    const invalid = async (conditions: unknown[]) => {
      const name = uniq('refused');
      const st = assertStatus(await configure('Validating', [webhook('w.hooks.test', '/allow', ns, { matchConditions: conditions })], name), 422, 'Invalid');
      return { st, prefix: `ValidatingWebhookConfiguration "${name}" is invalid: ` };
    };
    const compile = await invalid([{ name: 'a', expression: 'object.metadata.name ==' }]);
    assert.equal(compile.st.details.causes[0].field, 'webhooks[0].matchConditions[0].expression');
    assert.match(compile.st.details.causes[0].message, /^Invalid value: "object\.metadata\.name ==": compilation failed: ERROR: <input>:1:\d+: /);

    const notBool = await invalid([{ name: 'a', expression: "object.metadata.name + '-x'" }]);
    assert.equal(notBool.st.message, `${notBool.prefix}webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name + '-x'": must evaluate to bool`);

    const authz = await invalid([{ name: 'a', expression: "authorizer.group('').resource('configmaps').check('get').allowed()" }]);
    assert.match(authz.st.message, /matchConditions\[0\]\.expression: Invalid value: .*compilation failed: the authorizer variable is not supported by this server/);

    const names = await invalid([
      { name: 'Bad Name', expression: 'true' },
      { name: 'dup', expression: 'true' },
      { name: 'dup', expression: 'true' },
    ]);
    assert.deepEqual(
      names.st.details.causes.map((x: any) => [x.field, x.reason]),
      [
        ['webhooks[0].matchConditions[0].name', 'FieldValueInvalid'],
        ['webhooks[0].matchConditions[2].name', 'FieldValueDuplicate'],
      ],
    );

    const many = await invalid(Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })));
    assert.equal(many.st.message, `${many.prefix}webhooks[0].matchConditions: Too many: must have at most 64 items`);
    assertOk(await configure('Validating', [webhook('w.hooks.test', '/allow', ns, { matchConditions: Array.from({ length: 64 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) })]), 201);
  });
});
