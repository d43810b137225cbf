// End to end: admission webhooks and custom resources under matchPolicy Equivalent. Two
// definitions serve v1 (storage) and v2: one converted by a real HTTPS conversion webhook (v1
// `spec.hostPort: "host:port"`, v2 `spec.host` + `spec.port`), one with strategy None (same shape,
// only apiVersion changes). Webhooks whose rules name v1 are called for requests through v2 and see
// the objects in v1, as upstream sends them; a mutating webhook's patch is made to the v1 form and
// comes back converted. What is asserted is what a user and a webhook author see.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { crdOf } from '../../shared/registry/test/crd-fixtures.js';
import { createCA, issueServingCert, type CertificateAuthority } from '../../shared/local/pki.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from '../../shared/webhook/test/https-server.js';
import { startCrdControllers, type CrdControllers } from '../support/crd-controllers.js';
import { assertOk, createNamespace, eventually, uniq } from './helpers.js';

const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const REG = 'admissionregistration.platform.io';
const CONVERTED = 'hooked.example.com';
const PLAIN = 'plainwidgets.example.com';
const merge = { 'content-type': 'application/merge-patch+json' };
const b64 = (s: string) => Buffer.from(s).toString('base64');
const jsonPatch = (ops: unknown[]) => ({ patchType: 'JSONPatch', patch: b64(JSON.stringify(ops)) });

const schema = (properties: Record<string, unknown>) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } });
const hostPort = schema({ hostPort: { type: 'string' } });

function definition(group: string, v2Schema: Record<string, unknown>, conversion: Record<string, unknown>) {
  return crdOf(
    group,
    'Widget',
    [
      { name: 'v1', served: true, storage: true, schema: hostPort },
      { name: 'v2', served: true, storage: false, schema: v2Schema },
    ],
    { spec: { conversion } },
  );
}

/** The conversion webhook's rule: v1 `hostPort` ↔ v2 `host` + `port`. */
function convert(o: any, desired: string): any {
  if (desired.endsWith('/v2')) {
    const [host, port] = String(o.spec?.hostPort ?? ':').split(':');
    return { ...o, apiVersion: desired, spec: { host, port: Number(port) } };
  }
  return { ...o, apiVersion: desired, spec: { hostPort: `${o.spec?.host}:${o.spec?.port}` } };
}

/** Admission answers by path; every review is kept in `hooks.received`. */
const admission: Record<string, (r: any) => Record<string, unknown>> = {
  '/allow': () => ({ allowed: true }),
  // Made to the v1 form: a webhook written for v1 knows only `hostPort`.
  '/mutate-v1': (r) => ({ allowed: true, ...jsonPatch([{ op: 'replace', path: '/spec/hostPort', value: `${String(r.object.spec.hostPort).split(':')[0]}:9999` }]) }),
  '/label': (r) => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { ...r.object.metadata.labels, seen: r.object.apiVersion.replace('/', '_') } }]) }),
};

function answer(req: ReceivedRequest, res: ServerResponse): void {
  const review = JSON.parse(req.body);
  if (req.url === '/convert') {
    const r = review.request;
    return sendJson(res, 200, {
      apiVersion: review.apiVersion,
      kind: 'ConversionReview',
      response: { uid: r.uid, result: { status: 'Success' }, convertedObjects: r.objects.map((o: any) => convert(o, r.desiredAPIVersion)) },
    });
  }
  const behave = admission[req.url];
  if (!behave) return sendJson(res, 404, { message: 'no such hook' });
  sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...behave(review.request) } });
}

