// The proxy subresources (`services/<name>/proxy`, `nodes/<name>/proxy`, and the forwarding under
// `pods/<name>/proxy`): the request is forwarded to the backend's address and the answer streamed
// back, as upstream's proxy handlers do. As upstream, loopback, link-local and unspecified
// addresses are refused (and multicast and broadcast), in whatever spelling: a proxy must never
// reach the API server's own host or the cloud's metadata service.

import http from 'node:http';
import https from 'node:https';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { canonicalIP, proxyableIP } from '../../../api/special-ip.js';
import type { ApiObject } from '../../../api/types.js';
import { badRequest, failure, notFound, StatusReason } from '../../../api/status.js';
import { admitConnect } from '../../rest/hooks.js';
import { type RestAction, type RestCluster, type RestRequest, type RestResult } from '../../types.js';
import { asArray, asObject } from '../common/field-errors.js';

// Every proxy (and the aggregation proxy) checks addresses with the one pure rule.
export { canonicalIP, proxyableIP };

export interface Backend {
  scheme: string;
  host: string;
  port: number;
}

const PROXY_TIMEOUT_MS = 30_000;
// Hop-by-hop headers end at each hop; the client's credentials were consumed by the gateway.
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

function unavailable(message: string) {
  return failure(503, StatusReason.ServiceUnavailable, message);
}

/**
 * The address a proxy connects to for `host`: the address itself, or the first one the name
 * resolves to. Refused (400, as upstream) unless every address is proxyable, so that a name with
 * one public and one loopback address cannot be used either.
 */
export async function proxyAddress(host: string): Promise<string> {
  const literal = canonicalIP(host);
  const addresses = literal ? [literal] : (await lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw unavailable(`error trying to reach service: cannot resolve ${host}`);
  if (!addresses.every(proxyableIP)) throw badRequest('address not allowed');
  return addresses[0]!;
}

/**
 * Answers every lookup with the address already checked: the connection goes where the check
 * looked, with no second resolution a rebinding DNS server could answer differently. (An IP
 * literal is not looked up at all; this catches names and inet_aton spellings like `0x0a.1`.)
 */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family));
}

/** `[scheme:]name[:port]`, as proxy subresources address their target. */
export function splitSchemeNamePort(id: string): [scheme: string, name: string, port: string] {
  const parts = id.split(':');
  let out: [string, string, string];
  if (parts.length === 1) out = ['', parts[0]!, ''];
  else if (parts.length === 2) out = ['', parts[0]!, parts[1]!];
  else if (parts.length === 3) out = [parts[0]!, parts[1]!, parts[2]!];
  else throw badRequest(`invalid proxy target ${JSON.stringify(id)}`);
  if (!['', 'http', 'https'].includes(out[0]) || !out[1]) throw badRequest(`invalid proxy target ${JSON.stringify(id)}`);
  return out;
}

/** Forwards the request to `backend` and streams the answer back. */
export async function forward(req: RestRequest, cluster: RestCluster, backend: Backend): Promise<RestResult> {
  const address = await proxyAddress(backend.host);
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) headers[k] = v;
  const query = req.query.toString();
  const path = `/${req.subpath}${query ? `?${query}` : ''}`;
  const lib = backend.scheme === 'https' ? https : http;
  const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const out = lib.request({ host: backend.host, lookup: pinnedLookup(address), port: backend.port, method: req.method, path, headers, timeout: PROXY_TIMEOUT_MS }, resolve);
    out.on('timeout', () => out.destroy(new Error('timed out')));
    out.on('error', (err) => reject(unavailable(`error trying to reach service: ${err.message}`)));
    out.end(req.body && req.body.length ? req.body : undefined);
  });
  const res = cluster.hijack();
  const back: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) back[k] = v;
  res.writeHead(answer.statusCode ?? 502, back);
  answer.pipe(res);
  res.on('close', () => answer.destroy());
  return { streamed: true };
}

