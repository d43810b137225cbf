// Aggregated APIs, upgrade requests end to end: `exec` and `attach` on an aggregated resource
// (`wardle.example.com/v1alpha1` flunders, served by test/support/upgrade-backend.ts over HTTPS,
// registered by an APIService with a caBundle) switch protocols through the gateway after its
// authentication and authorization, with the front-proxy certificate and identity headers a
// plain proxied request carries, and then echo bytes both ways; refusals come back as they were
// given; nothing reaches the backend for a caller the gateway refuses. Also: the bootstrap Role
// `extension-apiserver-authentication-reader`, which an aggregated server's service account is
// bound to so it can read the gateway's front-proxy settings.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { startUpgradeBackend, WARDLE_GROUP, WARDLE_VERSION, type TestUpgradeBackend } from '../support/upgrade-backend.js';
import { createCA, issueClientCert, issueServingCert } from '../../shared/local/pki.js';
import { parseOptions } from '../../shared/config/options.js';
import { silentLogger } from '../../shared/log.js';
import { gatewayOptionSpecs } from '../../services/gateway/options.js';
import { auditOptionsFrom, loadAudit } from '../../services/gateway/audit.js';
import { assertOk, assertStatus, createNamespace, eventually, hostAddress } from './helpers.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const NAME = `${WARDLE_VERSION}.${WARDLE_GROUP}`;
const BASE = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}`;
const NS = 'wardle';
const SVC = 'api';
const RBAC = 'rbac.authorization.platform.io';
const SYSTEM_NS = 'platform-system';
const AUTH_INFO = `/api/v1/namespaces/${SYSTEM_NS}/configmaps/extension-apiserver-authentication`;
const EXEC = `${BASE}/namespaces/${NS}/flunders/f1/exec?command=sh&stdin=true&stdout=true`;
const AUDIT_POLICY = `
apiVersion: audit.platform.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/metrics"]
  - level: Metadata
