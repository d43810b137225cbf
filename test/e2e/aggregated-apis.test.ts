// Aggregated APIs end to end: a small metrics API server (test/support/metrics-server.ts) serving
// `metrics.k8s.io/v1beta1` over HTTPS, registered by the APIService `v1beta1.metrics.k8s.io` that
// points at a Service whose Endpoints hold this host's address, as metrics-server is installed.
// The apiservice-availability controller (run in process, as its own service account, so its
// bootstrap role is what authorizes it) checks it; the gateway proxies to it with its front-proxy
// client certificate, the backend trusting X-Remote-User from that certificate only. What is
// asserted is what a user sees: `kubectl get apiservices`, `kubectl top nodes`, discovery, 403s,
// streams, 503s once the backend is gone, and the group leaving discovery with its APIService.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl, kubectlOk } from '../support/kubectl.js';
import { startMetricsServer, METRICS_GROUP, METRICS_VERSION, type TestMetricsServer } from '../support/metrics-server.js';
import { createCA, issueClientCert, issueServingCert } from '../../shared/local/pki.js';
import { writeKubeconfig } from '../../shared/local/kubeconfig.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { createControllersService, type ControllersService } from '../../services/controllers/service.js';
import { assertOk, assertStatus, createNamespace, eventually, hostAddress, openWatch } from './helpers.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const NAME = `${METRICS_VERSION}.${METRICS_GROUP}`;
const BASE = `/apis/${METRICS_GROUP}/${METRICS_VERSION}`;
const SVC_NS = 'metrics-system';
const SVC = 'metrics-server';
const RBAC = 'rbac.authorization.platform.io';
const AUTH_INFO = '/api/v1/namespaces/platform-system/configmaps/extension-apiserver-authentication';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const address = hostAddress();
const kubectlBin = findKubectl();

