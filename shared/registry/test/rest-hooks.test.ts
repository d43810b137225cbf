// The pure decisions of the pod, service and node REST hooks, table by table: which budget an
// eviction asks and what it answers, which container a log or exec addresses, which backend a
// proxy reaches and which addresses it must never reach.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiObject } from '../../api/types.js';
import type { StatusError } from '../../api/status.js';
import { decide, Decision, ignoresBudget, matchingBudgets, recordDisruption } from '../builtin/policy/eviction.js';
import { bindPod, connectOptions, podActions, resolveContainer } from '../builtin/core/pod-rest.js';
import { nodeActions, nodeConnection, pickEndpoint, proxyableIP, serviceActions, splitSchemeNamePort } from '../builtin/core/proxy.js';
import type { RestCluster, RestRequest } from '../types.js';

const pod = (over: Partial<ApiObject> & { ready?: boolean; phase?: string } = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'web' }, ...(over.metadata ?? {}) },
  spec: { containers: [{ name: 'a' }, { name: 'b' }], initContainers: [{ name: 'init' }] },
  status: { phase: over.phase ?? 'Running', conditions: [{ type: 'Ready', status: over.ready === false ? 'False' : 'True' }] },
});
const budget = (status: Partial<{ disruptionsAllowed: number; currentHealthy: number; desiredHealthy: number; observedGeneration: number }>, policy?: string) => ({
  name: 'pdb',
  generation: 2,
  observedGeneration: 2,
  disruptionsAllowed: 0,
  currentHealthy: 3,
  desiredHealthy: 3,
  disruptedPods: {},
  unhealthyPodEvictionPolicy: policy ?? 'IfHealthyBudget',
  resourceVersion: '5',
  ...status,
});

