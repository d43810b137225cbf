// The API client each controller acts with, as upstream's controller manager builds them. Without
// `--use-service-account-credentials` every controller shares the service's own client. With it,
// each controller authenticates as its own ServiceAccount in platform-system (shared/api/
// controller-accounts.ts), so RBAC grants it only its `system:controller:<account>` role and every
// write it makes is attributable to it: the service's own identity makes the account when it is
// missing and obtains a token for it through the TokenRequest API, renewed before it expires (and
// at once after a 401, e.g. when the account was deleted and re-made).

import type { Logger } from '../../shared/log.js';
import { AUTHENTICATION_GROUP } from '../../shared/api/groups.js';
import { CONTROLLER_ACCOUNT_NAMESPACE, CONTROLLER_ACCOUNTS } from '../../shared/api/controller-accounts.js';
import { anonymousClientConfig } from '../../shared/client/config.js';
import { ApiClient, isAlreadyExists, isNotFound } from '../../shared/client/rest.js';

/** Lifetime asked for each token (upstream's dynamic client builder asks for an hour). */
export const TOKEN_EXPIRATION_SECONDS = 3600;
/** A token is replaced once less than this share of its lifetime is left (upstream's 20 %). */
export const TOKEN_LEEWAY_PERCENT = 20;
/** After a failed renewal, how long a still-valid token is used before asking again. */
const RENEW_RETRY_MS = 5_000;

/** When a token valid from `issuedAt` to `expiresAt` should be replaced. */
export function tokenRefreshAt(issuedAt: number, expiresAt: number, leewayPercent = TOKEN_LEEWAY_PERCENT): number {
  return expiresAt - Math.floor(((expiresAt - issuedAt) * leewayPercent) / 100);
}

interface TokenRequestReply {
  status?: { token?: string; expirationTimestamp?: string };
}

/**
 * The bearer token of one service account, obtained with the service's own client. Concurrent
 * requests share one TokenRequest; a token near its end is renewed in the background while it is
 * still used; a request with no valid token waits for (and fails with) the renewal.
 */
export class ServiceAccountTokenSource {
  private token: { value: string; refreshAt: number; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private retryAt = 0;
  private lastError: unknown;

  constructor(
    private readonly root: ApiClient,
    readonly namespace: string,
    readonly name: string,
    private readonly opts: { log?: Logger; expirationSeconds?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  async headers(): Promise<Record<string, string>> {
    return { Authorization: `Bearer ${await this.current()}` };
  }

  /** Forgets the token (the server refused it): the next request obtains a new one. */
  invalidate(): void {
    this.token = undefined;
    this.retryAt = 0;
  }

  private async current(): Promise<string> {
    const now = this.now();
    const t = this.token;
    if (t && now < t.refreshAt) return t.value;
    if (t && now < t.expiresAt) {
      if (now >= this.retryAt) this.renew().catch(() => undefined);
      return t.value;
    }
    if (this.lastError !== undefined && now < this.retryAt && !this.pending) throw this.lastError;
    return this.renew();
  }

  private renew(): Promise<string> {
    this.pending ??= this.obtain().then(
      (v) => {
        this.pending = undefined;
        this.lastError = undefined;
        return v;
      },
      (err: unknown) => {
        this.pending = undefined;
        this.lastError = err;
        this.retryAt = this.now() + RENEW_RETRY_MS;
        this.opts.log?.warn({ err, serviceAccount: `${this.namespace}/${this.name}` }, "cannot obtain a token for the controller's service account; retrying");
        throw err;
      },
    );
    return this.pending;
  }

  private async ensureAccount(): Promise<void> {
    const ref = { group: '', version: 'v1', resource: 'serviceaccounts', namespace: this.namespace };
    try {
      await this.root.get({ ...ref, name: this.name });
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      await this.root.create(ref, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: this.name, namespace: this.namespace } });
      this.opts.log?.info({ serviceAccount: `${this.namespace}/${this.name}` }, 'service account created for a controller');
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private async obtain(): Promise<string> {
    await this.ensureAccount();
    const issuedAt = this.now();
    const seconds = this.opts.expirationSeconds ?? TOKEN_EXPIRATION_SECONDS;
    const reply = await this.root.create<TokenRequestReply>(
      { group: '', version: 'v1', resource: 'serviceaccounts', namespace: this.namespace, name: this.name, subresource: 'token' },
      { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenRequest', spec: { expirationSeconds: seconds } },
    );
    const value = reply.status?.token;
    if (!value) throw new Error(`the token request for service account ${this.namespace}/${this.name} returned no token`);
    const parsed = Date.parse(reply.status?.expirationTimestamp ?? '');
    const expiresAt = Number.isFinite(parsed) ? parsed : issuedAt + seconds * 1000;
    this.token = { value, expiresAt, refreshAt: tokenRefreshAt(issuedAt, expiresAt) };
    this.opts.log?.debug({ serviceAccount: `${this.namespace}/${this.name}`, expires: new Date(expiresAt).toISOString() }, 'controller token obtained');
    return value;
  }
}

export interface ControllerClients {
  /** The client `controller` (a `--controllers` name) acts with. */
  forController(controller: string): ApiClient;
  /** The service account `controller` acts as; undefined when it uses the service's own credentials. */
  accountOf(controller: string): string | undefined;
  close(): void;
}

export interface ControllerClientsOptions {
  useServiceAccountCredentials: boolean;
  log: Logger;
  namespace?: string;
  /** The service's own user agent; a controller's client adds its account to it (`…/namespace-controller`). */
  userAgent?: string;
}

/** One client per account (controllers sharing an account share it), built on first use. */
export function controllerClients(root: ApiClient, o: ControllerClientsOptions): ControllerClients {
  const namespace = o.namespace ?? CONTROLLER_ACCOUNT_NAMESPACE;
  const clients = new Map<string, ApiClient>();
  const accountOf = (controller: string) => (o.useServiceAccountCredentials ? CONTROLLER_ACCOUNTS[controller] : undefined);
  return {
    accountOf,
    forController(controller) {
      const account = accountOf(controller);
      if (!account) return root;
      let client = clients.get(account);
      if (!client) {
        const tokens = new ServiceAccountTokenSource(root, namespace, account, { log: o.log });
        client = new ApiClient(anonymousClientConfig(root.config), {
          credentials: () => tokens.headers(),
          onUnauthorized: () => tokens.invalidate(),
          userAgent: `${o.userAgent ?? 'platform-controller-manager'}/${account}`,
        });
        clients.set(account, client);
      }
      return client;
    },
    close() {
      for (const c of clients.values()) c.close();
      clients.clear();
    },
  };
}
