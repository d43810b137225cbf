// Webhook token authentication (`--authentication-token-webhook-*`): the token is sent to a remote
// service as a TokenReview and its verdict is taken. Verdicts (authenticated or not) are cached
// for the TTL under a hash of the token, so the token itself is never a cache key; concurrent
// identical reviews share one call. Transport failures and malformed answers are not cached: the
// next request asks again. Logs carry the outcome and HTTP status, never the token.

import { createHash } from 'node:crypto';
import type { UserInfo } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { TtlCache } from '../../../shared/ground/ttl-cache.js';
import { loadWebhookClient, WebhookConfigError, type WebhookClient } from '../../../shared/webhook/client-config.js';
import type { AuthnResult, TokenAuthenticator } from '../types.js';
import { AUTHENTICATION_GROUP } from '../../../shared/api/groups.js';

export interface WebhookTokenConfig {
  configFile: string;
  /** `--authentication-token-webhook-cache-ttl`, default 2 minutes. */
  cacheTtlMs?: number;
  /** `--authentication-token-webhook-version`, default v1beta1. */
  version?: 'v1' | 'v1beta1';
}

export const WEBHOOK_NOT_AUTHENTICATED = 'webhook: token not authenticated';
export const WEBHOOK_UNAVAILABLE = 'webhook: token review failed';
const DEFAULT_CACHE_TTL_MS = 120_000;
const CACHE_ENTRIES = 10_000;
// Below the gateway's 5 s bus timeout, so a hanging webhook yields our answer, not a bus timeout.
const REQUEST_TIMEOUT_MS = 4_000;
const MAX_ERROR_LENGTH = 256;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The TokenReview the webhook receives. */
export function tokenReviewRequest(apiVersion: string, token: string, audiences: string[]): Obj {
  const spec: Obj = { token };
  if (audiences.length > 0) spec.audiences = audiences;
  return { apiVersion, kind: 'TokenReview', metadata: {}, spec };
}

/**
 * Reads the webhook's answer. `cacheable` is false for answers that say nothing about the token
 * (wrong kind, malformed), which must not be remembered.
 */
export function readTokenReviewReply(apiVersion: string, body: unknown, audiences: string[]): { result: AuthnResult; cacheable: boolean; problem?: string } {
  const unusable = (problem: string) => ({ result: { kind: 'fail', error: WEBHOOK_UNAVAILABLE } as AuthnResult, cacheable: false, problem });
  if (!isObj(body)) return unusable('the response is not an object');
  if (body.apiVersion !== apiVersion || body.kind !== 'TokenReview') return unusable(`expected a TokenReview of ${apiVersion}`);
  const status = isObj(body.status) ? body.status : {};
  if (status.authenticated !== true) {
    const error = typeof status.error === 'string' && status.error ? `webhook: ${status.error.slice(0, MAX_ERROR_LENGTH)}` : WEBHOOK_NOT_AUTHENTICATED;
    return { result: { kind: 'fail', error }, cacheable: true };
  }
  const u = isObj(status.user) ? status.user : {};
  if (typeof u.username !== 'string' || u.username === '') return unusable('status.user.username is missing');
  if (u.groups !== undefined && u.groups !== null && !isStringArray(u.groups)) return unusable('status.user.groups is not a list of strings');
  const user: UserInfo = { username: u.username, groups: u.groups ? [...u.groups] : [] };
  if (typeof u.uid === 'string' && u.uid) user.uid = u.uid;
  if (u.extra !== undefined && u.extra !== null) {
    if (!isObj(u.extra) || !Object.values(u.extra).every(isStringArray)) return unusable('status.user.extra is not a map of string lists');
    if (Object.keys(u.extra).length > 0) user.extra = u.extra as Record<string, string[]>;
  }
  const got = status.audiences;
  if (got !== undefined && got !== null && !isStringArray(got)) return unusable('status.audiences is not a list of strings');
  if (audiences.length > 0) {
    // The token must be good for one of the audiences asked about; the answer names which.
    // Without audiences in the answer the webhook vouched for the API server only.
    const valid = (got ?? []).filter((a) => audiences.includes(a));
    if (valid.length === 0) return { result: { kind: 'fail', error: 'webhook: token is not valid for the requested audiences' }, cacheable: true };
    return { result: { kind: 'ok', user, audiences: valid }, cacheable: true };
  }
  return { result: got && got.length > 0 ? { kind: 'ok', user, audiences: [...got] } : { kind: 'ok', user }, cacheable: true };
}

function cacheKey(token: string, audiences: string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([token, [...audiences].sort()]))
    .digest('hex');
}

export async function createWebhookTokenAuthenticator(cfg: WebhookTokenConfig, log: Logger): Promise<TokenAuthenticator> {
  let client: WebhookClient;
  try {
    client = await loadWebhookClient(cfg.configFile, { timeoutMs: REQUEST_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof WebhookConfigError) throw new WebhookConfigError(`--authentication-token-webhook-config-file: ${err.message}`);
    throw err;
  }
  const apiVersion = `${AUTHENTICATION_GROUP}/${cfg.version ?? 'v1beta1'}`;
  const ttlMs = cfg.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  const cache = new TtlCache<AuthnResult>(CACHE_ENTRIES);
  const inflight = new Map<string, Promise<AuthnResult>>();
  const wlog = log.child({ authenticator: 'webhook' });

  async function review(token: string, audiences: string[], key: string): Promise<AuthnResult> {
    let res: { status: number; body: unknown };
    try {
      res = await client.postJson(tokenReviewRequest(apiVersion, token, audiences));
    } catch (err) {
      // The client's errors name the server and the cause only.
      wlog.warn({ err: (err as Error).message }, 'token webhook call failed');
      return { kind: 'fail', error: WEBHOOK_UNAVAILABLE };
    }
    if (res.status < 200 || res.status >= 300) {
      wlog.warn({ status: res.status }, 'token webhook answered with an error status');
      return { kind: 'fail', error: WEBHOOK_UNAVAILABLE };
    }
    const { result, cacheable, problem } = readTokenReviewReply(apiVersion, res.body, audiences);
    if (problem) wlog.warn({ problem }, 'token webhook answer is unusable');
    if (cacheable) cache.set(key, result, ttlMs);
    return result;
  }

  return {
    name: 'webhook',
    authenticateToken(token: string, audiences: string[]): Promise<AuthnResult> | AuthnResult {
      const key = cacheKey(token, audiences);
      const cached = cache.get(key);
      if (cached) return cached;
      let pending = inflight.get(key);
      if (!pending) {
        pending = review(token, audiences, key).finally(() => inflight.delete(key));
        inflight.set(key, pending);
      }
      return pending;
    },
    async stop() {
      client.close();
      cache.clear();
    },
  };
}
