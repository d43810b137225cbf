// One POST of an AdmissionReview to a webhook: where (its URL, or its Service resolved to an
// address), which server name its certificate must carry (the URL's host, or `<svc>.<ns>.svc`),
// which CAs are trusted (its caBundle, else the host's roots) and what the API server presents
// (the kubeConfigFile user matching its host). Connections are kept alive per trust and
// credential set, so a busy webhook costs one TLS handshake, not one per request.

import { createHash } from 'node:crypto';
import https from 'node:https';
import { requestJson, type JsonResponse } from '../../../../shared/webhook/http-json.js';
import type { CredentialResolver, WebhookCredentials } from './credentials.js';
import type { ServiceResolver } from './service-resolver.js';
import { serviceHost, type Webhook } from './webhooks.js';

/** Agents kept at most; the oldest goes first (configurations come and go). */
const MAX_AGENTS = 128;

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

export class WebhookCaller {
  private readonly agents = new Map<string, https.Agent>();

  constructor(
    private readonly resolver: ServiceResolver,
    private readonly credentials: CredentialResolver,
  ) {}

  /** Sends `text` (an AdmissionReview) and resolves with the answer; rejects when none came (network, TLS, deadline). */
  async post(hook: Webhook, text: string): Promise<JsonResponse> {
    const d = await this.destination(hook);
    const headers: Record<string, string> = {};
    const auth = await d.credentials?.authorization();
    if (auth) headers.Authorization = auth;
    return requestJson(d.url, { method: 'POST', agent: this.agent(hook, d), headers, body: text, timeoutMs: hook.timeoutMs });
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private async destination(hook: Webhook): Promise<Destination> {
    const cc = hook.clientConfig;
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

  private agent(hook: Webhook, d: Destination): https.Agent {
    const ca = hook.clientConfig.caPem;
    const key = createHash('sha256')
      .update(`${ca ?? ''}\0${d.serverName ?? ''}\0${d.credentials?.user ?? ''}`)
      .digest('base64');
    let agent = this.agents.get(key);
    if (agent) return agent;
    const options: https.AgentOptions = { keepAlive: true };
    if (ca) options.ca = ca;
    if (d.serverName) options.servername = d.serverName;
    if (d.credentials?.clientCertPem) {
      options.cert = d.credentials.clientCertPem;
      options.key = d.credentials.clientKeyPem;
    }
    agent = new https.Agent(options);
    if (this.agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, https.Agent];
      oldest.destroy();
      this.agents.delete(oldestKey);
    }
    this.agents.set(key, agent);
    return agent;
  }
}
