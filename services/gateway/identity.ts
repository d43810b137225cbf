// Authentication and authorization of a request through the authn and authz services, each
// answer cached briefly so a busy client does not cost a bus round trip per request.
//
// Probes are the exception to "no answer without the services": a health check without
// credentials (a load balancer's, a kubelet's) that the services cannot answer because NATS is
// unreachable gets the services' last answer for it. Otherwise /livez would time out with the bus
// and a NATS outage would have every gateway restarted, and /readyz could not say why it fails.
// Nothing is granted that the services did not grant: only their own earlier answer, for the same
// anonymous request to a health path, and only while they cannot be asked.

import { hash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import type { UserInfo } from '../../shared/api/types.js';
import { forbidden, forbiddenMessage, StatusError, unauthorized } from '../../shared/api/status.js';
import { HEALTH_PATH } from '../../shared/health/checks.js';
import { requestAuthentication, requestAuthorization } from '../../shared/bus/auth-messages.js';
import type { AuthnReply, AuthnRequest, AuthzAttributes, AuthzReply } from '../../shared/bus/messages.js';
import { TtlCache } from '../../shared/ground/ttl-cache.js';
import type { RequestInfo } from '../../shared/api/request-info.js';
import type { Deadline } from '../../shared/api/deadline.js';

export interface IdentityOptions {
  authnCacheTtlMs: number;
  authnFailureCacheTtlMs: number;
  authzAllowCacheTtlMs: number;
  authzDenyCacheTtlMs: number;
  busTimeoutMs: number;
}

export const defaultIdentityOptions: IdentityOptions = {
  authnCacheTtlMs: 10_000,
  authnFailureCacheTtlMs: 2_000,
  authzAllowCacheTtlMs: 1_000,
  authzDenyCacheTtlMs: 1_000,
  busTimeoutMs: 5_000,
};

/** Credentials taken from one request; never logged. */
export interface Credentials {
  token?: string;
  certificates?: string[];
  /** A digest of `certificates` (the cache key uses it instead of the chain itself). */
  certificateDigest?: string;
  headers?: Record<string, string[]>;
}

export class Identity {
  private readonly authnCache = new TtlCache<AuthnReply>(10_000);
  private readonly authzCache = new TtlCache<AuthzReply>(50_000);
  /** Revision of the newest RBAC change this gateway's watch cache has applied. */
  private rbacRevision = 0;
  /** The services' last answers to probes (see the header): authentication without credentials, decisions by path. */
  private lastAnonymous: AuthnReply | undefined;
  private readonly lastProbeDecisions = new Map<string, AuthzReply>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly opts: IdentityOptions = defaultIdentityOptions,
  ) {}

  /** `deadline`: the request's; the authn service is waited for at most what remains of it. */
  async authenticate(creds: Credentials, deadline?: Deadline): Promise<UserInfo> {
    const key = credentialKey(creds);
    let reply = this.authnCache.get(key);
    if (!reply) {
      const req: AuthnRequest = {};
      if (creds.token !== undefined) req.token = creds.token;
      if (creds.certificates?.length) req.certificates = creds.certificates;
      if (creds.headers && Object.keys(creds.headers).length) req.headers = creds.headers;
      const anonymous = key === ANONYMOUS_KEY;
      try {
        reply = await requestAuthentication(this.nc, req, this.opts.busTimeoutMs, deadline);
      } catch (err) {
        if (!anonymous || !this.lastAnonymous || !unreachable(err)) throw err;
        reply = this.lastAnonymous;
      }
      if (anonymous) this.lastAnonymous = reply;
      this.authnCache.set(key, reply, reply.authenticated ? this.opts.authnCacheTtlMs : this.opts.authnFailureCacheTtlMs);
    }
    if (!reply.authenticated || !reply.user) throw unauthorized();
    return reply.user;
  }

  /** Resolves when allowed; rejects with the upstream-shaped 403 otherwise. */
  async authorize(attrs: AuthzAttributes, deadline?: Deadline): Promise<void> {
    const key = authzKey(attrs);
    const reply = this.authzCache.get(key) ?? (await this.fetchDecision(key, attrs, deadline));
    if (reply.decision !== 'Allow') throw denial(attrs, reply.reason);
  }

  /** The decision itself, for a caller that records it (the audit annotations) before acting on it. */
  async decide(attrs: AuthzAttributes, deadline?: Deadline): Promise<AuthzReply> {
    const key = authzKey(attrs);
    return this.authzCache.get(key) ?? this.fetchDecision(key, attrs, deadline);
  }

  private async fetchDecision(key: string, attrs: AuthzAttributes, deadline?: Deadline): Promise<AuthzReply> {
    const probe = !attrs.isResourceRequest && attrs.verb === 'get' && attrs.user.username === 'system:anonymous' && HEALTH_PATH.test(attrs.path ?? '');
    let reply: AuthzReply;
    try {
      reply = await requestAuthorization(this.nc, attrs, this.opts.busTimeoutMs, deadline);
    } catch (err) {
      const last = probe ? this.lastProbeDecisions.get(key) : undefined;
      if (!last || !unreachable(err)) throw err;
      return last;
    }
    // Health paths are few (the checks' names); the map stays small.
    if (probe && this.lastProbeDecisions.size < 256) this.lastProbeDecisions.set(key, reply);
    // An answer given before the authz service saw the newest RBAC change is used once, never kept.
    if ((reply.revision ?? Infinity) >= this.rbacRevision) {
      this.authzCache.set(key, reply, reply.decision === 'Allow' ? this.opts.authzAllowCacheTtlMs : this.opts.authzDenyCacheTtlMs);
    }
    return reply;
  }

  /** Every cached decision predates an RBAC change at `revision`: drop them all. */
  rbacChanged(revision: number): void {
    if (revision <= this.rbacRevision) return;
    this.rbacRevision = revision;
    this.authzCache.clear();
    this.lastProbeDecisions.clear();
  }
}

