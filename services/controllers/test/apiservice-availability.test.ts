import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ApiObject } from '../../../shared/api/types.js';
import { createCA, issueServingCert } from '../../../shared/local/pki.js';
import { remoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';
import { checkDiscovery, PASSED, precheck } from '../apiservices/check.js';

const apiService: ApiObject = {
  apiVersion: 'apiregistration.platform.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1beta1.metrics.k8s.io' },
  spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics-server', port: 443 } },
};
const api = remoteApiService(apiService)!;
const svc: ApiObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics-server', namespace: 'kube-system' }, spec: { ports: [{ name: 'https', port: 443 }] } };
const eps = (subsets: unknown[]): ApiObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'metrics-server', namespace: 'kube-system' }, subsets });

test("apiservice availability - what the Service and Endpoints say, in upstream's reasons and words", () => {
  assert.deepEqual(precheck(api, undefined, undefined), { condition: { status: 'False', reason: 'ServiceNotFound', message: 'service/metrics-server in "kube-system" is not present' } });
  const otherPort = { ...svc, spec: { ports: [{ name: 'https', port: 4443 }] } };
  assert.deepEqual(precheck(api, otherPort, undefined), {
    condition: { status: 'False', reason: 'ServicePortError', message: 'service/metrics-server in "kube-system" is not listening on port 443' },
  });
  assert.deepEqual(precheck(api, svc, undefined), { condition: { status: 'False', reason: 'EndpointsNotFound', message: 'cannot find endpoints for service/metrics-server in "kube-system"' } });
  assert.deepEqual(precheck(api, svc, eps([{ notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 4443 }] }])), {
    condition: { status: 'False', reason: 'MissingEndpoints', message: 'endpoints for service/metrics-server in "kube-system" have no addresses with port name "https"' },
  });
  assert.deepEqual(precheck(api, svc, eps([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 4443 }] }])), { addresses: [{ host: '10.0.0.1', port: 4443 }] });
});

test('apiservice availability - the discovery check: Passed on a 2xx, else FailedDiscoveryCheck with the URL and what went wrong', async () => {
  const ca = await createCA('check-test-ca');
  const serving = await issueServingCert(ca);
  let status = 200;
  const seen: Array<Record<string, unknown>> = [];
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    seen.push({ url: req.url, user: req.headers['x-remote-user'], group: req.headers['x-remote-group'] });
    res.writeHead(status).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const address = { host: '127.0.0.1', port };
  const opts = { timeoutMs: 2_000, attempts: 5 };
  try {
    // The backend's certificate is not checked (upstream's check is insecure): this one is for localhost only.
    assert.deepEqual(await checkDiscovery(api, [address], opts), PASSED);
    assert.deepEqual(seen, [{ url: '/apis/metrics.k8s.io/v1beta1', user: 'system:kube-aggregator', group: 'system:masters' }], 'one attempt per address');
    status = 403;
    const url = `https://127.0.0.1:${port}/apis/metrics.k8s.io/v1beta1`;
    assert.deepEqual(await checkDiscovery(api, [address], opts), { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: bad status from ${url}: 403` });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
  const refused = await checkDiscovery(api, [address], opts);
  const url = `https://127.0.0.1:${port}/apis/metrics.k8s.io/v1beta1`;
  assert.equal(refused.message, `failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`);
});
