// The `oidc` auth provider of a client configuration, as upstream's: the `id-token` is the bearer
// token while it is valid; once it expires (or the server answers 401) the `refresh-token` is
// exchanged at the issuer's token endpoint (found through its discovery document), the answer must
// carry a new `id_token`, and the new tokens are written back to the configuration file.

import https from 'node:https';
import { readFile, rename, writeFile } from 'node:fs/promises';
import YAML from 'yaml';
import type { AuthProviderConfig } from './config.js';

/** A token this close to its expiry is refreshed already (upstream's expiry delta). */
const EXPIRY_DELTA_MS = 10_000;
const TIMEOUT_MS = 30_000;

export class OidcError extends Error {
  override name = 'OidcError';
}

/** Whether a JWT's `exp` has passed (an unreadable token counts as expired). */
export function idTokenExpired(token: string, now: number): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return true;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp !== 'number' || claims.exp * 1000 - EXPIRY_DELTA_MS <= now;
  } catch {
    return true;
  }
}

function request(url: URL, opts: { method: 'GET' | 'POST'; ca?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'https:') return reject(new OidcError(`${url.origin}: the issuer must be reached over https`));
    const req = https.request(url, { method: opts.method, headers: { Accept: 'application/json', ...opts.headers }, ...(opts.ca ? { ca: opts.ca } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
        if (text.length > 1024 * 1024) res.destroy(new Error('response too large'));
      });
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
      res.on('error', reject);
    });
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new OidcError(`${url.origin}${url.pathname}: timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

export class OidcCredentials {
  private config: Record<string, string>;
  private stale = false;
  private refreshing: Promise<string> | undefined;

  constructor(
    private readonly provider: AuthProviderConfig & { file?: string; user: string },
    private readonly now: () => number = Date.now,
  ) {
    if (provider.name !== 'oidc') throw new OidcError(`auth provider ${JSON.stringify(provider.name)} is not supported (only oidc)`);
    this.config = { ...provider.config };
  }

  async headers(): Promise<Record<string, string>> {
    return { Authorization: `Bearer ${await this.idToken()}` };
  }

  /** After a 401: the next request refreshes even a token that looks valid. */
  invalidate(): void {
    this.stale = true;
  }

  private async idToken(): Promise<string> {
    const token = this.config['id-token'];
    if (token && !this.stale && !idTokenExpired(token, this.now())) return token;
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async ca(): Promise<string | undefined> {
    const data = this.config['idp-certificate-authority-data'];
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    const file = this.config['idp-certificate-authority'];
    return file ? readFile(file, 'utf8') : undefined;
  }

  private async refresh(): Promise<string> {
    const c = this.config;
    const issuer = c['idp-issuer-url'];
    const refreshToken = c['refresh-token'];
    if (!refreshToken) throw new OidcError('the id-token expired and there is no refresh-token');
    if (!issuer || !c['client-id']) throw new OidcError('oidc needs idp-issuer-url and client-id to refresh its token');
    const ca = await this.ca();
    const discovery = await request(new URL(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`), { method: 'GET', ...(ca ? { ca } : {}) });
    const endpoint = (discovery.json as { token_endpoint?: unknown } | undefined)?.token_endpoint;
    if (discovery.status !== 200 || typeof endpoint !== 'string') throw new OidcError(`${issuer}: no token_endpoint in the discovery document (HTTP ${discovery.status})`);
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    // RFC 6749 2.3.1: a confidential client authenticates with HTTP Basic; a public one names itself.
    if (c['client-secret']) headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(c['client-id'])}:${encodeURIComponent(c['client-secret'])}`).toString('base64')}`;
    else form.set('client_id', c['client-id']);
    const answer = await request(new URL(endpoint), { method: 'POST', headers, body: form.toString(), ...(ca ? { ca } : {}) });
    const body = answer.json as { id_token?: unknown; refresh_token?: unknown; error?: unknown } | undefined;
    if (answer.status !== 200) throw new OidcError(`${issuer}: refreshing the token failed (HTTP ${answer.status}${typeof body?.error === 'string' ? `: ${body.error}` : ''})`);
    if (typeof body?.id_token !== 'string' || !body.id_token) throw new OidcError(`${issuer}: the token response did not contain an id_token`);
    this.config = { ...c, 'id-token': body.id_token, ...(typeof body.refresh_token === 'string' && body.refresh_token ? { 'refresh-token': body.refresh_token } : {}) };
    this.stale = false;
    await this.persist();
    return body.id_token;
  }

  /** Writes the new tokens into the user's entry of the file it came from, keeping the rest of the file. */
  private async persist(): Promise<void> {
    const file = this.provider.file;
    if (!file) return;
    const doc = YAML.parseDocument(await readFile(file, 'utf8'));
    const users = doc.get('users') as YAML.YAMLSeq | undefined;
    const entry = users?.items.find((u) => YAML.isMap(u) && u.get('name') === this.provider.user) as YAML.YAMLMap | undefined;
    if (!entry) return;
    for (const key of ['id-token', 'refresh-token']) {
      const v = this.config[key];
      if (v) entry.setIn(['user', 'auth-provider', 'config', key], v);
    }
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, doc.toString(), { mode: 0o600 });
    await rename(tmp, file);
  }
}