describe('aggregated APIs: a remote APIService proxied, checked and discovered', { timeout: 120_000, skip: address ? false : 'no non-loopback address on this machine' }, () => {
  let c: TestCluster;
  let metrics: TestMetricsServer;
  let controllers: ControllersService;
  let dir: string;
  let authInfo: Record<string, string>;

  const condition = async () => (await c.request('GET', `${APISERVICES}/${NAME}`)).json?.status?.conditions?.find((x: { type: string }) => x.type === 'Available');
  const received = () => metrics.received.filter((r) => r.url.startsWith(`${BASE}/`));

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-aggregated-'));
    const frontProxyCA = await createCA('aggregator-front-proxy-ca');
    const proxyClient = await issueClientCert(frontProxyCA, { commonName: 'front-proxy-client' });
    const backendCA = await createCA('metrics-serving-ca');
    const proxyClientCertificate = { cert: proxyClient.certPem, key: proxyClient.keyPem };
    // Upstream spellings on, as `npm start` runs: metrics.k8s.io is a third-party group all the same.
    // The gateway's --requestheader-client-ca-file is the front-proxy CA, which it publishes.
    const authenticationInfo = { requestHeaderCA: frontProxyCA.certPem, proxyClientCert: proxyClient.certPem };
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true, upstreamGroupAliases: true, gateway: { proxyClientCertificate, authenticationInfo } });
    // The backend trusts what extension-apiserver-authentication says, as metrics-server configures itself.
    authInfo = await eventually('extension-apiserver-authentication', async () => assertOk(await c.request('GET', AUTH_INFO)).data, { timeoutMs: 10_000, intervalMs: 100 });
    metrics = await startMetricsServer(await issueServingCert(backendCA, { dnsNames: [`${SVC}.${SVC_NS}.svc`] }), authInfo['requestheader-client-ca-file']!, {
      allowedNames: JSON.parse(authInfo['requestheader-allowed-names']!),
    });
    metrics.nodes.set('node-a', { cpu: '250m', memory: '512Mi' });
    metrics.nodes.set('node-b', { cpu: '1', memory: '1Gi' });
    await eventually('the default policy is written', async () => assertOk(await c.request('GET', `/apis/${RBAC}/v1/clusterrolebindings/system:controller:apiservice-availability-controller`)), {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    const user = 'system:platform-controller-manager';
    const cert = await issueClientCert(c.ca, { commonName: user });
    const kubeconfig = path.join(dir, 'controllers.kubeconfig');
    await writeKubeconfig(kubeconfig, { server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, certUserName: user });
    const client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: kubeconfig } }));
    controllers = createControllersService({
      client,
      log: pino({ level: 'warn' }),
      config: { controllers: ['apiservice-availability'], useServiceAccountCredentials: true, proxyClientCertificate, apiServiceResyncMs: 1_000 },
    });
    await controllers.leading;

    await createNamespace(c, SVC_NS);
    assertOk(
      await c.request('POST', `/api/v1/namespaces/${SVC_NS}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: SVC }, spec: { ports: [{ name: 'https', port: 443 }] } } }),
      201,
    );
    const endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: SVC }, subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port: metrics.port }] }] };
    assertOk(await c.request('POST', `/api/v1/namespaces/${SVC_NS}/endpoints`, { body: endpoints }), 201);
    for (const [name, cpu, memory] of [
      ['node-a', '2', '4Gi'],
      ['node-b', '4', '8Gi'],
    ]) {
      const status = { allocatable: { cpu, memory }, capacity: { cpu, memory } };
      assertOk(await c.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name }, status } }), 201);
    }
    const spec = {
      group: METRICS_GROUP,
      version: METRICS_VERSION,
      groupPriorityMinimum: 100,
      versionPriority: 100,
      caBundle: b64(backendCA.certPem),
      service: { namespace: SVC_NS, name: SVC, port: 443 },
    };
    assertOk(await c.request('POST', APISERVICES, { body: { apiVersion: 'apiregistration.platform.io/v1', kind: 'APIService', metadata: { name: NAME }, spec } }), 201);
  });
  after(async () => {
    await controllers?.stop();
    await metrics?.close();
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('availability - the controller finds the backend answering and marks the APIService Available (Passed); kubectl get apiservices shows it', async (t) => {
    const available = await eventually(
      'Available',
      async () => {
        const cond = await condition();
        assert.equal(cond?.status, 'True', JSON.stringify(cond));
        return cond;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    assert.equal(available.reason, 'Passed');
    assert.equal(available.message, 'all checks passed');
    // The check went through the front proxy as the aggregator.
    assert.ok(metrics.received.some((r) => r.url === BASE && r.user === 'system:kube-aggregator' && r.proxyCN === 'front-proxy-client'));
    if (!kubectlBin) return t.skip('kubectl is not on PATH');
    const kubectl = new Kubectl(kubectlBin, c.kubeconfigPath);
    const line = kubectlOk(await kubectl.run(['get', 'apiservices', NAME])).split('\n')[1] ?? '';
    assert.match(line, new RegExp(`^${NAME.replace(/\./g, '\\.')}\\s+${SVC_NS}/${SVC}\\s+True\\s`));
  });

  it('extension-apiserver-authentication - the gateway publishes its front-proxy CA, the headers it sends and its certificate name; a backend configured from it accepts the gateway', async () => {
    assert.deepEqual(Object.keys(authInfo).sort(), [
      'requestheader-allowed-names',
      'requestheader-client-ca-file',
      'requestheader-extra-headers-prefix',
      'requestheader-group-headers',
      'requestheader-username-headers',
    ]);
    assert.equal(authInfo['requestheader-username-headers'], '["X-Remote-User"]');
    assert.equal(authInfo['requestheader-group-headers'], '["X-Remote-Group"]');
    assert.equal(authInfo['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
    assert.equal(authInfo['requestheader-allowed-names'], '["front-proxy-client"]');
    // The backend above trusts only that CA and that name: the proxied requests it served came from the gateway.
    await eventually('a proxied request reached the backend as a trusted front proxy', () => assert.ok(metrics.received.some((r) => r.user !== undefined)), { timeoutMs: 15_000, intervalMs: 100 });
  });

  it('discovery - the group is listed by priority (after every local group) and its backend resources are in aggregated discovery', async () => {
    const apis = assertOk(await c.request('GET', '/apis'));
    const names: string[] = apis.groups.map((g: { name: string }) => g.name);
    // Aliases are on: every branded group is listed under its upstream spelling in its place, the canonical spellings after every group.
    assert.equal(names[0], 'apiregistration.k8s.io', 'the registration group comes first, as upstream lists it');
    // Priority 100 is below every local group; only the canonical spellings of branded groups come after.
    const metricsAt = names.indexOf(METRICS_GROUP);
    assert.equal(names[metricsAt + 1], 'apiregistration.platform.io', names.join(' '));
    assert.deepEqual(apis.groups[metricsAt].preferredVersion, { groupVersion: `${METRICS_GROUP}/${METRICS_VERSION}`, version: METRICS_VERSION });
    assert.equal(assertOk(await c.request('GET', `/apis/${METRICS_GROUP}`)).versions[0].version, METRICS_VERSION);
    const item = await eventually(
      'the backend resources in aggregated discovery',
      async () => {
        const doc = assertOk(await c.request('GET', '/apis', { headers: { accept: AGGREGATED } }));
        const found = doc.items.find((g: { metadata: { name: string } }) => g.metadata.name === METRICS_GROUP);
        assert.equal(found?.versions?.[0]?.freshness, 'Current', JSON.stringify(found));
        return found;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.deepEqual(
      item.versions[0].resources.map((r: { resource: string; scope: string; responseKind: { kind: string } }) => [r.resource, r.scope, r.responseKind.kind]),
      [
        ['nodes', 'Cluster', 'NodeMetrics'],
        ['pods', 'Namespaced', 'PodMetrics'],
      ],
    );
    // The group/version's own resource list is the backend's, proxied.
    assert.equal(assertOk(await c.request('GET', BASE)).groupVersion, `${METRICS_GROUP}/${METRICS_VERSION}`);
  });

  it("openapi - /openapi/v2 and /openapi/v3 include the backend's own OpenAPI of its group/version, and kubectl explain reads it", async (t) => {
    const def = 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics';
    const v3 = await eventually(
      'the group/version in the v3 root',
      async () => {
        const root = assertOk(await c.request('GET', '/openapi/v3'));
        assert.ok(root.paths[`apis/${METRICS_GROUP}/${METRICS_VERSION}`], Object.keys(root.paths).join(' '));
        return root.paths[`apis/${METRICS_GROUP}/${METRICS_VERSION}`].serverRelativeURL as string;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.match(v3, new RegExp(`^/openapi/v3/apis/${METRICS_GROUP.replace(/\./g, '\\.')}/${METRICS_VERSION}\\?hash=[0-9A-F]+$`));
    const doc = assertOk(await c.request('GET', v3));
    assert.deepEqual(doc.components.schemas[def]['x-kubernetes-group-version-kind'], [{ group: METRICS_GROUP, version: METRICS_VERSION, kind: 'NodeMetrics' }]);
    assert.ok(doc.paths[`${BASE}/nodes`]);
    const v2 = assertOk(await c.request('GET', '/openapi/v2'));
    assert.ok(v2.paths[`${BASE}/nodes`], 'the backend path of its group/version');
    assert.equal(v2.paths['/apis/other.example.com/v1/things'], undefined, 'not a path of another group');
    assert.equal(v2.definitions[def].description, 'NodeMetrics sets resource usage metrics of a node.');
    assert.ok(v2.definitions['io.k8s.api.core.v1.Pod'] ?? Object.keys(v2.definitions).some((d) => d.endsWith('.core.v1.Pod')), "the gateway's own definitions stay");
    if (!kubectlBin) return t.skip('kubectl is not on PATH');
    const kubectl = new Kubectl(kubectlBin, c.kubeconfigPath);
    const out = kubectlOk(await kubectl.run(['explain', 'nodes', `--api-version=${METRICS_GROUP}/${METRICS_VERSION}`]));
    assert.match(out, /KIND:\s+NodeMetrics/);
    assert.match(out, /NodeMetrics sets resource usage metrics of a node\./);
    assert.match(out, /window\s+<string> -required-/);
  });

  it('kubectl top nodes - prints the usage the metrics server reports', async (t) => {
    if (!kubectlBin) return t.skip('kubectl is not on PATH');
    const kubectl = new Kubectl(kubectlBin, c.kubeconfigPath);
    const out = kubectlOk(await kubectl.run(['top', 'nodes']));
    const rows = out.trim().split('\n');
    assert.match(rows[0]!, /^NAME\s+CPU\(cores\)\s+CPU(\(%\)|%)\s+MEMORY\(bytes\)\s+MEMORY(\(%\)|%)/);
    assert.match(out, /node-a\s+250m\s+12%\s+512Mi\s+12%/);
    assert.match(out, /node-b\s+1000m\s+25%\s+1024Mi\s+12%/);
  });

  it('authorization - a user without rights on nodes.metrics.k8s.io is refused by the gateway; granted, the backend sees that user and none of the client credentials', async () => {
    const before = received().length;
    const denied = assertStatus(await c.request('GET', `${BASE}/nodes`, { token: c.userToken }), 403, 'Forbidden');
    assert.match(denied.message, /nodes\.metrics\.k8s\.io is forbidden: User "jane" cannot list resource "nodes" in API group "metrics\.k8s\.io"/);
    assert.equal(received().length, before, 'the backend was never asked');

    const role = {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'metrics-reader' },
      rules: [{ apiGroups: [METRICS_GROUP], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
    };
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/clusterroles`, { body: role }), 201);
    const binding = {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'jane-metrics' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'metrics-reader' },
      subjects: [{ apiGroup: RBAC, kind: 'User', name: 'jane' }],
    };
    assertOk(await c.request('POST', `/apis/${RBAC}/v1/clusterrolebindings`, { body: binding }), 201);
    const forged = { 'x-remote-user': 'mallory', 'x-remote-group': 'system:masters', 'x-remote-extra-scopes': 'all' };
    const list = await eventually('granted', async () => assertOk(await c.request('GET', `${BASE}/nodes?limit=5`, { token: c.userToken, headers: forged })), { timeoutMs: 5_000, intervalMs: 100 });
    assert.equal(list.kind, 'NodeMetricsList');
    assert.deepEqual(list.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['node-a', 'node-b']);
    const seen = received().at(-1)!;
    assert.equal(seen.url, `${BASE}/nodes?limit=5`);
    assert.equal(seen.proxyCN, 'front-proxy-client');
    assert.equal(seen.user, 'jane');
    const groupHeaders = seen.rawHeaders.filter((v, i) => i % 2 === 0 && v.toLowerCase() === 'x-remote-group');
    assert.equal(groupHeaders.length, 3, `one X-Remote-Group per group: ${JSON.stringify(seen.rawHeaders)}`);
    assert.deepEqual(String(seen.headers['x-remote-group']).split(', ').sort(), ['developers', 'qa', 'system:authenticated']);
    assert.equal(seen.headers.authorization, undefined, 'the client credentials stop at the gateway');
    assert.equal(seen.headers['x-remote-extra-scopes'], undefined);
    // Impersonated, the request reaches the backend as the user impersonated, its headers consumed.
    assertOk(await c.request('GET', `${BASE}/nodes/node-a`, { headers: { 'impersonate-user': 'jane', 'impersonate-extra-reason': 'on call' } }));
    const impersonated = received().at(-1)!;
    assert.equal(impersonated.user, 'jane');
    assert.deepEqual(impersonated.headers['x-remote-extra-reason'], 'on call');
    assert.equal(impersonated.headers['impersonate-user'], undefined);
    // Not granted: pods.metrics.k8s.io.
    assertStatus(await c.request('GET', `${BASE}/pods`, { token: c.userToken }), 403, 'Forbidden');
  });

  it('watch - a watch through the APIService streams events as the backend sends them', async () => {
    const w = await openWatch(c, `${BASE}/nodes?watch=true`);
    try {
      assert.equal(w.status, 200);
      await w.waitForCount(2, 5_000);
      assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata.name}`).sort(), ['ADDED node-a', 'ADDED node-b']);
      await eventually('the backend holds the watch', () => assert.equal(metrics.watchers(), 1));
      metrics.nodes.set('node-a', { cpu: '300m', memory: '512Mi' });
      metrics.emit('MODIFIED', 'node-a');
      const modified = await w.waitFor((e) => e.type === 'MODIFIED', 5_000, 'the MODIFIED event');
      assert.equal(modified.object.usage.cpu, '300m');
      assert.equal(w.isEnded(), false, 'the stream stays open');
    } finally {
      w.close();
    }
    await eventually('the backend watch ends with the client', () => assert.equal(metrics.watchers(), 0), { timeoutMs: 5_000 });
  });

  it('backend down - the APIService becomes Available=False (FailedDiscoveryCheck) and requests are answered 503', async () => {
    await metrics.close();
    const cond = await eventually(
      'FailedDiscoveryCheck',
      async () => {
        const x = await condition();
        assert.equal(x?.status, 'False', JSON.stringify(x));
        return x;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    assert.equal(cond.reason, 'FailedDiscoveryCheck');
    assert.ok(cond.message.startsWith(`failing or missing response from https://${address}:${metrics.port}/apis/${METRICS_GROUP}/${METRICS_VERSION}: `), cond.message);
    const down = await eventually('503', async () => assertStatus(await c.request('GET', `${BASE}/nodes`), 503, 'ServiceUnavailable'), { timeoutMs: 5_000, intervalMs: 100 });
    assert.match(down.message, new RegExp(NAME.replace(/\./g, '\\.')));
    const doc = assertOk(await c.request('GET', '/apis', { headers: { accept: AGGREGATED } }));
    assert.ok(
      doc.items.some((g: { metadata: { name: string } }) => g.metadata.name === METRICS_GROUP),
      'still listed, as upstream lists an unavailable APIService',
    );
  });

  it('deleting the APIService - its group leaves discovery and its paths are 404', async () => {
    assertOk(await c.request('DELETE', `${APISERVICES}/${NAME}`));
    await eventually('gone from discovery', async () => {
      const names = assertOk(await c.request('GET', '/apis')).groups.map((g: { name: string }) => g.name);
      assert.ok(!names.includes(METRICS_GROUP), names.join(' '));
      const doc = assertOk(await c.request('GET', '/apis', { headers: { accept: AGGREGATED } }));
      assert.ok(!doc.items.some((g: { metadata: { name: string } }) => g.metadata.name === METRICS_GROUP));
    });
    assertStatus(await c.request('GET', `${BASE}/nodes`), 404, 'NotFound');
    assertStatus(await c.request('GET', `/apis/${METRICS_GROUP}`), 404, 'NotFound');
  });
});
