// OpenAPI under attack, end to end. A hostile aggregated backend — one whose APIService is
// Available, as any tenant's extension server can be — answers /openapi/v2 with 400 KB of valid
// but deeply nested JSON: the gateway used to overflow its stack comparing it, outside any
// request, and die at every start (a crash loop of every gateway). And any authenticated user,
// with no rights at all, asked for /openapi/v2 as YAML: 3 s of the gateway's event loop per
// request, 17 s for four at once (and JSON with `?pretty`, or with YAML preferred in Accept, was
// re-encoded per request too); upstream offers JSON and protobuf only (406 otherwise).

import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { createCA, issueServingCert } from '../../shared/local/pki.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { silentLogger } from '../../shared/log.js';
import { createControllersService, type ControllersService } from '../../services/controllers/service.js';
import { assertOk, createNamespace, eventually, hostAddress } from './helpers.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const GROUP = 'hostile.example.com';
const NAME = `v1.${GROUP}`;
const NS = 'hostile-backend';
const SVC = 'backend';
const address = hostAddress();
const DEPTH = 100_000;

/** A backend serving its discovery, and OpenAPI v2 nested DEPTH levels deep; counts the OpenAPI reads. */
async function startHostileBackend(serving: { certPem: string; keyPem: string }) {
  let openApiReads = 0;
  const deep = `{"swagger":"2.0","info":{"title":"x","version":"1"},"paths":{},"definitions":{"a":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}}`;
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/openapi/v2')) {
      openApiReads++;
      res.end(deep);
    } else if (req.url === `/apis/${GROUP}/v1`) {
      res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${GROUP}/v1`, resources: [{ name: 'things', namespaced: true, kind: 'Thing', verbs: ['get'] }] }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  return { port: (server.address() as AddressInfo).port, openApiReads: () => openApiReads, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('openapi - hostile backends and hostile readers', { timeout: 120_000, skip: address ? false : 'no non-loopback address on this machine' }, () => {
  let c: TestCluster;
  let backend: Awaited<ReturnType<typeof startHostileBackend>>;
  let controllers: ControllersService;
  const escaped: unknown[] = [];
  const record = (err: unknown) => escaped.push(err);

  before(async () => {
    // The gateway runs in this process: what escapes it is an unhandled rejection here.
    process.on('unhandledRejection', record);
    process.on('uncaughtException', record);
    c = await startTestCluster();
    const ca = await createCA('hostile-backend-ca');
    backend = await startHostileBackend(await issueServingCert(ca, { dnsNames: [`${SVC}.${NS}.svc`] }));
    const client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: c.kubeconfigPath } }));
    controllers = createControllersService({ client, log: silentLogger(), config: { controllers: ['apiservice-availability'], apiServiceResyncMs: 1_000 } });
    await controllers.leading;
    await createNamespace(c, NS);
    assertOk(
      await c.request('POST', `/api/v1/namespaces/${NS}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: SVC }, spec: { ports: [{ name: 'https', port: 443 }] } } }),
      201,
    );
    const endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: SVC }, subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port: backend.port }] }] };
    assertOk(await c.request('POST', `/api/v1/namespaces/${NS}/endpoints`, { body: endpoints }), 201);
    const spec = {
      group: GROUP,
      version: 'v1',
      groupPriorityMinimum: 100,
      versionPriority: 100,
      caBundle: Buffer.from(ca.certPem).toString('base64'),
      service: { namespace: NS, name: SVC, port: 443 },
    };
    assertOk(await c.request('POST', APISERVICES, { body: { apiVersion: 'apiregistration.platform.io/v1', kind: 'APIService', metadata: { name: NAME }, spec } }), 201);
  });
  after(async () => {
    process.off('unhandledRejection', record);
    process.off('uncaughtException', record);
    await controllers?.stop();
    await backend?.close();
    await c?.stop();
  });

  it('openapi - a backend answering with deeply nested OpenAPI is left out of the document; the gateway keeps serving', async () => {
    await eventually(
      'the APIService is Available and its OpenAPI was read',
      async () => {
        const cond = (await c.request('GET', `${APISERVICES}/${NAME}`)).json?.status?.conditions?.find((x: { type: string }) => x.type === 'Available');
        assert.equal(cond?.status, 'True', JSON.stringify(cond));
        assert.ok(backend.openApiReads() > 0, 'the gateway asked the backend for its OpenAPI');
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    // Settled: the answer was read and compared (where the stack used to overflow).
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(escaped, [], 'nothing escaped the gateway');
    const doc = assertOk(await c.request('GET', '/openapi/v2'));
    assert.equal(doc.swagger, '2.0');
    assert.equal(doc.definitions.a, undefined, "the backend's nested definition is not merged");
    assertOk(await c.request('GET', `/apis/${GROUP}/v1`));
  });

  it('openapi - YAML and other encodings are not offered (406, as upstream), and asking for them does not hold the event loop', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const asked = await Promise.all(
      ['application/yaml', 'application/yaml', 'application/yaml', 'application/yaml'].map((accept) => c.request('GET', '/openapi/v2', { token: c.userToken, headers: { accept } })),
    );
    // JSON the client may read as YAML, or pretty: sent as prepared, never re-encoded per request.
    const reencoded = await Promise.all([
      c.request('GET', '/openapi/v2', { token: c.userToken, headers: { accept: 'application/yaml;q=0.9, application/json;q=0.5' } }),
      c.request('GET', '/openapi/v2?pretty=true', { token: c.userToken }),
      c.request('GET', '/openapi/v2?pretty=true', { token: c.userToken, headers: { accept: 'application/yaml, application/json;q=0.1' } }),
    ]);
    delay.disable();
    for (const r of reencoded) {
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(r.json.swagger, '2.0');
    }
    for (const r of asked) {
      assert.equal(r.status, 406, r.text.slice(0, 200));
      // The Status in the encoding the client reads.
      assert.match(r.text, /reason: NotAcceptable/);
    }
    assert.ok(delay.max / 1e6 < 1_000, `the event loop was held ${Math.round(delay.max / 1e6)} ms`);
    assert.equal((await c.request('GET', '/openapi/v3/api/v1', { token: c.userToken, headers: { accept: 'application/yaml' } })).status, 406);
    // What upstream offers still answers, to a user without any role.
    const pb = await c.request('GET', '/openapi/v2', { token: c.userToken, headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers.get('content-type'), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  });
});