describe('admission webhooks on custom resources (matchPolicy Equivalent)', { timeout: 180_000 }, () => {
  let c: TestCluster;
  let ca: CertificateAuthority;
  let hooks: TestHttpsServer;
  let controllers: CrdControllers;
  const ns = uniq('wh-crd');

  /** The admission reviews sent to `url` for the object named `name`. */
  const reviewsFor = (url: string, name: string) =>
    hooks.received
      .filter((r) => r.url === url)
      .map((r) => JSON.parse(r.body).request)
      .filter((r) => (r.object ?? r.oldObject)?.metadata?.name === name);
  const conversions = () => hooks.received.filter((r) => r.url === '/convert').length;

  function webhook(name: string, url: string, group: string, extra: Record<string, unknown> = {}) {
    return {
      name,
      clientConfig: { url: `${hooks.url}${url}`, caBundle: b64(ca.certPem) },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['widgets'] }],
      namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 5,
      ...extra,
    };
  }

  async function configure(kind: 'Mutating' | 'Validating', webhooks: unknown[]): Promise<void> {
    const plural = `${kind.toLowerCase()}webhookconfigurations`;
    assertOk(
      await c.request('POST', `/apis/${REG}/v1/${plural}`, { body: { apiVersion: `${REG}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name: uniq(kind.toLowerCase()) }, webhooks } }),
      201,
    );
  }

  const widgets = (group: string, version: string) => `/apis/${group}/${version}/namespaces/${ns}/widgets`;
  const widget = (group: string, version: string, name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) => ({
    apiVersion: `${group}/${version}`,
    kind: 'Widget',
    metadata: { name, labels },
    spec,
  });

  before(async () => {
    ca = await createCA('crd-admission-webhook-ca');
    hooks = await startHttpsServer(await issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }), answer);
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    controllers = await startCrdControllers(c, 'platform-crd-admission-');
    await createNamespace(c, ns);
    const byWebhook = { strategy: 'Webhook', webhook: { clientConfig: { url: `${hooks.url}/convert`, caBundle: b64(ca.certPem) }, conversionReviewVersions: ['v1'] } };
    assertOk(await c.request('POST', CRDS, { body: definition(CONVERTED, schema({ host: { type: 'string' }, port: { type: 'integer' } }), byWebhook) }), 201);
    assertOk(await c.request('POST', CRDS, { body: definition(PLAIN, hostPort, { strategy: 'None' }) }), 201);
    for (const group of [CONVERTED, PLAIN]) {
      await eventually(`${group} served`, async () => assertOk(await c.request('GET', widgets(group, 'v2'))), { timeoutMs: 15_000, intervalMs: 100 });
    }
    await configure('Validating', [
      webhook('equivalent.hooks.test', '/allow', CONVERTED),
      webhook('exact.hooks.test', '/allow', CONVERTED, { matchPolicy: 'Exact' }),
      webhook('plain.hooks.test', '/allow', PLAIN),
    ]);
    await configure('Mutating', [
      webhook('mutate-v1.hooks.test', '/mutate-v1', CONVERTED, { objectSelector: { matchLabels: { mutate: 'yes' } } }),
      webhook('label.hooks.test', '/label', PLAIN, { objectSelector: { matchLabels: { mutate: 'yes' } } }),
    ]);
  });

  after(async () => {
    await controllers?.stop();
    await c?.stop();
    await hooks?.close();
  });

  it('a validating webhook for v1 is called for a create and an update through v2 with the objects converted to v1 by the conversion webhook; one with matchPolicy Exact is not', async () => {
    // The webhooks are in effect once a create through v1 reaches them.
    await eventually(
      'the webhooks in effect',
      async () => {
        const name = uniq('probe');
        assertOk(await c.request('POST', widgets(CONVERTED, 'v1'), { body: widget(CONVERTED, 'v1', name, { hostPort: 'probe:1' }) }), 201);
        assert.equal(reviewsFor('/allow', name).length, 2, 'both webhooks called for v1');
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    const name = uniq('db');
    assertOk(await c.request('POST', widgets(CONVERTED, 'v2'), { body: widget(CONVERTED, 'v2', name, { host: 'db.local', port: 5432 }) }), 201);
    const [created, ...more] = reviewsFor('/allow', name);
    assert.equal(more.length, 0, 'only the Equivalent webhook is called for v2');
    assert.deepEqual(
      [created.kind, created.resource, created.requestKind, created.requestResource, created.operation],
      [
        { group: CONVERTED, version: 'v1', kind: 'Widget' },
        { group: CONVERTED, version: 'v1', resource: 'widgets' },
        { group: CONVERTED, version: 'v2', kind: 'Widget' },
        { group: CONVERTED, version: 'v2', resource: 'widgets' },
        'CREATE',
      ],
    );
    assert.deepEqual([created.object.apiVersion, created.object.kind, created.object.spec], [`${CONVERTED}/v1`, 'Widget', { hostPort: 'db.local:5432' }]);

    assertOk(await c.request('PATCH', `${widgets(CONVERTED, 'v2')}/${name}`, { body: { spec: { port: 6543 } }, headers: merge }));
    const updated = reviewsFor('/allow', name).at(-1);
    assert.equal(updated.operation, 'UPDATE');
    assert.deepEqual([updated.object.apiVersion, updated.object.spec], [`${CONVERTED}/v1`, { hostPort: 'db.local:6543' }]);
    assert.deepEqual([updated.oldObject.apiVersion, updated.oldObject.spec], [`${CONVERTED}/v1`, { hostPort: 'db.local:5432' }]);
  });

  it("a mutating webhook's patch is made to the v1 form and converted back: the client sees it in v2, storage in v1", async () => {
    const name = uniq('api');
    const before = conversions();
    const created = assertOk(await c.request('POST', widgets(CONVERTED, 'v2'), { body: widget(CONVERTED, 'v2', name, { host: 'api.local', port: 80 }, { mutate: 'yes' }) }), 201);
    assert.deepEqual([created.apiVersion, created.spec], [`${CONVERTED}/v2`, { host: 'api.local', port: 9999 }]);
    assert.deepEqual(assertOk(await c.request('GET', `${widgets(CONVERTED, 'v1')}/${name}`)).spec, { hostPort: 'api.local:9999' });
    const [seen] = reviewsFor('/mutate-v1', name);
    assert.deepEqual([seen.object.apiVersion, seen.object.spec, seen.requestKind.version], [`${CONVERTED}/v1`, { hostPort: 'api.local:80' }, 'v2']);
    assert.ok(conversions() > before, 'the conversion webhook converted for admission');
  });

  it('strategy None: the webhook for v1 sees the object with only its apiVersion rewritten, and its patch lands in the v2 object', async () => {
    const name = uniq('plain');
    const created = assertOk(await c.request('POST', widgets(PLAIN, 'v2'), { body: widget(PLAIN, 'v2', name, { hostPort: 'a:1' }, { mutate: 'yes' }) }), 201);
    assert.deepEqual([created.apiVersion, created.metadata.labels, created.spec], [`${PLAIN}/v2`, { mutate: 'yes', seen: `${PLAIN}_v1` }, { hostPort: 'a:1' }]);
    const [validated] = reviewsFor('/allow', name);
    assert.deepEqual(
      [validated.kind, validated.requestKind, validated.object.apiVersion, validated.object.metadata.labels.seen],
      [{ group: PLAIN, version: 'v1', kind: 'Widget' }, { group: PLAIN, version: 'v2', kind: 'Widget' }, `${PLAIN}/v1`, `${PLAIN}_v1`],
    );
  });
});
