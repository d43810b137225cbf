// A REST client of the API over HTTPS with a client configuration's trust and credentials: JSON
// requests whose non-2xx answers become `ApiError`s carrying the server's Status, and watches read
// as a stream of events. Controllers, tests and tools use it as client-go is used upstream.

import https from 'node:https';
import http from 'node:http';
import type { ApiObject } from '../api/types.js';
import type { ClientConfig } from './config.js';
import { authorizationSource } from './credentials.js';
import { ExecCredentials } from './exec.js';
import { OidcCredentials } from './oidc.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface Status {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: Record<string, unknown>;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: number,
    readonly status: Status,
  ) {
    super(status.message || `HTTP ${code}`);
  }

  get reason(): string {
    return this.status.reason ?? '';
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404;
export const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409;
export const isAlreadyExists = (err: unknown): boolean => err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists';
export const isGone = (err: unknown): boolean => err instanceof ApiError && err.code === 410;

export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** `/api/v1/...` or `/apis/<g>/<v>/...` of a collection, an object or a subresource. */
export function resourcePath(r: ResourceRef): string {
  let p = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  if (r.namespace) p += `/namespaces/${encodeURIComponent(r.namespace)}`;
  p += `/${r.resource}`;
  if (r.name !== undefined) p += `/${encodeURIComponent(r.name)}`;
  if (r.subresource) p += `/${r.subresource}`;
  return p;
}

/** Metadata-only reads (what the garbage collector and other metadata informers ask for). */
export const PARTIAL_OBJECT_METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
export const PARTIAL_OBJECT_METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

export interface WatchEvent<T = ApiObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** The Accept header (default JSON); `as=PartialObjectMetadata…` for metadata-only reads. */
  accept?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Supplies the credential headers of each request; the REST client calls it every time (tokens rotate). */
export type Credentials = () => Promise<Record<string, string>>;

function staticOrFileToken(cfg: ClientConfig): Credentials {
  const auth = authorizationSource(cfg);
  return async (): Promise<Record<string, string>> => {
    const value = await auth();
    return value ? { Authorization: value } : {};
  };
}

export interface ApiClientOptions {
  userAgent?: string;
  /** Credentials other than the configuration's own (its exec plugin or OIDC provider are used by default). */
  credentials?: Credentials;
  /** The TLS client certificate and key, when a credential plugin supplies them. */
  clientCert?: () => Promise<{ certPem: string; keyPem: string } | undefined>;
  /** Called on a 401 before the request is tried once more (cached credentials are dropped). */
  onUnauthorized?: () => void;
}

/** The options a configuration's own credential source implies: its exec plugin or its OIDC provider. */
function pluginOptions(cfg: ClientConfig): Partial<ApiClientOptions> {
  if (cfg.exec) {
    const ec = new ExecCredentials(cfg.exec, cfg.cluster);
    return { credentials: () => ec.headers(), clientCert: () => ec.clientCert(), onUnauthorized: () => ec.invalidate() };
  }
  if (cfg.authProvider) {
    const oidc = new OidcCredentials(cfg.authProvider);
    return { credentials: () => oidc.headers(), onUnauthorized: () => oidc.invalidate() };
  }
  return {};
}

export class ApiClient {
  readonly namespace: string;
  private agent: https.Agent | http.Agent;
  private agentCert: string | undefined;
  private readonly credentials: Credentials;
  private readonly opts: ApiClientOptions;
  private closed = false;

  constructor(
    readonly config: ClientConfig,
    opts: ApiClientOptions = {},
  ) {
    this.opts = { ...pluginOptions(config), ...opts };
    this.namespace = config.namespace;
    this.credentials = this.opts.credentials ?? staticOrFileToken(config);
    this.agent = this.newAgent(config.clientCertPem && config.clientKeyPem ? { certPem: config.clientCertPem, keyPem: config.clientKeyPem } : undefined);
  }

  private newAgent(cert: { certPem: string; keyPem: string } | undefined): https.Agent | http.Agent {
    this.agentCert = cert?.certPem;
    if (this.config.server.protocol === 'http:') return new http.Agent({ keepAlive: true });
    const o: https.AgentOptions = { keepAlive: true, rejectUnauthorized: !this.config.insecureSkipTlsVerify };
    if (this.config.caPem) o.ca = this.config.caPem;
    if (cert) Object.assign(o, { cert: cert.certPem, key: cert.keyPem });
    if (this.config.tlsServerName) o.servername = this.config.tlsServerName;
    return new https.Agent(o);
  }

  /** A changed client certificate (a plugin rotated it) means a new TLS session: a new agent. */
  private async currentAgent(): Promise<https.Agent | http.Agent> {
    if (!this.opts.clientCert) return this.agent;
    const cert = await this.opts.clientCert();
    if (cert?.certPem !== this.agentCert) {
      this.agent.destroy();
      this.agent = this.newAgent(cert);
    }
    return this.agent;
  }

  private url(path: string, query: RequestOptions['query']): URL {
    const u = new URL(path, this.config.server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u;
  }

  private async open(method: string, path: string, o: RequestOptions): Promise<http.IncomingMessage> {
    if (this.closed) throw new Error('the API client is closed');
    const url = this.url(path, o.query);
    const headers: Record<string, string> = { Accept: o.accept ?? 'application/json', ...(await this.credentials()) };
    if (this.opts.userAgent) headers['User-Agent'] = this.opts.userAgent;
    let payload: string | undefined;
    if (o.body !== undefined) {
      payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      headers['Content-Type'] = o.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const agent = await this.currentAgent();
    const mod = url.protocol === 'http:' ? http : https;
    return new Promise((resolve, reject) => {
      const req = mod.request(url, { method, agent, headers, ...(o.signal ? { signal: o.signal } : {}) }, resolve);
      req.on('error', reject);
      if (o.timeoutMs !== 0) {
        req.setTimeout(o.timeoutMs ?? DEFAULT_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${url.pathname}: timed out`)));
      }
      req.end(payload);
    });
  }

  /**
   * One request; resolves with the parsed JSON body of a 2xx answer, rejects with an ApiError
   * otherwise. A 401 with renewable credentials (a plugin's) renews them and tries once more.
   */
  async request<T = ApiObject>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    try {
      return await this.send<T>(method, path, o);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 401 || !this.opts.onUnauthorized) throw err;
      this.opts.onUnauthorized();
      return this.send<T>(method, path, o);
    }
  }

  private async send<T>(method: string, path: string, o: RequestOptions): Promise<T> {
    const res = await this.open(method, path, o);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.destroy();
        throw new Error(`${method} ${path}: response larger than ${MAX_BODY_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const code = res.statusCode ?? 0;
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (code < 200 || code > 299) {
      const status = body && typeof body === 'object' ? (body as Status) : { message: text.slice(0, 200) || `HTTP ${code}`, code };
      throw new ApiError(code, status);
    }
    return body as T;
  }

  get<T = ApiObject>(r: ResourceRef, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('GET', resourcePath(r), query ? { query } : {});
  }

  list<T = ApiObject>(r: ResourceRef, query?: RequestOptions['query'], accept?: string): Promise<{ metadata: { resourceVersion?: string; continue?: string }; items: T[] }> {
    return this.request('GET', resourcePath(r), { ...(query ? { query } : {}), ...(accept ? { accept } : {}) });
  }

  create<T = ApiObject>(r: ResourceRef, body: unknown, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('POST', resourcePath(r), { body, ...(query ? { query } : {}) });
  }

  update<T = ApiObject>(r: ResourceRef, body: unknown, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('PUT', resourcePath(r), { body, ...(query ? { query } : {}) });
  }

  patch<T = ApiObject>(r: ResourceRef, body: unknown, type: 'merge' | 'json' | 'strategic' | 'apply', query?: RequestOptions['query']): Promise<T> {
    const contentType = { merge: 'application/merge-patch+json', json: 'application/json-patch+json', strategic: 'application/strategic-merge-patch+json', apply: 'application/apply-patch+yaml' }[
      type
    ];
    return this.request<T>('PATCH', resourcePath(r), { body, contentType, ...(query ? { query } : {}) });
  }

  delete<T = ApiObject>(r: ResourceRef, options?: Record<string, unknown>, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('DELETE', resourcePath(r), { ...(options ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', ...options } } : {}), ...(query ? { query } : {}) });
  }

  /**
   * A watch of a collection: calls `onEvent` for each event until the server ends the stream, the
   * signal aborts it or a non-2xx answer (rejected with its ApiError; 410 means relist).
   */
  async watch<T = ApiObject>(r: ResourceRef, query: RequestOptions['query'], onEvent: (e: WatchEvent<T>) => void, signal?: AbortSignal, accept?: string): Promise<void> {
    let res: http.IncomingMessage;
    try {
      res = await this.open('GET', resourcePath(r), { query: { ...query, watch: 1 }, timeoutMs: 0, ...(signal ? { signal } : {}), ...(accept ? { accept } : {}) });
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) {
      const chunks: Buffer[] = [];
      for await (const c of res as AsyncIterable<Buffer>) chunks.push(c);
      let status: Status;
      try {
        status = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Status;
      } catch {
        status = { message: `HTTP ${code}`, code };
      }
      // Renewable credentials are dropped here too: an informer's next try then brings fresh ones.
      if (code === 401) this.opts.onUnauthorized?.();
      throw new ApiError(code, status);
    }
    let pending = '';
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        pending += chunk.toString('utf8');
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          if (!line) continue;
          const ev = JSON.parse(line) as WatchEvent<T>;
          if (ev.type === 'ERROR') {
            const st = ev.object as unknown as Status;
            throw new ApiError(st.code ?? 500, st);
          }
          onEvent(ev);
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
  }

  close(): void {
    this.closed = true;
    this.agent.destroy();
  }
}
