// One POST to a webhook an API object names in its `clientConfig` (admission webhook
// configurations, a CustomResourceDefinition's conversion webhook): where (its URL, or its Service
// resolved to an address), which server name its certificate must carry (the URL's host, or
// `<svc>.<ns>.svc`), which CAs are trusted (its caBundle, else the host's roots) and what the API
// server presents (credentials matched by the webhook's host, when the caller has any).
// Connections are kept alive per trust and credential set, so a busy webhook costs one TLS
// handshake, not one per request. How a Service reference becomes an address is the caller's
// (the admission service and the gateway read Services and Endpoints differently).

import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { ServiceAddress } from '../api/service-endpoints.js';
import { requestJson, type JsonResponse } from './http-json.js';
import { closeDispatcher, createTlsDispatcher, type TlsDialOptions } from './tls-dispatcher.js';

export interface ServiceReference {
  namespace: string;
  name: string;
  path: string;
  port: number;
}

/** A `clientConfig` as the API writes it, read. */
export interface ApiWebhookClientConfig {
  /** `url` as written (its authority picks the credentials). */
  url?: string;
  service?: ServiceReference;
  /** PEM decoded from `caBundle`; absent: the host's root CAs. */
  caPem?: string;
}

/** What the API server presents to one webhook host. */
export interface WebhookCredentials {
  /** The `users[]` entry's name (agents are shared per entry). */
  user: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  /** The Authorization header of a call (token, token file, basic auth), if any. */
  authorization(): Promise<string | undefined>;
}

/** Credentials by webhook host: `<host>` or `<host>:<port>`. */
export interface WebhookCredentialSource {
  forTarget(target: string): WebhookCredentials | undefined;
}

/** Where a Service reference is dialled; rejects (a StatusError or an Error saying why) when it cannot be. */
export interface ServiceAddressResolver {
  resolve(ref: ServiceReference): Promise<ServiceAddress>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

/** A stored `clientConfig` (admissionregistration's or apiextensions'), with the defaults the API gives it. */
export function clientConfigFromApi(raw: unknown): ApiWebhookClientConfig {
  const cc = isObj(raw) ? raw : {};
  const out: ApiWebhookClientConfig = {};
  if (typeof cc.url === 'string' && cc.url) out.url = cc.url;
  if (isObj(cc.service)) {
    const s = cc.service;
    out.service = { namespace: str(s.namespace, ''), name: str(s.name, ''), path: str(s.path, '/'), port: typeof s.port === 'number' ? s.port : 443 };
  }
  if (typeof cc.caBundle === 'string' && cc.caBundle) out.caPem = Buffer.from(cc.caBundle, 'base64').toString('utf8');
  return out;
}

/** `<name>.<namespace>.svc`, the name a service's serving certificate must carry. */
export function serviceHost(s: ServiceReference): string {
  return `${s.name}.${s.namespace}.svc`;
}

/** Connection pools kept at most; the oldest goes first (configurations come and go). */
const MAX_POOLS = 128;

interface Destination {
  url: URL;
  /** The name the serving certificate is checked for when it is not the URL's host. */
  serverName?: string;
  credentials: WebhookCredentials | undefined;
}

/** The host[:port] of a URL as written (`:443` kept when given): what kubeConfigFile users are matched by. */
function authorityOf(raw: string, url: URL): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw);
  const written = m?.[1]?.toLowerCase();
  return written && !written.includes('@') ? written : url.host;
}

const hostForUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

const NO_CREDENTIALS: WebhookCredentialSource = { forTarget: () => undefined };

export class ApiWebhookCaller {
  private readonly pools = new Map<string, Dispatcher>();

  constructor(
    private readonly resolver: ServiceAddressResolver,
    private readonly credentials: WebhookCredentialSource = NO_CREDENTIALS,
  ) {}

  /** Sends `text` (JSON) and resolves with the answer; rejects when none came (no address, network, TLS, deadline). */
  async post(cc: ApiWebhookClientConfig, text: string, timeoutMs: number): Promise<JsonResponse> {
    const d = await this.destination(cc);
    const headers: Record<string, string> = {};
    const auth = await d.credentials?.authorization();
    if (auth) headers.Authorization = auth;
    return requestJson(d.url, { method: 'POST', dispatcher: this.pool(cc, d), headers, body: text, timeoutMs });
  }

  /** Closes every connection at once (calls in progress fail). */
  close(): void {
    for (const pool of this.pools.values()) void closeDispatcher(pool);
    this.pools.clear();
  }

  private async destination(cc: ApiWebhookClientConfig): Promise<Destination> {
    if (cc.url) {
      const url = new URL(cc.url);
      return { url, credentials: this.credentials.forTarget(authorityOf(cc.url, url)) };
    }
    const svc = cc.service;
    if (!svc) throw new Error('the webhook has neither a url nor a service');
    const host = serviceHost(svc);
    const address = await this.resolver.resolve(svc);
    const url = new URL(`https://${hostForUrl(address.host)}:${address.port}${svc.path.startsWith('/') ? svc.path : `/${svc.path}`}`);
    return { url, serverName: host, credentials: this.credentials.forTarget(svc.port === 443 ? host : `${host}:${svc.port}`) };
  }

  /** The keep-alive pool for one trust, server name and credential set (one per origin inside). */
  private pool(cc: ApiWebhookClientConfig, d: Destination): Dispatcher {
    const ca = cc.caPem;
    const key = createHash('sha256')
      .update(`${ca ?? ''}\0${d.serverName ?? ''}\0${d.credentials?.user ?? ''}`)
      .digest('base64');
    let pool = this.pools.get(key);
    if (pool) return pool;
    const tls: TlsDialOptions = {};
    if (ca) tls.ca = ca;
    if (d.serverName) tls.servername = d.serverName;
    if (d.credentials?.clientCertPem) {
      tls.cert = d.credentials.clientCertPem;
      tls.key = d.credentials.clientKeyPem;
    }
    pool = createTlsDispatcher(tls);
    if (this.pools.size >= MAX_POOLS) {
      const [oldestKey, oldest] = this.pools.entries().next().value as [string, Dispatcher];
      void closeDispatcher(oldest);
      this.pools.delete(oldestKey);
    }
    this.pools.set(key, pool);
    return pool;
  }
}