`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const address = hostAddress();

interface UpgradeAnswer {
  status: number;
  headers: Headers;
  /** The body of an answer that did not switch protocols. */
  text: string;
  json: any;
  /** The switched connection (101 only). */
  socket?: Duplex;
  head?: Buffer;
}

function headersOf(res: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const x of Array.isArray(v) ? v : [v]) h.append(k, x);
  return h;
}

/** Sends an upgrade request to the gateway as kubectl does (SPDY/3.1 by default) and returns its answer. */
function upgradeRequest(c: TestCluster, path: string, opts: { method?: string; token?: string | null; headers?: Record<string, string> } = {}): Promise<UpgradeAnswer> {
  const token = opts.token === undefined ? c.adminToken : opts.token;
  const headers: Record<string, string> = { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io, v3.channel.k8s.io', ...opts.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = https.request(c.url + path, { method: opts.method ?? 'POST', headers, ca: c.caPem, agent: false });
    req.on('error', reject);
    req.on('upgrade', (res, socket, head) => resolve({ status: res.statusCode ?? 0, headers: headersOf(res), text: '', json: undefined, socket, head }));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: headersOf(res), text, json });
      });
    });
    req.end();
  });
}

/** Writes `data` and waits for `want` to come back on the connection. */
function roundTrip(socket: Duplex, data: string, want = data): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const timer = setTimeout(() => reject(new Error(`no echo of ${JSON.stringify(data)} (got ${JSON.stringify(got)})`)), 5_000);
    const onData = (d: Buffer) => {
      got += d.toString();
      if (!got.includes(want)) return;
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(got);
    };
    socket.on('data', onData);
    socket.write(data);
  });
}

const closed = (socket: Duplex) => (socket.destroyed ? Promise.resolve() : new Promise<void>((r) => socket.once('close', () => r())));

describe('aggregated APIs: upgrade requests through the proxy', { timeout: 120_000, skip: address ? false : 'no non-loopback address on this machine' }, () => {
  let c: TestCluster;
  let backend: TestUpgradeBackend;
  let dir: string;
  const upgrades = () => backend.received.filter((r) => r.upgrade);
  /** The audit events of one request, once its last stage is logged. */
  const audited = (auditID: string) =>
    eventually(
      `audit events of ${auditID}`,
      async () => {
        const events = (await readFile(path.join(dir, 'audit.log'), 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .filter((e) => e.auditID === auditID);
        assert.ok(
          events.some((e) => e.stage === 'ResponseComplete'),
          JSON.stringify(events.map((e) => e.stage)),
        );
        return events;
      },
      { timeoutMs: 5_000, intervalMs: 100 },
    );

  before(async () => {
    const frontProxyCA = await createCA('aggregator-front-proxy-ca');
    const proxyClient = await issueClientCert(frontProxyCA, { commonName: 'front-proxy-client' });
    const backendCA = await createCA('wardle-serving-ca');
    const authenticationInfo = { requestHeaderCA: frontProxyCA.certPem, proxyClientCert: proxyClient.certPem };
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-upgrade-'));
    await writeFile(path.join(dir, 'policy.yaml'), AUDIT_POLICY);
    const flags = ['--audit-policy-file', path.join(dir, 'policy.yaml'), '--audit-log-path', path.join(dir, 'audit.log')];
    const audit = await loadAudit(auditOptionsFrom(parseOptions(gatewayOptionSpecs, flags)), silentLogger());
    const proxyClientCertificate = { cert: proxyClient.certPem, key: proxyClient.keyPem };
    c = await startTestCluster({ authorizationModes: ['RBAC'], fullAuthn: true, gateway: { proxyClientCertificate, authenticationInfo, audit } });
    backend = await startUpgradeBackend(await issueServingCert(backendCA, { dnsNames: [`${SVC}.${NS}.svc`] }), frontProxyCA.certPem, { allowedNames: ['front-proxy-client'] });
    await createNamespace(c, NS);
    assertOk(
      await c.request('POST', `/api/v1/namespaces/${NS}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: SVC }, spec: { ports: [{ name: 'https', port: 443 }] } } }),
      201,
    );
    const endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: SVC }, subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port: backend.port }] }] };
    assertOk(await c.request('POST', `/api/v1/namespaces/${NS}/endpoints`, { body: endpoints }), 201);
    const spec = { group: WARDLE_GROUP, version: WARDLE_VERSION, groupPriorityMinimum: 1000, versionPriority: 15, caBundle: b64(backendCA.certPem), service: { namespace: NS, name: SVC, port: 443 } };
    assertOk(await c.request('POST', APISERVICES, { body: { apiVersion: 'apiregistration.platform.io/v1', kind: 'APIService', metadata: { name: NAME }, spec } }), 201);
  });
  after(async () => {
    await backend?.close();
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('unavailable - an upgrade to an APIService not yet Available gets the same 503 Status as a plain request, and the backend is not asked', async () => {
    const plain = await eventually('the APIService is served as unavailable', async () => assertStatus(await c.request('GET', `${BASE}/namespaces/${NS}/flunders`), 503, 'ServiceUnavailable'), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    const up = await upgradeRequest(c, EXEC);
    assert.deepEqual(assertStatus(up, 503, 'ServiceUnavailable'), plain);
    assert.equal(plain.message, `service unavailable: APIService "${NAME}" is not available`);
    assert.equal(backend.received.length, 0);
    // Marked Available (as the availability controller would, were it running here).
    const current = assertOk(await c.request('GET', `${APISERVICES}/${NAME}`));
    current.status = { conditions: [{ type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
    assertOk(await c.request('PUT', `${APISERVICES}/${NAME}/status`, { body: current }));
    await eventually('proxied', async () => assert.equal(assertOk(await c.request('GET', BASE)).groupVersion, `${WARDLE_GROUP}/${WARDLE_VERSION}`), { timeoutMs: 10_000, intervalMs: 100 });
  });

  it('refused by the gateway - an unauthenticated upgrade is 401 and an unauthorized one 403, and neither reaches the backend', async () => {
    const before = backend.received.length;
    assertStatus(await upgradeRequest(c, EXEC, { token: 'not-a-token' }), 401, 'Unauthorized');
    const deniedAnswer = await upgradeRequest(c, EXEC, { token: c.userToken });
    const denied = assertStatus(deniedAnswer, 403, 'Forbidden');
    const deniedEvents = await audited(deniedAnswer.headers.get('audit-id')!);
    assert.deepEqual(
      deniedEvents.map((e) => [e.stage, e.user.username, e.responseStatus?.code]),
      [
        ['RequestReceived', 'jane', undefined],
        ['ResponseStarted', 'jane', 403],
        ['ResponseComplete', 'jane', 403],
      ],
    );
    assert.equal(denied.message, `flunders.${WARDLE_GROUP} "f1" is forbidden: User "jane" cannot create resource "flunders/exec" in API group "${WARDLE_GROUP}" in the namespace "${NS}"`);
    assert.equal(backend.received.length, before, 'the backend saw nothing');
  });

  it('switched - an authorized exec gets the backend 101, which saw the user and the front-proxy certificate; bytes echo until the client closes, which closes the backend connection', async () => {
    const role = {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: { name: 'flunder-exec' },
      rules: [{ apiGroups: [WARDLE_GROUP], resources: ['flunders/exec', 'flunders/attach'], verbs: ['create', 'get'] }],
    };
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/namespaces/${NS}/roles`, { body: role }), 201);
    const binding = {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'jane-exec' },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'flunder-exec' },
      subjects: [{ apiGroup: RBAC, kind: 'User', name: 'jane' }],
    };
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/namespaces/${NS}/rolebindings`, { body: binding }), 201);
    const forged = { 'x-remote-user': 'mallory', 'x-remote-group': 'system:masters', 'impersonate-group': 'nobody' };
    const up = await eventually(
      'granted',
      async () => {
        const r = await upgradeRequest(c, EXEC, { token: c.userToken, headers: { 'x-remote-user': forged['x-remote-user'], 'x-remote-group': forged['x-remote-group'] } });
        assert.equal(r.status, 101, r.text);
        return r;
      },
      { timeoutMs: 5_000, intervalMs: 100 },
    );
    const socket = up.socket!;
    try {
      assert.equal(up.headers.get('upgrade'), 'SPDY/3.1');
      assert.equal(up.headers.get('x-stream-protocol-version'), 'v4.channel.k8s.io', "the backend's choice of stream protocol");
      const seen = upgrades().at(-1)!;
      assert.equal(seen.url, EXEC);
      assert.equal(seen.method, 'POST');
      assert.equal(seen.proxyCN, 'front-proxy-client');
      assert.equal(seen.user, 'jane');
      assert.deepEqual(String(seen.headers['x-remote-group']).split(', ').sort(), ['developers', 'qa', 'system:authenticated']);
      assert.equal(seen.headers.authorization, undefined, 'the client credentials stop at the gateway');
      assert.equal(seen.headers.upgrade, 'SPDY/3.1');
      assert.match(String(seen.headers.connection), /upgrade/i);
      assert.equal(await roundTrip(socket, 'hello over the stream\n'), 'hello over the stream\n');
      assert.equal(await roundTrip(socket, 'x'.repeat(200_000)), 'x'.repeat(200_000), 'a large write flows through');
      assert.equal(backend.open(), 1);
    } finally {
      socket.end();
    }
    await eventually('the backend connection closes with the client', () => assert.equal(backend.open(), 0), { timeoutMs: 5_000, intervalMs: 50 });
    // Audited as any request: the 101 when it was sent, the end when the stream closed.
    const events = await audited(up.headers.get('audit-id')!);
    assert.deepEqual(
      events.map((e) => [e.stage, e.responseStatus?.code]),
      [
        ['RequestReceived', undefined],
        ['ResponseStarted', 101],
        ['ResponseComplete', 101],
      ],
    );
    assert.equal(events[0].user.username, 'jane');
    assert.deepEqual(events[0].objectRef, { resource: 'flunders', namespace: NS, name: 'f1', apiGroup: WARDLE_GROUP, apiVersion: WARDLE_VERSION, subresource: 'exec' });
    // Counted once its stream closed, with the status it answered.
    await eventually(
      'the 101 in the request metrics',
      async () => {
        const lines = (await c.request('GET', '/metrics')).text.split('\n').filter((l) => l.startsWith('apiserver_request_total{'));
        assert.ok(
          lines.some((l) => l.includes('code="101"') && l.includes('verb="CONNECT"')),
          lines.join('\n'),
        );
      },
      { timeoutMs: 5_000, intervalMs: 100 },
    );
  });

  it('switched - a websocket attach (GET) is switched too, and the backend closing its end closes the client connection', async () => {
    const key = b64('0123456789abcdef');
    const up = await upgradeRequest(c, `${BASE}/namespaces/${NS}/flunders/f1/attach?stdout=true`, {
      method: 'GET',
      token: c.userToken,
      headers: { upgrade: 'websocket', 'sec-websocket-key': key, 'sec-websocket-version': '13', 'sec-websocket-protocol': 'v5.channel.k8s.io' },
    });
    assert.equal(up.status, 101, up.text);
    assert.equal(up.headers.get('upgrade'), 'websocket');
    const seen = upgrades().at(-1)!;
    assert.equal(seen.method, 'GET');
    assert.equal(seen.headers['sec-websocket-key'], key, 'the handshake headers reach the backend');
    assert.equal(seen.user, 'jane');
    const socket = up.socket!;
    assert.equal(await roundTrip(socket, 'ping'), 'ping');
    socket.write('bye');
    await closed(socket);
    await eventually('nothing left open', () => assert.equal(backend.open(), 0), { timeoutMs: 5_000, intervalMs: 50 });
  });

  it('refused by the backend - a backend that does not switch has its answer passed through, and the connection ends', async () => {
    const rbacRule = { apiGroups: [WARDLE_GROUP], resources: ['flunders/portforward'], verbs: ['create'] };
    const role = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'flunder-portforward' }, rules: [rbacRule] };
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/namespaces/${NS}/roles`, { body: role }), 201);
    const binding = {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'jane-portforward' },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'flunder-portforward' },
      subjects: [{ apiGroup: RBAC, kind: 'User', name: 'jane' }],
    };
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/namespaces/${NS}/rolebindings`, { body: binding }), 201);
    const path = `${BASE}/namespaces/${NS}/flunders/f1/portforward?ports=8080`;
    const answer = await eventually(
      'granted',
      async () => {
        const r = await upgradeRequest(c, path, { token: c.userToken });
        assertStatus(r, 400, 'BadRequest');
        return r;
      },
      { timeoutMs: 5_000, intervalMs: 100 },
    );
    assert.equal(answer.headers.get('connection'), 'close');
    const refused = answer.json;
    assert.equal(refused.message, `upgrade to SPDY/3.1 is not supported on ${BASE}/namespaces/${NS}/flunders/f1/portforward`);
    assert.equal(upgrades().at(-1)!.url, path);
    assert.equal(upgrades().at(-1)!.user, 'jane');
  });

  it("built-in types - an upgrade to a pod's exec is answered as the plain request is, and the connection ends", async () => {
    const r = await upgradeRequest(c, `/api/v1/namespaces/${NS}/pods/missing/exec?command=sh&stdout=true`);
    assert.equal(assertStatus(r, 404, 'NotFound').message, 'pods "missing" not found');
    assert.equal(r.headers.get('connection'), 'close');
  });

  it('extension-apiserver-authentication-reader - an aggregated server account bound to the bootstrap Role reads the ConfigMap, and only it', async () => {
    const role = await eventually('the bootstrap Role', async () => assertOk(await c.request('GET', `/apis/${RBAC}/v1/namespaces/${SYSTEM_NS}/roles/extension-apiserver-authentication-reader`)), {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    assert.deepEqual(role.rules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'] }]);
    assertOk(await c.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'wardle-server' } } }), 201);
    const tokenRequest = { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec: { audiences: [] } };
    const token: string = assertOk(await c.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts/wardle-server/token`, { body: tokenRequest }), 201).status.token;
    assertStatus(await c.request('GET', AUTH_INFO, { token }), 403, 'Forbidden');
    // What the server's install adds (sample-apiserver's and metrics-server's manifests): a RoleBinding in the system namespace.
    const binding = {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'wardle-server:extension-apiserver-authentication-reader' },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'extension-apiserver-authentication-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'wardle-server', namespace: NS }],
    };
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/namespaces/${SYSTEM_NS}/rolebindings`, { body: binding }), 201);
    const data = await eventually('readable', async () => assertOk(await c.request('GET', AUTH_INFO, { token })).data, { timeoutMs: 5_000, intervalMs: 100 });
    assert.equal(data['requestheader-allowed-names'], '["front-proxy-client"]');
    // An informer of that one ConfigMap lists and watches it by name.
    const pinned = `/api/v1/namespaces/${SYSTEM_NS}/configmaps?fieldSelector=metadata.name%3Dextension-apiserver-authentication`;
    assert.deepEqual(
      assertOk(await c.request('GET', pinned, { token })).items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['extension-apiserver-authentication'],
    );
    assertStatus(await c.request('GET', `/api/v1/namespaces/${SYSTEM_NS}/configmaps`, { token }), 403, 'Forbidden');
    assertStatus(await c.request('GET', `/api/v1/namespaces/${SYSTEM_NS}/secrets`, { token }), 403, 'Forbidden');
  });
});
