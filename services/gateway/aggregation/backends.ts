// How the gateway reaches the backend of a remote APIService, as kube-aggregator's proxy transport
// does: HTTPS to one ready address of the Service's Endpoints (read from the watch cache, under the
// shared rule that never dials the host's own addresses), the serving certificate checked against
// spec.caBundle for `<service>.<namespace>.svc` unless spec.insecureSkipTLSVerify, and the gateway
// presenting its front-proxy client certificate (`--proxy-client-cert-file`). The user rides in
// the authenticating-proxy headers, which the backend trusts because of that certificate.
// Connections are kept alive per APIService; a changed APIService gets a new pool and the old one
// lets its open streams (watches, upgraded connections) finish. An upgrade request goes the same way,
// its switched connection handed to the caller.

import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { pickAddress, resolveServiceEndpoints, type ServiceAddress } from '../../../shared/api/service-endpoints.js';
import { resourceKey } from '../../../shared/api/resource-key.js';
import type { UserInfo } from '../../../shared/api/types.js';
import { serviceHostName, type RemoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';
import type { WatchCache } from '../../../shared/store/watch-cache.js';

/** `--proxy-client-cert-file` / `--proxy-client-key-file`, read. */
export interface ProxyClientCertificate {
  cert: string;
  key: string;
}

export interface BackendRequest {
  method: string;
  /** Path and query, as the client sent them. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** How long to wait for the response's headers (a stream's body may then take as long as it likes). */
  headersTimeoutMs: number;
  signal?: AbortSignal;
}

/** The backend's answer; `switched` when it switched protocols (101) on an upgrade request. */
export interface BackendAnswer {
  response: IncomingMessage;
  switched?: { socket: Duplex; head: Buffer };
}

/** Why a backend could not be asked: no address to dial, or the connection failed before an answer. */
export class BackendUnreachable extends Error {
  override name = 'BackendUnreachable';
}

// The authenticating-proxy headers (upstream's defaults, which `--requestheader-*` of an
// aggregated server name): a client's own are never passed on.
/** The headers as upstream spells them (and publishes them in extension-apiserver-authentication). */
export const FRONT_PROXY_USER_HEADER = 'X-Remote-User';
export const FRONT_PROXY_GROUP_HEADER = 'X-Remote-Group';
export const FRONT_PROXY_EXTRA_PREFIX = 'X-Remote-Extra-';
const REMOTE_USER = FRONT_PROXY_USER_HEADER.toLowerCase();
const REMOTE_GROUP = FRONT_PROXY_GROUP_HEADER.toLowerCase();
const REMOTE_EXTRA = FRONT_PROXY_EXTRA_PREFIX.toLowerCase();

/** Whether a request header is one the proxy sets itself (so a client's copy is dropped). */
export function isAuthProxyHeader(name: string): boolean {
  return name === REMOTE_USER || name === REMOTE_GROUP || name.startsWith(REMOTE_EXTRA) || name === 'x-remote-uid';
}

// A header name byte is a token character; anything else, and `%`, is percent-encoded, as upstream
// escapes extra keys so that any key survives the trip and decodes back.
const TOKEN = /^[!#$&'*+\-.^_`|~0-9A-Za-z]$/;
function headerKeyEscape(key: string): string {
  let out = '';
  for (const b of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && c !== '%' && TOKEN.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The headers naming `user` to a backend: X-Remote-User, one X-Remote-Group per group, X-Remote-Extra-<key> per value. */
export function authProxyHeaders(user: UserInfo): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { [REMOTE_USER]: user.username };
  if (user.groups.length) headers[REMOTE_GROUP] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) if (values.length) headers[`${REMOTE_EXTRA}${headerKeyEscape(key)}`] = [...values];
  return headers;
}

/** Why the Service of `api` has no address to dial, in upstream's words where it has them. */
function unresolvable(api: RemoteApiService, why: string): BackendUnreachable {
  return new BackendUnreachable(`service/${api.service.name} in "${api.service.namespace}": ${why}`);
}

interface Pool {
  /** What the pool's TLS settings were made from: a different one needs a new pool. */
  signature: string;
  agent: https.Agent;
}

export class ApiServiceBackends {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly cache: WatchCache,
    private readonly clientCertificate: ProxyClientCertificate | undefined,
  ) {}

  /** A ready address of the APIService's Service, from the watch cache; BackendUnreachable when there is none. */
  resolve(api: RemoteApiService): ServiceAddress {
    const { namespace, name, port } = api.service;
    const svc = this.cache.get(resourceKey('', 'services'), namespace, name)?.object;
    if (!svc) throw unresolvable(api, 'not found');
    const r = resolveServiceEndpoints(svc, this.cache.get(resourceKey('', 'endpoints'), namespace, name)?.object, port);
    if (r.kind === 'ok') return pickAddress(r.addresses);
    if (r.kind === 'unsupported-type') throw unresolvable(api, `unsupported service type "${r.type}"`);
    if (r.kind === 'no-port') throw unresolvable(api, `no service port ${port}`);
    throw unresolvable(api, 'no endpoints available');
  }

  /** Sends one request to the backend; resolves with its answer once the headers are in. */
  async open(api: RemoteApiService, r: BackendRequest): Promise<IncomingMessage> {
    return (await this.dial(api, r, false)).response;
  }

  /**
   * Sends an upgrade request (its Connection and Upgrade headers in `r.headers`): resolves with the
   * backend's 101 and the switched connection, or with whatever else it answered (a refusal).
   */
  openUpgrade(api: RemoteApiService, r: BackendRequest): Promise<BackendAnswer> {
    return this.dial(api, r, true);
  }

  private dial(api: RemoteApiService, r: BackendRequest, upgrade: boolean): Promise<BackendAnswer> {
    const address = this.resolve(api);
    const agent = this.poolFor(api);
    return new Promise((resolve, reject) => {
      const out = https.request({
        host: address.host,
        port: address.port,
        servername: serviceHostName(api.service),
        agent,
        method: r.method,
        path: r.path,
        headers: r.headers,
        ...(r.signal ? { signal: r.signal } : {}),
      });
      const timer = setTimeout(() => out.destroy(new Error(`no response within ${r.headersTimeoutMs / 1000}s`)), r.headersTimeoutMs);
      const answered = (a: BackendAnswer) => {
        clearTimeout(timer);
        resolve(a);
      };
      out.once('response', (response) => answered({ response }));
      // The switched connection leaves the pool (Node takes it off the agent) and is the caller's to close.
      if (upgrade) out.once('upgrade', (response, socket: Duplex, head: Buffer) => answered({ response, switched: { socket, head } }));
      out.once('error', (err) => {
        clearTimeout(timer);
        reject(new BackendUnreachable(`${address.host}:${address.port}: ${err.message}`, { cause: err }));
      });
      out.end(r.body && r.body.length ? r.body : undefined);
    });
  }

  /** The APIService's connection pool, made again when its TLS settings changed. */
  private poolFor(api: RemoteApiService): https.Agent {
    const signature = JSON.stringify([api.service, api.caPem, api.insecureSkipTLSVerify]);
    const pool = this.pools.get(api.name);
    if (pool?.signature === signature) return pool.agent;
    if (pool) retire(pool.agent);
    const agent = new https.Agent({
      keepAlive: true,
      rejectUnauthorized: !api.insecureSkipTLSVerify,
      ...(api.caPem && !api.insecureSkipTLSVerify ? { ca: api.caPem } : {}),
      ...(this.clientCertificate ? { cert: this.clientCertificate.cert, key: this.clientCertificate.key } : {}),
    });
    this.pools.set(api.name, { signature, agent });
    return agent;
  }

  /** Forgets the pools of APIServices no longer remote (their open streams finish). */
  keepOnly(names: ReadonlySet<string>): void {
    for (const [name, pool] of this.pools) {
      if (names.has(name)) continue;
      retire(pool.agent);
      this.pools.delete(name);
    }
  }

  close(): void {
    for (const pool of this.pools.values()) pool.agent.destroy();
    this.pools.clear();
  }
}

/** Idle connections close now; busy ones (a watch) close when their request ends instead of returning to the pool. */
function retire(agent: https.Agent): void {
  agent.keepSocketAlive = () => false;
  for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
}

/** Response headers a proxy does not pass on: the hop's own, and the gateway's audit ID (it sets its own). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'audit-id']);

/** The backend's response headers a client should see. */
export function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}
