// CustomResourceDefinitions converted by a webhook, end to end: a real HTTPS conversion webhook
// with its own CA, a definition whose v1 (storage) keeps `spec.hostPort: "host:port"` and whose
// v2 splits it into `spec.host` and `spec.port`. What is asserted is what a user sees: objects
// written in v2 stored in v1's shape, every read and watch of v2 converted by the webhook with the
// reviews it was sent, patches made in v2, a 500 naming the webhook when it cannot be reached, and
// a definition without a webhook (strategy None) only changing apiVersion.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { crdOf } from '../../shared/registry/test/crd-fixtures.js';
import { createCA, issueServingCert, type CertificateAuthority } from '../../shared/local/pki.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from '../../shared/webhook/test/https-server.js';
import { servedIn, startCrdControllers, type CrdControllers } from '../support/crd-controllers.js';
import { assertOk, assertStatus, createNamespace, eventually, hostAddress, openWatch } from './helpers.js';

const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const GROUP = 'conversion.example.com';
const NONE_GROUP = 'plain.example.com';
const ns = 'crd-conversion';
const v1 = `/apis/${GROUP}/v1/namespaces/${ns}/backends`;
const v2 = `/apis/${GROUP}/v2/namespaces/${ns}/backends`;
const merge = { 'content-type': 'application/merge-patch+json' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

const spec = (properties: Record<string, unknown>) => ({
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } },
});

function definition(group: string, conversion: Record<string, unknown>) {
  return crdOf(
    group,
    'Backend',
    group === GROUP
      ? [
          { name: 'v1', served: true, storage: true, schema: spec({ hostPort: { type: 'string' } }) },
          { name: 'v2', served: true, storage: false, schema: spec({ host: { type: 'string' }, port: { type: 'integer' } }) },
        ]
      : [
          { name: 'v1', served: true, storage: true, schema: spec({ hostPort: { type: 'string' } }) },
          { name: 'v2', served: true, storage: false, schema: spec({ hostPort: { type: 'string' } }) },
        ],
    { spec: { conversion } },
  );
}

/** The webhook's conversion: v1 `hostPort` ↔ v2 `host` + `port`; only the fields an object has (field management sends parts of objects). */
function convert(o: any, desired: string): any {
  const { hostPort, host, port, ...rest } = o.spec ?? {};
  const spec: Record<string, unknown> = { ...rest };
  if (desired.endsWith('/v2') && hostPort !== undefined) {
    const [h, p] = String(hostPort).split(':');
    Object.assign(spec, { host: h, port: Number(p) });
  }
  if (desired.endsWith('/v1') && (host !== undefined || port !== undefined)) spec.hostPort = `${host ?? ''}:${port ?? ''}`;
  return { ...o, apiVersion: desired, spec };
}

function answer(req: ReceivedRequest, res: ServerResponse): void {
  const review = JSON.parse(req.body);
  const r = review.request;
  sendJson(res, 200, {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: { uid: r.uid, result: { status: 'Success' }, convertedObjects: r.objects.map((o: any) => convert(o, r.desiredAPIVersion)) },
  });
}

