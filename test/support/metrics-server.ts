// A small aggregated API server for tests: serves `metrics.k8s.io/v1beta1` (what `kubectl top`
// reads) over HTTPS the way metrics-server does behind the aggregation layer. It trusts the user
// named in X-Remote-User / X-Remote-Group only from a client certificate signed by the front-proxy
// CA it is given (its --requestheader-client-ca-file), answers 401 to anyone else, and records
// every request it gets. Node metrics are whatever the test sets; a watch of nodes streams an
// ADDED event per node and then whatever the test emits, until the client goes.

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

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** Serves on `host` (default all addresses: the API server reaches it through Endpoints, which may not hold a loopback address). */
export async function startMetricsServer(serving: PemPair, frontProxyCAPem: string, opts: { host?: string } = {}): Promise<TestMetricsServer> {
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
    if (r.proxyCN && typeof req.headers['x-remote-user'] === 'string') r.user = req.headers['x-remote-user'];
    received.push(r);
    if (!r.user) return send(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    const url = new URL(r.url, 'https://metrics.test');
    const path = url.pathname.replace(/\/$/, '');
    if (path === BASE) return send(res, 200, RESOURCE_LIST);
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
