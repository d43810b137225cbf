// `--authorization-mode=Webhook`: asks a remote service with a SubjectAccessReview
// (`--authorization-webhook-version`, v1beta1 by default) described by a client configuration
// file. `status.allowed` allows, `status.denied` denies, neither is no opinion. Answers are cached
// per complete attribute set (allowed for the authorized TTL, the rest for the unauthorized TTL);
// a failed call (transport error, timeout, non-2xx, an answer that is not a SubjectAccessReview of
// the version sent) is never cached and never allows: it is NoOpinion with an evaluation error.

import { Decision, type AuthzAttributes } from '../../../shared/bus/messages.js';
import type { Logger } from '../../../shared/log.js';
import { TtlCache } from '../../../shared/ground/ttl-cache.js';
import { OptionsError } from '../../../shared/config/options.js';
import { loadWebhookClient, WebhookConfigError, type WebhookClient } from '../../../shared/webhook/client-config.js';
import type { Authorizer, AuthorizerDecision, ModeFactory } from '../types.js';
import { AUTHORIZATION_GROUP } from '../../../shared/api/groups.js';

export type SarVersion = 'v1' | 'v1beta1';

/**
 * Deadline of one call. Shorter than upstream's 30 s on purpose: the gateway gives the authz
 * service 5 s, and a webhook that has not answered by then must end in this mode's NoOpinion
 * (so later modes still decide), not in a gateway timeout.
 */
export const DEFAULT_AUTHZ_WEBHOOK_TIMEOUT_MS = 4_000;
const CACHE_ENTRIES = 10_000;

export interface WebhookAuthorizerOptions {
  client: WebhookClient;
  version: SarVersion;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  log: Logger;
  timeoutMs?: number;
  now?: () => number;
}

interface SarStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

const nonEmpty = <T extends Record<string, unknown>>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;

/** The request's spec. Keys are emitted in a fixed order (extra sorted), so it doubles as the cache key. */
export function sarSpec(attrs: AuthzAttributes, version: SarVersion): Record<string, unknown> {
  const u = attrs.user;
  const spec: Record<string, unknown> = nonEmpty({ user: u.username, uid: u.uid });
  // v1beta1 calls the field `group`; v1 renamed it `groups`.
  if (u.groups?.length) spec[version === 'v1' ? 'groups' : 'group'] = [...u.groups];
  if (u.extra && Object.keys(u.extra).length)
    spec.extra = Object.fromEntries(
      Object.keys(u.extra)
        .sort()
        .map((k) => [k, [...u.extra![k]!]]),
    );
  if (attrs.isResourceRequest) {
    spec.resourceAttributes = nonEmpty({
      namespace: attrs.namespace,
      verb: attrs.verb,
      group: attrs.apiGroup,
      version: attrs.apiVersion,
      resource: attrs.resource,
      subresource: attrs.subresource,
      name: attrs.name,
    });
  } else {
    spec.nonResourceAttributes = nonEmpty({ path: attrs.path, verb: attrs.verb });
  }
  return spec;
}

