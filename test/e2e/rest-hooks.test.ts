// End to end: the subresources a type serves through its REST hooks, driven over HTTPS and with
// upstream kubectl: pods/eviction honouring PodDisruptionBudgets, pods/binding, the connect
// subresources answering as upstream does when no node agent is reachable, and the proxies
// forwarding to a real backend (an HTTP server on this machine's non-loopback address).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { assertOk, assertStatus, createNamespace, hostAddress, uniq } from './helpers.js';

const RBAC = 'rbac.authorization.platform.io';

function pod(name: string, labels: Record<string, string> = {}, containers = ['app']) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })) } };
}

describe('REST hooks', () => {
  let c: TestCluster;
  let ns: string;
  let backend: http.Server;
  let backendPort: number;
  const seen: Array<{ method: string; url: string; body: string }> = [];
  const podPath = (name = '', sub = '') => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
  const pdbPath = (name = '') => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets${name ? `/${name}` : ''}`;
  const evict = (name: string, extra: Record<string, unknown> = {}, query = '') =>
    c.request('POST', `${podPath(name, 'eviction')}${query}`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns }, ...extra } });
  const runningPod = async (name: string, labels: Record<string, string>) => {
    assertOk(await c.request('POST', podPath(), { body: pod(name, labels) }), 201);
    assertOk(
      await c.request('PATCH', podPath(name, 'status'), {
        body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
    );
  };
  const budget = async (name: string, app: string, status: Record<string, unknown>) => {
    const created = assertOk(
      await c.request('POST', pdbPath(), { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app } } } } }),
      201,
    );
    assertOk(
      await c.request('PUT', pdbPath(name) + '/status', {
        body: { ...created, status: { observedGeneration: created.metadata.generation, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, ...status } },
      }),
    );
  };

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['RBAC'] });
    ns = uniq('hooks');
    await createNamespace(c, ns);
    backend = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body });
        res.writeHead(418, { 'content-type': 'text/plain', 'x-backend': 'yes' }).end(`backend saw ${req.method} ${req.url}`);
      });
    });
    await new Promise<void>((r) => backend.listen(0, '0.0.0.0', r));
    backendPort = (backend.address() as AddressInfo).port;
  });
  after(async () => {
    backend.close();
    await c.stop();
  });

  it('evicts a pod its budget allows to go, counting the disruption', async () => {
    await runningPod('web-1', { app: 'web' });
    await budget('web-pdb', 'web', { disruptionsAllowed: 1 });
    const s = assertOk(await evict('web-1'), 201);
    assert.equal(s.kind, 'Status');
    assert.equal(s.status, 'Success');
    assertStatus(await c.request('GET', podPath('web-1')), 404, 'NotFound');
    const pdb = assertOk(await c.request('GET', pdbPath('web-pdb')));
    assert.equal(pdb.status.disruptionsAllowed, 0);
    assert.ok(pdb.status.disruptedPods['web-1'], 'the evicted pod is remembered until the controller sees it gone');
  });

  it('refuses an eviction the budget does not allow: 429 with a DisruptionBudget cause, the pod stays', async () => {
    await runningPod('db-1', { app: 'db' });
    await budget('db-pdb', 'db', { disruptionsAllowed: 0 });
    const s = assertStatus(await evict('db-1'), 429, 'TooManyRequests');
    assert.equal(s.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(s.details.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget db-pdb needs 1 healthy pods and has 2 currently' }]);
    assertOk(await c.request('GET', podPath('db-1')));
  });

  it('evicts a pod no budget covers; dry-run changes nothing; a name mismatch is 400', async () => {
    await runningPod('lone', { app: 'lone' });
    assertOk(await evict('lone', {}, '?dryRun=All'), 201);
    assertOk(await c.request('GET', podPath('lone')));
    assertStatus(await c.request('POST', podPath('lone', 'eviction'), { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } } }), 400, 'BadRequest');
    assertOk(await evict('lone'), 201);
    assertStatus(await c.request('GET', podPath('lone')), 404, 'NotFound');
    assertStatus(await evict('lone'), 404, 'NotFound');
  });

  it('a user who may create pods/eviction but not delete pods can evict', async () => {
    await runningPod('evictee', { app: 'evictee' });
    assertOk(
      await c.request('POST', `/apis/${RBAC}/v1/namespaces/${ns}/roles`, {
        body: { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'evictor' }, rules: [{ apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] }] },
      }),
      201,
    );
    assertOk(
      await c.request('POST', `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings`, {
        body: {
          apiVersion: `${RBAC}/v1`,
          kind: 'RoleBinding',
          metadata: { name: 'evictor' },
          subjects: [{ kind: 'User', name: 'jane', apiGroup: RBAC }],
          roleRef: { apiGroup: RBAC, kind: 'Role', name: 'evictor' },
        },
      }),
      201,
    );
    const asJane = (method: string, path: string, body?: unknown) => c.request(method, path, { token: c.userToken, ...(body ? { body } : {}) });
    for (let i = 0; ; i++) {
      const r = await asJane('POST', podPath('evictee', 'eviction'), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evictee' } });
      if (r.status === 201) break;
      assert.ok(i < 50 && r.status === 403, `eviction as jane: ${r.status} ${r.text}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    assertStatus(await asJane('DELETE', podPath('evictee')), 403, 'Forbidden');
    assertStatus(await asJane('GET', podPath('x', 'log')), 403, 'Forbidden');
  });

  it('binds a pod to a node once: spec.nodeName and PodScheduled, then 409', async () => {
    assertOk(await c.request('POST', podPath(), { body: pod('unbound') }), 201);
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'unbound' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' } };
    const s = assertOk(await c.request('POST', podPath('unbound', 'binding'), { body: binding }), 201);
    assert.equal(s.status, 'Success');
    const bound = assertOk(await c.request('GET', podPath('unbound')));
    assert.equal(bound.spec.nodeName, 'node-a');
    assert.equal(bound.status.conditions.find((x: { type: string }) => x.type === 'PodScheduled')?.status, 'True');
    const again = assertStatus(await c.request('POST', podPath('unbound', 'binding'), { body: { ...binding, target: { kind: 'Node', name: 'node-b' } } }), 409, 'Conflict');
    assert.match(again.message, /pod unbound is already assigned to node "node-a"/);
    assertStatus(await c.request('POST', podPath('unbound', 'binding'), { body: { ...binding, target: { kind: 'Pod', name: 'x' } } }), 422, 'Invalid');
  });

  it('log, exec, attach and portforward answer as upstream without a node agent', async () => {
    assertOk(await c.request('POST', podPath(), { body: pod('two', {}, ['a', 'b']) }), 201);
    const pending = await c.request('GET', podPath('two', 'log') + '?container=a');
    assert.equal(pending.status, 200);
    assert.equal(pending.text, '', 'a pod not on a node has no log yet');
    const ambiguous = assertStatus(await c.request('GET', podPath('two', 'log')), 400, 'BadRequest');
    assert.equal(ambiguous.message, 'a container name must be specified for pod two, choose one of: [a b]');
    assertStatus(await c.request('GET', podPath('two', 'log') + '?container=zz'), 400, 'BadRequest');
    const exec = assertStatus(await c.request('POST', podPath('two', 'exec') + '?container=a&command=ls'), 400, 'BadRequest');
    assert.equal(exec.message, 'pod two does not have a host assigned');
    assertStatus(await c.request('POST', podPath('two', 'portforward')), 400, 'BadRequest');
    assertStatus(await c.request('GET', podPath('two', 'attach') + '?container=a'), 400, 'BadRequest');
    // Bound to a node that exists: the agent cannot be reached.
    assertOk(await c.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'agentless' } } }), 201);
    assertOk(await c.request('POST', podPath('two', 'binding'), { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'two' }, target: { kind: 'Node', name: 'agentless' } } }), 201);
    assertStatus(await c.request('GET', podPath('two', 'log') + '?container=a'), 503, 'ServiceUnavailable');
    // Verbs the subresource does not serve.
    assertStatus(await c.request('DELETE', podPath('two', 'eviction')), 405, 'MethodNotAllowed');
  });

  it('upstream kubectl logs and exec print the upstream errors', { skip: !findKubectl() && 'kubectl is not installed' }, async () => {
    const k = new Kubectl(findKubectl()!, c.kubeconfigPath);
    assertOk(await c.request('POST', podPath(), { body: pod('solo') }), 201);
    const exec = await k.run(['-n', ns, 'exec', 'solo', '--', 'ls']);
    assert.notEqual(exec.code, 0);
    assert.match(exec.stderr, /does not have a host assigned/);
    const logs = await k.run(['-n', ns, 'logs', 'solo', '-c', 'zz']);
    assert.notEqual(logs.code, 0);
    assert.match(logs.stderr, /container zz is not valid for pod solo/);
    const empty = await k.run(['-n', ns, 'logs', 'solo']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, '');
  });

  it('services/proxy forwards to a ready endpoint; no endpoints is 503; loopback is refused', async (t) => {
    const ip = hostAddress();
    if (!ip) return t.skip('no non-loopback address on this machine');
    assertOk(
      await c.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo' }, spec: { ports: [{ name: 'http', port: 80 }] } } }),
      201,
    );
    const none = assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}/services/echo/proxy/x`), 503, 'ServiceUnavailable');
    assert.equal(none.message, 'no endpoints available for service "echo"');
    const endpoints = (addr: string) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'echo' }, subsets: [{ addresses: [{ ip: addr }], ports: [{ name: 'http', port: backendPort }] }] });
    assertOk(await c.request('POST', `/api/v1/namespaces/${ns}/endpoints`, { body: endpoints(ip) }), 201);
    const r = await c.request('POST', `/api/v1/namespaces/${ns}/services/echo:http/proxy/some/path?q=1`, { rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 418);
    assert.equal(r.headers.get('x-backend'), 'yes');
    assert.equal(r.text, 'backend saw POST /some/path?q=1');
    assert.deepEqual(seen.at(-1), { method: 'POST', url: '/some/path?q=1', body: 'hello' });
    assert.ok(!('authorization' in (seen.at(-1) ?? {})));
    // A loopback endpoint cannot be stored, so the proxy keeps to the one it has.
    const current = assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/endpoints/echo`));
    const loopback = assertStatus(await c.request('PUT', `/api/v1/namespaces/${ns}/endpoints/echo`, { body: { ...endpoints('127.0.0.1'), metadata: current.metadata } }), 422, 'Invalid');
    assert.equal(loopback.details.causes[0].field, 'subsets[0].addresses[0].ip');
    assert.equal((await c.request('GET', `/api/v1/namespaces/${ns}/services/echo/proxy/`)).status, 418);
  });

  it('no proxy reaches a loopback port through another spelling of its address', async () => {
    // The attacker's target: an unauthenticated loopback listener, like the storage service's metrics.
    let hits = 0;
    const metrics = http.createServer((_req, res) => {
      hits++;
      res.end('loopback metrics');
    });
    await new Promise<void>((r) => metrics.listen(0, '127.0.0.1', r));
    const port = (metrics.address() as AddressInfo).port;
    try {
      assertOk(
        await c.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'sneaky' }, spec: { ports: [{ name: 'http', port: 80 }] } } }),
        201,
      );
      for (const ip of ['::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::ffff:127.0.0.1', '169.254.169.254', '0.0.0.0', 'not-an-ip']) {
        const body = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'sneaky' }, subsets: [{ addresses: [{ ip }], ports: [{ name: 'http', port }] }] };
        const refused = assertStatus(await c.request('POST', `/api/v1/namespaces/${ns}/endpoints`, { body }), 422, 'Invalid');
        assert.deepEqual(
          refused.details.causes.map((x: { field: string }) => x.field),
          ['subsets[0].addresses[0].ip'],
          ip,
        );
      }
      const slice = {
        apiVersion: 'discovery.platform.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'sneaky-1' },
        addressType: 'IPv6',
        endpoints: [{ addresses: ['::ffff:7f00:1'] }],
        ports: [{ name: 'http', port }],
      };
      assertStatus(await c.request('POST', `/apis/discovery.platform.io/v1/namespaces/${ns}/endpointslices`, { body: slice }), 422, 'Invalid');
      assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}/services/sneaky/proxy/metrics`), 503, 'ServiceUnavailable');

      // Pod status is not validated for this (as upstream): the pod proxy refuses the address.
      assertOk(await c.request('POST', podPath(), { body: pod('sneaky') }), 201);
      const status = { status: { podIP: '::ffff:7f00:1', podIPs: [{ ip: '::ffff:7f00:1' }] } };
      assertOk(await c.request('PATCH', podPath('sneaky', 'status'), { body: status, headers: { 'content-type': 'application/merge-patch+json' } }));
      const viaPod = assertStatus(await c.request('GET', podPath(`sneaky:${port}`, 'proxy/metrics')), 400, 'BadRequest');
      assert.equal(viaPod.message, 'address not allowed');

      assertOk(await c.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-sneaky' } } }), 201);
      const node = assertOk(await c.request('GET', '/api/v1/nodes/n-sneaky'));
      assertOk(await c.request('PUT', '/api/v1/nodes/n-sneaky/status', { body: { ...node, status: { addresses: [{ type: 'InternalIP', address: '0:0:0:0:0:ffff:7f00:1' }] } } }));
      assertStatus(await c.request('GET', `/api/v1/nodes/n-sneaky:${port}/proxy/metrics`), 400, 'BadRequest');

      assertOk(
        await c.request('POST', `/api/v1/namespaces/${ns}/services`, {
          body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'numeric' }, spec: { type: 'ExternalName', externalName: '2130706433' } },
        }),
        201,
      );
      assertStatus(await c.request('GET', `/api/v1/namespaces/${ns}/services/numeric:${port}/proxy/metrics`), 400, 'BadRequest');

      assert.equal(hits, 0, 'the loopback listener was never reached');
    } finally {
      metrics.close();
    }
  });

  it('nodes/proxy forwards to a port of the node', async (t) => {
    const ip = hostAddress();
    if (!ip) return t.skip('no non-loopback address on this machine');
    assertOk(await c.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-proxy' } } }), 201);
    const node = assertOk(await c.request('GET', '/api/v1/nodes/n-proxy'));
    assertOk(await c.request('PUT', '/api/v1/nodes/n-proxy/status', { body: { ...node, status: { addresses: [{ type: 'InternalIP', address: ip }] } } }));
    const r = await c.request('GET', `/api/v1/nodes/n-proxy:${backendPort}/proxy/metrics`);
    assert.equal(r.status, 418);
    assert.equal(r.text, 'backend saw GET /metrics');
    assertStatus(await c.request('GET', '/api/v1/nodes/missing/proxy/metrics'), 404, 'NotFound');
  });
});
