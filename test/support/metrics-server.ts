// A small aggregated API server for tests: serves `metrics.k8s.io/v1beta1` (what `kubectl top`
// reads) over HTTPS the way metrics-server does behind the aggregation layer. It trusts the user
// named in X-Remote-User / X-Remote-Group only from a client certificate signed by the front-proxy
// CA it is given (its --requestheader-client-ca-file) and, when it is given names, carrying one of
// them as CN (its --requestheader-allowed-names), answers 401 to anyone else, and records
// every request it gets. Node metrics are whatever the test sets; a watch of nodes streams an
// ADDED event per node and then whatever the test emits, until the client goes. It serves its
// OpenAPI (v2 and v3) for the gateway to merge into its own.

import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { PemPair } from '../../shared/local/pki.js';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';
const GV = `${METRICS_GROUP}/${METRICS_VERSION}`;
const BASE = `/apis/${GV}`;

export interface NodeUsage {
  cpu: string;
  memory: string;
}

export interface MetricsRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** Name/value pairs as sent: a header sent several times is there several times. */
  rawHeaders: string[];
  /** CN of a client certificate that chains to the front-proxy CA; undefined without one. */
  proxyCN?: string;
  /** X-Remote-User, when a verified front proxy named one. */
  user?: string;
}

export interface TestMetricsServer {
  port: number;
  /** Every request, oldest first. */
  received: MetricsRequest[];
  /** Node name → its usage, as NodeMetrics report it. */
  nodes: Map<string, NodeUsage>;
  /** Sends a watch event to every open watch of nodes. */
  emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', node: string): void;
  /** Open watches of nodes. */
  watchers(): number;
  close(): Promise<void>;
}

const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: GV,
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
  ],
};

// Its OpenAPI, as metrics-server serves it (trimmed): NodeMetrics with its usage, one list path.
const NODE_METRICS_DEF = 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics';
// kubectl explain finds a resource's kind on its path's operation.
const GVK = { group: METRICS_GROUP, version: METRICS_VERSION, kind: 'NodeMetrics' };
const NODE_METRICS_SCHEMA = {
  description: 'NodeMetrics sets resource usage metrics of a node.',
  type: 'object',
  required: ['timestamp', 'window', 'usage'],
  properties: {
    apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
    kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
    timestamp: { description: 'The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].', type: 'string', format: 'date-time' },
    window: { description: 'How long the metrics were collected over.', type: 'string' },
    usage: { description: 'The memory usage is the memory working set.', type: 'object', additionalProperties: { type: 'string' } },
  },
  'x-kubernetes-group-version-kind': [{ group: METRICS_GROUP, version: METRICS_VERSION, kind: 'NodeMetrics' }],
};
const listNodes = (ref: string) => ({
  get: { operationId: 'listMetricsV1beta1NodeMetrics', responses: { '200': { description: 'OK', schema: { $ref: ref } } }, 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': GVK },
});
export const METRICS_OPENAPI_V2 = {
  swagger: '2.0',
  info: { title: 'metrics', version: 'v0.6.4' },
  paths: { [`${BASE}/nodes`]: listNodes(`#/definitions/${NODE_METRICS_DEF}`), '/apis/other.example.com/v1/things': {} },
  definitions: { [NODE_METRICS_DEF]: NODE_METRICS_SCHEMA },
};
const METRICS_OPENAPI_V3 = {
  openapi: '3.0.0',
  info: { title: 'metrics', version: 'v0.6.4' },
  paths: {
    [`${BASE}/nodes`]: {
      get: {
        operationId: 'listMetricsV1beta1NodeMetrics',
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${NODE_METRICS_DEF}` } } } } },
        'x-kubernetes-action': 'list',
        'x-kubernetes-group-version-kind': GVK,
      },
    },
  },
  components: { schemas: { [NODE_METRICS_DEF]: NODE_METRICS_SCHEMA } },
};

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** Serves on `host` (default all addresses: the API server reaches it through Endpoints, which may not hold a loopback address). */
export async function startMetricsServer(serving: PemPair, frontProxyCAPem: string, opts: { host?: string; allowedNames?: string[] } = {}): Promise<TestMetricsServer> {
  const received: MetricsRequest[] = [];
  const nodes = new Map<string, NodeUsage>();
  const watches = new Set<ServerResponse>();
  const nodeMetrics = (name: string, usage: NodeUsage) => ({
    kind: 'NodeMetrics',
    apiVersion: GV,
    metadata: { name, creationTimestamp: new Date().toISOString() },
    timestamp: new Date().toISOString(),
    window: '10s',
    usage,
  });
  const watchEvent = (type: string, name: string) => `${JSON.stringify({ type, object: nodeMetrics(name, nodes.get(name) ?? { cpu: '0', memory: '0' }) })}\n`;

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.authorized ? socket.getPeerCertificate() : undefined;
    const r: MetricsRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders };
    if (peer && typeof peer.subject?.CN === 'string') r.proxyCN = peer.subject.CN;
    const allowed = !opts.allowedNames?.length || (r.proxyCN !== undefined && opts.allowedNames.includes(r.proxyCN));
    if (r.proxyCN && allowed && typeof req.headers['x-remote-user'] === 'string') r.user = req.headers['x-remote-user'];
    received.push(r);
    if (!r.user) return send(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    const url = new URL(r.url, 'https://metrics.test');
    const path = url.pathname.replace(/\/$/, '');
    if (path === BASE) return send(res, 200, RESOURCE_LIST);
    if (path === '/openapi/v2') return send(res, 200, METRICS_OPENAPI_V2);
    if (path === '/openapi/v3') return send(res, 200, { paths: { [`apis/${GV}`]: { serverRelativeURL: `/openapi/v3/apis/${GV}?hash=0123` } } });
    if (path === `/openapi/v3/apis/${GV}`) return send(res, 200, METRICS_OPENAPI_V3);
    if (path === `${BASE}/nodes` && url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      watches.add(res);
      res.on('close', () => watches.delete(res));
      for (const name of nodes.keys()) res.write(watchEvent('ADDED', name));
      return;
    }
    if (path === `${BASE}/nodes`) return send(res, 200, { kind: 'NodeMetricsList', apiVersion: GV, metadata: {}, items: [...nodes].map(([n, u]) => nodeMetrics(n, u)) });
    const one = path.startsWith(`${BASE}/nodes/`) ? path.slice(`${BASE}/nodes/`.length) : undefined;
    if (one !== undefined) {
      const usage = nodes.get(one);
      return usage ? send(res, 200, nodeMetrics(one, usage)) : send(res, 404, status(404, 'NotFound', `nodemetrics.metrics.k8s.io "${one}" not found`));
    }
    if (path === `${BASE}/pods` || /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/[^/]+\/pods$/.test(path))
      return send(res, 200, { kind: 'PodMetricsList', apiVersion: GV, metadata: {}, items: [] });
    return send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  };

  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: frontProxyCAPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    req.resume();
    req.on('end', () => serve(req, res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    received,
    nodes,
    emit: (type, node) => {
      for (const res of watches) res.write(watchEvent(type, node));
    },
    watchers: () => watches.size,
    close: async () => {
      for (const res of watches) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