/** The services could not be asked (no responders, or no answer in time). */
function unreachable(err: unknown): boolean {
  return err instanceof StatusError && (err.code === 503 || err.code === 504);
}

// A cached authentication answer hands every request the same user object, so its part of the key
// is written once (users are never changed once made; impersonation makes a new one).
const userKeys = new WeakMap<UserInfo, string>();

function authzKey(a: AuthzAttributes): string {
  let user = userKeys.get(a.user);
  if (user === undefined) {
    user = JSON.stringify([a.user.username, a.user.uid, a.user.groups, a.user.extra]);
    userKeys.set(a.user, user);
  }
  return user + JSON.stringify([a.verb, a.isResourceRequest, a.path, a.apiGroup, a.resource, a.subresource, a.namespace, a.name]);
}

// The key never holds a credential itself: a token goes in hashed, a chain by its digest.
function credentialKey(c: Credentials): string {
  let s = (c.token ?? '') + '\0';
  if (c.certificateDigest !== undefined) s += c.certificateDigest;
  else if (c.certificates) for (const cert of c.certificates) s += cert;
  s += '\0';
  if (c.headers) s += JSON.stringify(c.headers);
  return hash('sha256', s, 'base64');
}

/** The upstream-shaped 403: `User "bob" cannot get resource "secrets" in API group "" in the namespace "x"`. */
export function denial(a: AuthzAttributes, reason?: string): Error {
  const who = `User "${a.user.username}"`;
  const suffix = reason ? `: ${reason}` : '';
  if (!a.isResourceRequest) {
    return forbiddenMessage(`forbidden: ${who} cannot ${a.verb} path "${a.path}"${suffix}`);
  }
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource!;
  const scope = a.namespace ? ` in the namespace "${a.namespace}"` : a.resource === 'namespaces' && a.name ? '' : ' at the cluster scope';
  const msg = `${who} cannot ${a.verb} resource "${res}" in API group "${a.apiGroup ?? ''}"${scope}${suffix}`;
  return forbidden({ group: a.apiGroup ?? '', resource: a.resource! }, a.name ?? '', msg);
}

export function attributesFor(user: UserInfo, info: RequestInfo): AuthzAttributes {
  const a: AuthzAttributes = { user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path };
  if (info.isResourceRequest) {
    a.apiGroup = info.apiGroup;
    a.apiVersion = info.apiVersion;
    a.resource = info.resource;
    if (info.subresource) a.subresource = info.subresource;
    if (info.namespace) a.namespace = info.namespace;
    if (info.name) a.name = info.name;
  }
  return a;
}

/** The cache key of a request without credentials (a probe's). */
const ANONYMOUS_KEY = credentialKey({});