/** A node's agent address: its preferred status address and kubelet port (upstream's order of address types). */
export function nodeConnection(node: ApiObject): { host: string; port: number } {
  const status = asObject(node.status) ?? {};
  const addresses = asArray(status.addresses).map((a) => asObject(a) ?? {});
  let host = '';
  for (const type of ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']) {
    const a = addresses.find((x) => x.type === type && typeof x.address === 'string' && x.address);
    if (a) {
      host = String(a.address);
      break;
    }
  }
  const port = Number(asObject(asObject(asObject(status.daemonEndpoints)?.kubeletEndpoint) ?? {})?.Port ?? 10250) || 10250;
  return { host, port };
}

/** The path a proxy request forwards to, as its options object carries it. */
export function proxyPath(req: RestRequest): string {
  return req.subpath ? `/${req.subpath}` : '';
}

/** services/<[scheme:]name[:port]>/proxy/<path>: to a ready endpoint address of the service port. */
const serviceProxy: RestAction = {
  verbs: ['create', 'delete', 'get', 'patch', 'update'],
  async handle(req, cluster) {
    await admitConnect(cluster, 'ServiceProxyOptions', { path: proxyPath(req) });
    const [scheme, name, portName] = splitSchemeNamePort(req.name);
    const svc = await cluster.get('', 'services', req.namespace, name);
    if (!svc) throw notFound({ group: '', resource: 'services' }, name);
    const spec = asObject(svc.spec) ?? {};
    if (spec.type === 'ExternalName') {
      const port = portName ? Number(portName) : 80;
      return forward(req, cluster, { scheme: scheme || 'http', host: String(spec.externalName ?? ''), port });
    }
    const ports = asArray(spec.ports).map((p) => asObject(p) ?? {});
    const svcPort = portName === '' && ports.length === 1 ? ports[0] : ports.find((p) => p.name === portName || String(p.port) === portName);
    if (!svcPort) throw unavailable(`no service port ${JSON.stringify(portName)} found for service ${JSON.stringify(name)}`);
    const endpoints = await cluster.get('', 'endpoints', req.namespace, name);
    const backend = endpoints && pickEndpoint(endpoints, String(svcPort.name ?? ''));
    if (!backend) throw unavailable(`no endpoints available for service ${JSON.stringify(name)}`);
    return forward(req, cluster, { scheme: scheme || 'http', ...backend });
  },
};

/** A ready address of an Endpoints object for the named port (a random one, spreading load as upstream). */
export function pickEndpoint(endpoints: ApiObject, portName: string): { host: string; port: number } | undefined {
  const candidates: Array<{ host: string; port: number }> = [];
  for (const s of asArray((endpoints as { subsets?: unknown }).subsets)) {
    const subset = asObject(s) ?? {};
    const port = asArray(subset.ports)
      .map((p) => asObject(p) ?? {})
      .find((p) => String(p.name ?? '') === portName);
    if (!port) continue;
    for (const a of asArray(subset.addresses)) {
      const ip = asObject(a)?.ip;
      if (typeof ip === 'string' && ip) candidates.push({ host: ip, port: Number(port.port) });
    }
  }
  return candidates.length ? candidates[Math.floor(Math.random() * candidates.length)] : undefined;
}

/** nodes/<[scheme:]name[:port]>/proxy/<path>: to the node's agent, or to another port of the node. */
const nodeProxy: RestAction = {
  verbs: ['create', 'delete', 'get', 'patch', 'update'],
  async handle(req, cluster) {
    await admitConnect(cluster, 'NodeProxyOptions', { path: proxyPath(req) });
    const [scheme, name, portName] = splitSchemeNamePort(req.name);
    const node = await cluster.get('', 'nodes', undefined, name);
    if (!node) throw notFound({ group: '', resource: 'nodes' }, name);
    const { host, port: agentPort } = nodeConnection(node);
    if (!host) throw unavailable(`node ${JSON.stringify(name)} has no address`);
    const port = portName ? Number(portName) : agentPort;
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw badRequest(`invalid port ${JSON.stringify(portName)}`);
    // The agent speaks HTTPS; another port of the node, plain HTTP unless asked otherwise.
    return forward(req, cluster, { scheme: scheme || (port === agentPort ? 'https' : 'http'), host, port });
  },
};

export const serviceActions: Readonly<Record<string, RestAction>> = { proxy: serviceProxy };
export const nodeActions: Readonly<Record<string, RestAction>> = { proxy: nodeProxy };