describe('eviction', () => {
  it('matches budgets by selector; an empty selector matches nothing', () => {
    const pdb = (name: string, selector?: object): ApiObject => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: selector ? { selector } : {} });
    const all = [
      pdb('web', { matchLabels: { app: 'web' } }),
      pdb('db', { matchLabels: { app: 'db' } }),
      pdb('empty', {}),
      pdb('none'),
      pdb('expr', { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] }),
    ];
    assert.deepEqual(
      matchingBudgets(pod(), all).map((p) => p.metadata.name),
      ['web', 'expr'],
    );
  });

  const cases: Array<[string, ApiObject, ReturnType<typeof budget>, Decision | number]> = [
    ['allowed: counts the disruption', pod(), budget({ disruptionsAllowed: 1 }), Decision.Decrement],
    ['none allowed: 429', pod(), budget({ disruptionsAllowed: 0 }), 429],
    ['budget not yet observed: 429', pod(), budget({ disruptionsAllowed: 1, observedGeneration: 1 }), 429],
    ['negative: 403', pod(), budget({ disruptionsAllowed: -1 }), 403],
    ['unready pod, healthy budget: deleted without counting', pod({ ready: false }), budget({ disruptionsAllowed: 0 }), Decision.Delete],
    ['unready pod, unhealthy budget: 429', pod({ ready: false }), budget({ disruptionsAllowed: 0, currentHealthy: 1 }), 429],
    ['unready pod, AlwaysAllow: deleted', pod({ ready: false }), budget({ disruptionsAllowed: 0, currentHealthy: 1 }, 'AlwaysAllow'), Decision.Delete],
  ];
  for (const [name, p, b, want] of cases) {
    it(name, () => {
      if (typeof want === 'number')
        assert.throws(
          () => decide(p, b),
          (e: StatusError) => e.code === want,
        );
      else assert.equal(decide(p, b), want);
    });
  }

  it('finished, pending and deleting pods go without asking a budget', () => {
    assert.equal(ignoresBudget(pod({ phase: 'Succeeded' })), true);
    assert.equal(ignoresBudget(pod({ phase: 'Failed' })), true);
    assert.equal(ignoresBudget(pod({ phase: 'Pending' })), true);
    assert.equal(ignoresBudget(pod({ metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:00Z' } })), true);
    assert.equal(ignoresBudget(pod()), false);
  });

  it('records the disruption without touching the input', () => {
    const pdb: ApiObject = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb' }, status: { disruptionsAllowed: 2, disruptedPods: { old: 't0' } } };
    const next = recordDisruption(pdb, 'p', 't1');
    assert.deepEqual(next.status, { disruptionsAllowed: 1, disruptedPods: { old: 't0', p: 't1' } });
    assert.deepEqual(pdb.status, { disruptionsAllowed: 2, disruptedPods: { old: 't0' } });
  });
});

describe('pod connect and binding', () => {
  const cases: Array<[string, ApiObject, string | null, string]> = [
    ['the named container', pod(), 'b', 'b'],
    ['an init container by name', pod(), 'init', 'init'],
    ['the only container', { ...pod(), spec: { containers: [{ name: 'solo' }] } }, null, 'solo'],
  ];
  for (const [name, p, requested, want] of cases) it(name, () => assert.equal(resolveContainer(p, requested), want));

  it('ambiguous, unknown and missing containers are 400 with upstream texts', () => {
    assert.throws(
      () => resolveContainer(pod(), null),
      (e: StatusError) => e.code === 400 && e.message === 'a container name must be specified for pod p, choose one of: [a b] or one of the init containers: [init]',
    );
    assert.throws(
      () => resolveContainer(pod(), 'zz'),
      (e: StatusError) => e.code === 400 && e.message === 'container zz is not valid for pod p',
    );
    assert.throws(
      () => resolveContainer({ ...pod(), spec: {} }, null),
      (e: StatusError) => e.message === 'a container name must be specified for pod p',
    );
  });

  it('binding sets the node, merges annotations and replaces PodScheduled', () => {
    const p = pod({ metadata: { name: 'p', annotations: { keep: '1' } } });
    (p.status as { conditions: unknown[] }).conditions.push({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' });
    const b = bindPod(p, 'n1', { 'scheduler/hint': 'x' }, 't');
    assert.equal((b.spec as { nodeName: string }).nodeName, 'n1');
    assert.deepEqual(b.metadata.annotations, { keep: '1', 'scheduler/hint': 'x' });
    const conds = (b.status as { conditions: Array<{ type: string; status: string }> }).conditions;
    assert.deepEqual(
      conds.filter((c) => c.type === 'PodScheduled').map((c) => c.status),
      ['True'],
    );
    assert.equal((p.spec as { nodeName?: string }).nodeName, undefined, 'input untouched');
  });
});

describe('proxy', () => {
  const ips: Array<[string, boolean]> = [
    ['10.0.0.7', true],
    ['192.168.1.2', true],
    ['127.0.0.1', false],
    ['127.8.9.1', false],
    ['0.0.0.0', false],
    ['169.254.169.254', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['0:0:0:0:0:ffff:7f00:1', false],
    ['::FFFF:A9FE:A9FE', false],
    ['::7f00:1', false],
    ['64:ff9b::7f00:1', false],
    ['fe80::1%eth0', false],
    ['2130706433', false],
    ['0x7f.1', false],
    ['ff02::1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['2001:db8::1', true],
    ['::ffff:10.0.0.1', true],
    ['not-an-ip', false],
  ];
  for (const [ip, ok] of ips) it(`${ip} is ${ok ? '' : 'not '}proxyable`, () => assert.equal(proxyableIP(ip), ok));

  it('splits [scheme:]name[:port]', () => {
    assert.deepEqual(splitSchemeNamePort('svc'), ['', 'svc', '']);
    assert.deepEqual(splitSchemeNamePort('svc:http'), ['', 'svc', 'http']);
    assert.deepEqual(splitSchemeNamePort('https:svc:443'), ['https', 'svc', '443']);
    assert.throws(
      () => splitSchemeNamePort('ftp:svc:21'),
      (e: StatusError) => e.code === 400,
    );
    assert.throws(
      () => splitSchemeNamePort('a:b:c:d'),
      (e: StatusError) => e.code === 400,
    );
  });

  it('picks a ready address of the named port', () => {
    const ep: ApiObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 's' },
      subsets: [
        {
          addresses: [{ ip: '10.0.0.1' }],
          notReadyAddresses: [{ ip: '10.0.0.9' }],
          ports: [
            { name: 'http', port: 8080 },
            { name: 'metrics', port: 9090 },
          ],
        },
      ],
    } as ApiObject;
    assert.deepEqual(pickEndpoint(ep, 'metrics'), { host: '10.0.0.1', port: 9090 });
    assert.equal(pickEndpoint(ep, 'grpc'), undefined);
  });

  it("reaches a node at its preferred address and its agent's port", () => {
    const node = (addresses: object[], port?: number): ApiObject => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n' },
      status: { addresses, ...(port ? { daemonEndpoints: { kubeletEndpoint: { Port: port } } } : {}) },
    });
    assert.deepEqual(
      nodeConnection(
        node(
          [
            { type: 'ExternalIP', address: '1.2.3.4' },
            { type: 'InternalIP', address: '10.0.0.2' },
          ],
          10255,
        ),
      ),
      { host: '10.0.0.2', port: 10255 },
    );
    assert.deepEqual(nodeConnection(node([])), { host: '', port: 10250 });
  });
});

describe('connect admission', () => {
  const request = (subresource: string, query: string, subpath = '') => ({ subresource, subpath, query: new URLSearchParams(query) }) as unknown as Parameters<typeof connectOptions>[0];
  const cases: Array<[string, ReturnType<typeof request>, ReturnType<typeof connectOptions>]> = [
    [
      'exec: streams, container and every command word',
      request('exec', 'command=sh&command=-c&command=ls%20/&stdin=true&stdout=1&stderr=false&tty=true&container=app'),
      { kind: 'PodExecOptions', options: { stdin: true, stdout: true, stderr: false, tty: true, container: 'app', command: ['sh', '-c', 'ls /'] } },
    ],
    ['attach: no command', request('attach', 'stdin=true'), { kind: 'PodAttachOptions', options: { stdin: true, stdout: false, stderr: false, tty: false } }],
    ['portforward: repeated and comma-separated ports', request('portforward', 'ports=8080,9090&ports=53'), { kind: 'PodPortForwardOptions', options: { ports: [8080, 9090, 53] } }],
    ['proxy: the path below the subresource', request('proxy', '', 'api/healthz'), { kind: 'PodProxyOptions', options: { path: '/api/healthz' } }],
  ];
  for (const [name, req, want] of cases) it(name, () => assert.deepEqual(connectOptions(req), want));
});

describe('proxy - every path refuses a loopback address in another spelling', () => {
  // A real listener on loopback: a refused request must never reach it.
  let server: http.Server;
  let port: number;
  let hits = 0;
  before(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.end('loopback metrics');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  const cluster = (objects: Record<string, ApiObject>): RestCluster =>
    ({
      get: async (_g: string, resource: string, _ns: string | undefined, name: string) => objects[`${resource}/${name}`],
      admit: async () => null,
      hijack: () => assert.fail('the proxy connected'),
    }) as unknown as RestCluster;
  const request = (name: string): RestRequest =>
    ({ method: 'GET', verb: 'get', namespace: 'ns', name, subresource: 'proxy', subpath: 'metrics', query: new URLSearchParams(), headers: {}, body: undefined }) as unknown as RestRequest;
  const refused = (e: StatusError) => e.code === 400 && e.status.message === 'address not allowed';

  for (const ip of ['::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::FFFF:127.0.0.1', '::7f00:1', '2130706433', '0x7f.1']) {
    it(`services: stored Endpoints at ${ip}`, async () => {
      const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ name: 'http', port: 80 }] } } as ApiObject;
      const ep = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 's' }, subsets: [{ addresses: [{ ip }], ports: [{ name: 'http', port }] }] } as ApiObject;
      await assert.rejects(serviceActions.proxy!.handle(request('s'), cluster({ 'services/s': svc, 'endpoints/s': ep })), refused);
    });
    it(`pods: status.podIP ${ip}`, async () => {
      const p = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }] }, status: { podIP: ip } } as ApiObject;
      await assert.rejects(podActions.proxy!.handle(request(`p:${port}`), cluster({ 'pods/p': p })), refused);
    });
    it(`nodes: InternalIP ${ip}`, async () => {
      const n = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: { addresses: [{ type: 'InternalIP', address: ip }] } } as ApiObject;
      await assert.rejects(nodeActions.proxy!.handle(request(`n:${port}`), cluster({ 'nodes/n': n })), refused);
    });
  }

  it('services: an ExternalName spelling loopback as a number', async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' }, spec: { type: 'ExternalName', externalName: '2130706433' } } as ApiObject;
    await assert.rejects(serviceActions.proxy!.handle(request(`x:${port}`), cluster({ 'services/x': svc })), refused);
  });

  it('nothing reached the listener', () => assert.equal(hits, 0));
});