export function sarRequest(attrs: AuthzAttributes, version: SarVersion): Record<string, unknown> {
  return { apiVersion: `${AUTHORIZATION_GROUP}/${version}`, kind: 'SubjectAccessReview', spec: sarSpec(attrs, version) };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The status of a reply, or the reason it is not a usable SubjectAccessReview. */
export function parseSarReply(body: unknown, version: SarVersion): SarStatus | string {
  if (!isRecord(body)) return 'the reply is not a JSON object';
  const want = `${AUTHORIZATION_GROUP}/${version}`;
  if (body.apiVersion !== want || body.kind !== 'SubjectAccessReview') {
    return `expected a SubjectAccessReview of ${want}, got ${JSON.stringify(String(body.kind ?? ''))} of ${JSON.stringify(String(body.apiVersion ?? ''))}`;
  }
  const s = body.status;
  if (!isRecord(s) || typeof s.allowed !== 'boolean') return 'the reply has no status.allowed';
  if (s.denied !== undefined && typeof s.denied !== 'boolean') return 'status.denied is not a boolean';
  const out: SarStatus = { allowed: s.allowed };
  if (s.denied === true) out.denied = true;
  if (typeof s.reason === 'string' && s.reason) out.reason = s.reason;
  if (typeof s.evaluationError === 'string' && s.evaluationError) out.evaluationError = s.evaluationError;
  return out;
}

function decisionOf(s: SarStatus): AuthorizerDecision {
  const d: AuthorizerDecision =
    s.allowed && s.denied
      ? // Contradictory: upstream takes the safe side.
        { decision: Decision.Deny, error: 'webhook authorizer: the webhook both allowed and denied the request' }
      : { decision: s.denied ? Decision.Deny : s.allowed ? Decision.Allow : Decision.NoOpinion };
  if (s.reason) d.reason = s.reason;
  if (s.evaluationError) d.error = d.error ? `${d.error}; ${s.evaluationError}` : `webhook authorizer: ${s.evaluationError}`;
  return d;
}

export function createWebhookAuthorizer(opts: WebhookAuthorizerOptions): Authorizer {
  const cache = new TtlCache<SarStatus>(CACHE_ENTRIES, opts.now);
  // Identical questions asked while one is on the wire share its answer.
  const inflight = new Map<string, Promise<SarStatus | Error>>();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_AUTHZ_WEBHOOK_TIMEOUT_MS;

  const ask = async (body: Record<string, unknown>, key: string): Promise<SarStatus | Error> => {
    try {
      const res = await opts.client.postJson(body, { timeoutMs });
      if (res.status < 200 || res.status > 299) return new Error(`the webhook answered HTTP ${res.status}`);
      const status = parseSarReply(res.body, opts.version);
      if (typeof status === 'string') return new Error(status);
      cache.set(key, status, status.allowed && !status.denied ? opts.authorizedTtlMs : opts.unauthorizedTtlMs);
      return status;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  };

  return {
    name: 'Webhook',
    async authorize(attrs: AuthzAttributes): Promise<AuthorizerDecision> {
      const body = sarRequest(attrs, opts.version);
      const key = JSON.stringify(body.spec);
      let status: SarStatus | Error | undefined = cache.get(key);
      if (!status) {
        let p = inflight.get(key);
        if (!p) {
          p = ask(body, key).finally(() => inflight.delete(key));
          inflight.set(key, p);
        }
        status = await p;
      }
      if (status instanceof Error) {
        // Who asked and what is safe to log; the request body holds no credential.
        opts.log.error(
          { err: status.message, user: attrs.user.username, verb: attrs.verb, resource: attrs.resource, path: attrs.isResourceRequest ? undefined : attrs.path },
          'authorization webhook failed',
        );
        return { decision: Decision.NoOpinion, error: `webhook authorizer: ${status.message}` };
      }
      return decisionOf(status);
    },
    stop: async () => opts.client.close(),
  };
}

export const webhookMode: ModeFactory = async (ctx) => {
  const cfg = ctx.config.webhook;
  if (!cfg) throw new Error('authorization mode Webhook needs --authorization-webhook-config-file');
  let client: WebhookClient;
  try {
    client = await loadWebhookClient(cfg.configFile, { timeoutMs: DEFAULT_AUTHZ_WEBHOOK_TIMEOUT_MS });
  } catch (err) {
    // Reported like a bad flag (message, exit 2); the loader's messages never hold a credential.
    if (err instanceof WebhookConfigError) throw new OptionsError(`--authorization-webhook-config-file: ${err.message}`);
    throw err;
  }
  ctx.log.info({ version: cfg.version, authorizedTtlMs: cfg.authorizedTtlMs, unauthorizedTtlMs: cfg.unauthorizedTtlMs }, 'authorization webhook configured');
  return createWebhookAuthorizer({ client, version: cfg.version, authorizedTtlMs: cfg.authorizedTtlMs, unauthorizedTtlMs: cfg.unauthorizedTtlMs, log: ctx.log });
};