describe('custom resource definitions, converted by a webhook', { timeout: 180_000 }, () => {
  let c: TestCluster;
  let ca: CertificateAuthority;
  let hooks: TestHttpsServer;
  let svcHooks: TestHttpsServer;
  let controllers: CrdControllers;
  let webhookConversion: Record<string, unknown>;

  /** The reviews the webhook was sent since `from`. */
  const reviews = (from = 0) => hooks.received.slice(from).map((r) => JSON.parse(r.body));

  async function established(group: string): Promise<void> {
    await servedIn(c, `${group} in v1 and v2`, [`/apis/${group}/v1/namespaces/${ns}/backends`, `/apis/${group}/v2/namespaces/${ns}/backends`]);
  }

  before(async () => {
    ca = await createCA('conversion-webhook-ca');
    const [serving, svcServing] = await Promise.all([
      issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
      issueServingCert(ca, { dnsNames: ['convert.hooks.svc'], ipAddresses: [] }),
    ]);
    // The service's webhook is reached through its Endpoints, which may not hold a loopback address.
    [hooks, svcHooks] = await Promise.all([startHttpsServer(serving, answer), startHttpsServer(svcServing, answer, { host: '0.0.0.0' })]);
    webhookConversion = { strategy: 'Webhook', webhook: { clientConfig: { url: `${hooks.url}/convert`, caBundle: b64(ca.certPem) }, conversionReviewVersions: ['v1'] } };

    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    controllers = await startCrdControllers(c, 'platform-crd-conversion-');
    await createNamespace(c, ns);
    assertOk(await c.request('POST', CRDS, { body: definition(GROUP, webhookConversion) }), 201);
    assertOk(await c.request('POST', CRDS, { body: definition(NONE_GROUP, { strategy: 'None' }) }), 201);
    await Promise.all([established(GROUP), established(NONE_GROUP)]);
  });
  after(async () => {
    await controllers?.stop();
    await c?.stop();
    await Promise.all([hooks?.close(), svcHooks?.close()]);
  });

  it('conversion webhook - an object created in v2 is stored in v1 form and answered in v2; the webhook saw both reviews', async () => {
    const from = hooks.received.length;
    const created = assertOk(
      await c.request('POST', v2, { body: { apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'db', labels: { tier: 'data' } }, spec: { host: 'db.local', port: 5432 } } }),
      201,
    );
    assert.equal(created.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(created.spec, { host: 'db.local', port: 5432 });
    assert.deepEqual(created.metadata.labels, { tier: 'data' });
    assert.ok(created.metadata.uid && created.metadata.resourceVersion, 'the server-set metadata survives the round trip');
    const stored = assertOk(await c.request('GET', `${v1}/db`));
    assert.equal(stored.apiVersion, `${GROUP}/v1`);
    assert.deepEqual(stored.spec, { hostPort: 'db.local:5432' });
    assert.equal(stored.metadata.resourceVersion, created.metadata.resourceVersion);
    const sent = reviews(from);
    assert.deepEqual(
      sent.map((r) => [r.apiVersion, r.kind, r.request.desiredAPIVersion, r.request.objects.map((o: any) => o.apiVersion)]),
      [
        ['apiextensions.platform.io/v1', 'ConversionReview', `${GROUP}/v1`, [`${GROUP}/v2`]],
        ['apiextensions.platform.io/v1', 'ConversionReview', `${GROUP}/v2`, [`${GROUP}/v1`]],
      ],
    );
    // Reading the storage version needs no webhook.
    assert.equal(hooks.received.length, from + 2);
  });

  it('conversion webhook - get, list (one review for the page) and watch in v2 show converted objects', async () => {
    for (const [name, hostPort] of [
      ['cache', 'redis:6379'],
      ['queue', 'nats:4222'],
    ]) {
      assertOk(await c.request('POST', v1, { body: { apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name }, spec: { hostPort } } }), 201);
    }
    assert.deepEqual(assertOk(await c.request('GET', `${v2}/cache`)).spec, { host: 'redis', port: 6379 });
    const from = hooks.received.length;
    const list = assertOk(await c.request('GET', v2));
    assert.equal(list.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(
      list.items.map((o: any) => [o.metadata.name, o.apiVersion, o.spec.host, o.spec.port]),
      [
        ['cache', `${GROUP}/v2`, 'redis', 6379],
        ['db', `${GROUP}/v2`, 'db.local', 5432],
        ['queue', `${GROUP}/v2`, 'nats', 4222],
      ],
    );
    assert.deepEqual(
      reviews(from).map((r) => [r.request.desiredAPIVersion, r.request.objects.length]),
      [[`${GROUP}/v2`, 3]],
    );

    const w = await openWatch(c, `${v2}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      assert.equal(w.status, 200);
      assertOk(await c.request('PATCH', `${v1}/queue`, { body: { spec: { hostPort: 'nats:4223' } }, headers: merge }));
      assertOk(await c.request('POST', v1, { body: { apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name: 'search' }, spec: { hostPort: 'es:9200' } } }), 201);
      const events = await w.waitForCount(2);
      assert.deepEqual(
        events.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion, e.object.spec.host, e.object.spec.port]),
        [
          ['MODIFIED', 'queue', `${GROUP}/v2`, 'nats', 4223],
          ['ADDED', 'search', `${GROUP}/v2`, 'es', 9200],
        ],
      );
    } finally {
      w.close();
    }
  });

  it('conversion webhook - patches and updates are made in v2; a delete answers in v2', async () => {
    const patched = assertOk(await c.request('PATCH', `${v2}/db`, { body: { spec: { port: 6543 } }, headers: merge }));
    assert.deepEqual(patched.spec, { host: 'db.local', port: 6543 });
    assert.deepEqual(assertOk(await c.request('GET', `${v1}/db`)).spec, { hostPort: 'db.local:6543' });
    const jsonPatched = assertOk(
      await c.request('PATCH', `${v2}/db`, { body: [{ op: 'replace', path: '/spec/host', value: 'db2.local' }], headers: { 'content-type': 'application/json-patch+json' } }),
    );
    assert.deepEqual(jsonPatched.spec, { host: 'db2.local', port: 6543 });
    // Server-side apply in v2, creating an object and then changing it.
    const apply = (port: number) =>
      c.request('PATCH', `${v2}/applied?fieldManager=e2e`, {
        body: { apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'applied' }, spec: { host: 'app', port } },
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    assert.deepEqual(assertOk(await apply(1), 201).spec, { host: 'app', port: 1 });
    const reapplied = assertOk(await apply(2));
    assert.deepEqual([reapplied.spec, reapplied.metadata.managedFields.map((f: any) => [f.manager, f.operation, f.apiVersion])], [{ host: 'app', port: 2 }, [['e2e', 'Apply', `${GROUP}/v2`]]]);
    assert.deepEqual(assertOk(await c.request('GET', `${v1}/applied`)).spec, { hostPort: 'app:2' });
    const put = assertOk(
      await c.request('PUT', `${v2}/db`, { body: { ...jsonPatched, metadata: { ...jsonPatched.metadata, finalizers: ['example.com/hold'] }, spec: { host: 'db3.local', port: 1 } } }),
    );
    assert.deepEqual(put.spec, { host: 'db3.local', port: 1 });
    assert.deepEqual(assertOk(await c.request('GET', `${v1}/db`)).spec, { hostPort: 'db3.local:1' });
    // Held by a finalizer, the deleted object comes back as it now stands, in v2.
    const deleting = assertOk(await c.request('DELETE', `${v2}/db`));
    assert.equal(deleting.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(deleting.spec, { host: 'db3.local', port: 1 });
    assert.ok(deleting.metadata.deletionTimestamp);
    assertOk(await c.request('PATCH', `${v2}/db`, { body: { metadata: { finalizers: null } }, headers: merge }));
    await eventually('gone', async () => assert.equal((await c.request('GET', `${v2}/db`)).status, 404), { timeoutMs: 5_000, intervalMs: 50 });
  });

  it('conversion webhook - a webhook that cannot be reached is a 500 naming it; reads of the storage version still work', async () => {
    const crd = `${CRDS}/backends.${GROUP}`;
    const dead = { webhook: { clientConfig: { url: 'https://127.0.0.1:1/convert', caBundle: b64(ca.certPem) } } };
    assertOk(await c.request('PATCH', crd, { body: { spec: { conversion: dead } }, headers: merge }));
    const status = await eventually('the dead webhook in effect', async () => assertStatus(await c.request('GET', `${v2}/cache`), 500, 'InternalError'), { timeoutMs: 10_000, intervalMs: 100 });
    assert.match(status.message, /^Internal error occurred: conversion webhook for conversion\.example\.com\/v1, Kind=Backend failed: https:\/\/127\.0\.0\.1:1\/convert: connect ECONNREFUSED/);
    assertStatus(await c.request('GET', v2), 500, 'InternalError');
    const create = assertStatus(await c.request('POST', v2, { body: { apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'lost' }, spec: { host: 'h', port: 1 } } }), 500, 'InternalError');
    assert.match(create.message, /conversion webhook for conversion\.example\.com\/v2, Kind=Backend failed/);
    assert.equal((await c.request('GET', `${v1}/lost`)).status, 404, 'nothing was stored');
    assert.deepEqual(assertOk(await c.request('GET', `${v1}/cache`)).spec, { hostPort: 'redis:6379' });
    // A watch of v2 ends with an ERROR event carrying the same Status.
    const w = await openWatch(c, `${v2}?watch=1`);
    const failed = await w.waitFor((e) => e.type === 'ERROR', 5_000, 'an ERROR event');
    assert.equal(failed.object.code, 500);
    await w.ended;
    assertOk(await c.request('PATCH', crd, { body: { spec: { conversion: webhookConversion } }, headers: merge }));
    await eventually('the webhook back', async () => assertOk(await c.request('GET', `${v2}/cache`)), { timeoutMs: 10_000, intervalMs: 100 });
  });

  it(
    'conversion webhook - a webhook named by a Service is reached through its Endpoints, its certificate checked for <svc>.<ns>.svc',
    { skip: hostAddress() ? false : 'no non-loopback address' },
    async () => {
      await createNamespace(c, 'hooks');
      assertOk(
        await c.request('POST', '/api/v1/namespaces/hooks/services', { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'convert' }, spec: { ports: [{ name: 'https', port: 443 }] } } }),
        201,
      );
      assertOk(
        await c.request('POST', '/api/v1/namespaces/hooks/endpoints', {
          body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'convert' }, subsets: [{ addresses: [{ ip: hostAddress() }], ports: [{ name: 'https', port: svcHooks.port }] }] },
        }),
        201,
      );
      const viaService = { webhook: { clientConfig: { url: null, service: { namespace: 'hooks', name: 'convert', path: '/convert' }, caBundle: b64(ca.certPem) } } };
      const crd = `${CRDS}/backends.${GROUP}`;
      assertOk(await c.request('PATCH', crd, { body: { spec: { conversion: viaService } }, headers: merge }));
      const from = svcHooks.received.length;
      await eventually('converted by the service', async () => {
        assert.deepEqual(assertOk(await c.request('GET', `${v2}/cache`)).spec, { host: 'redis', port: 6379 });
        assert.ok(svcHooks.received.length > from);
      });
      assertOk(await c.request('PATCH', crd, { body: { spec: { conversion: { webhook: { clientConfig: { service: null, url: `${hooks.url}/convert` } } } } }, headers: merge }));
    },
  );

  it('server-side apply across versions - a field applied through v1 conflicts with an apply through v2 and is removed when its manager drops it there (None and Webhook)', async () => {
    const applyAs = (group: string, version: string, manager: string, spec: Record<string, unknown>, labels?: Record<string, string>) =>
      c.request('PATCH', `/apis/${group}/${version}/namespaces/${ns}/backends/across?fieldManager=${manager}`, {
        body: { apiVersion: `${group}/${version}`, kind: 'Backend', metadata: { name: 'across', ...(labels ? { labels } : {}) }, spec },
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    for (const [group, inV2] of [
      [NONE_GROUP, { hostPort: 'b:2' }],
      [GROUP, { host: 'b', port: 1 }],
    ] as const) {
      assertOk(await applyAs(group, 'v1', 'team-a', { hostPort: 'a:1' }), 201);
      const clash = assertStatus(await applyAs(group, 'v2', 'team-b', inV2), 409, 'Conflict');
      // The field is named in the request's version (`.spec.host` through the webhook; upstream names the owner's `.spec.hostPort`).
      assert.match(clash.message, /^Apply failed with 1 conflict: conflict with "team-a": \.spec\.host/, group);
      // team-a applies through v2 without the field it applied through v1: it goes.
      const dropped = assertOk(await applyAs(group, 'v2', 'team-a', {}, { tier: 'web' }));
      assert.deepEqual(dropped.spec, {}, group);
      assert.deepEqual(
        dropped.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion]),
        [['team-a', 'Apply', `${group}/v2`]],
      );
      assert.deepEqual(assertOk(await c.request('GET', `/apis/${group}/v1/namespaces/${ns}/backends/across`)).spec, {});
    }
  });

  it('conversion webhook - a definition with strategy None only rewrites apiVersion, and calls no webhook', async () => {
    const from = hooks.received.length;
    const base = `/apis/${NONE_GROUP}/v2/namespaces/${ns}/backends`;
    const created = assertOk(await c.request('POST', base, { body: { apiVersion: `${NONE_GROUP}/v2`, kind: 'Backend', metadata: { name: 'plain' }, spec: { hostPort: 'a:1' } } }), 201);
    assert.equal(created.apiVersion, `${NONE_GROUP}/v2`);
    const inV1 = assertOk(await c.request('GET', `/apis/${NONE_GROUP}/v1/namespaces/${ns}/backends/plain`));
    assert.equal(inV1.apiVersion, `${NONE_GROUP}/v1`);
    assert.deepEqual(inV1.spec, { hostPort: 'a:1' });
    assert.equal(hooks.received.length, from);
  });
});
