// Runs the authenticator chain for one request: the configured authenticators in order (first
// success decides), then anonymous only when nothing was presented-and-rejected, then the
// `system:authenticated` group for every identified user.

import type { UserInfo } from '../../shared/api/types.js';
import type { AuthnReply, AuthnRequest } from '../../shared/bus/messages.js';
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from './authenticators/anonymous.js';
import type { AuthnResult, RequestAuthenticator } from './types.js';

export const AUTHENTICATED_GROUP = 'system:authenticated';

export interface AuthnChain {
  authenticators: RequestAuthenticator[];
  /** The API server's own audiences (`--api-audiences`): what an audience-agnostic credential
   *  (static token, certificate, bootstrap token) is valid for. */
  implicitAudiences?: string[];
  /** Consulted only when no authenticator succeeded or failed. Absent = anonymous disabled. */
  anonymous?: RequestAuthenticator;
}

export type AuthenticatorResult = 'success' | 'failure' | 'error';

export interface ChainHooks {
  /** Called with the authenticator's name when it throws; the error never reaches the caller. */
  onError?(authenticator: string, err: unknown): void;
  /** Each authenticator that had an opinion (skips are not attempts), and how long it took. */
  onResult?(authenticator: string, result: AuthenticatorResult, seconds: number): void;
}

/** Adds `system:authenticated` unless the user is anonymous or already carries either marker group. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

function success(r: Extract<AuthnResult, { kind: 'ok' }>): AuthnReply {
  const reply: AuthnReply = { authenticated: true, user: withAuthenticatedGroup(r.user) };
  if (r.audiences) reply.audiences = r.audiences;
  return reply;
}

export const AUDIENCE_MISMATCH = 'token audiences are not valid for the requested audiences';

/**
 * A credential that names no audiences of its own is valid only for the API server's audiences:
 * when specific audiences are requested (TokenReview), it answers for the ones it shares with
 * them, and for none (null) when they share nothing.
 */
export function withAudiences(r: Extract<AuthnResult, { kind: 'ok' }>, requested: string[] | undefined, implicit: string[]): Extract<AuthnResult, { kind: 'ok' }> | null {
  if (!requested?.length || r.audiences !== undefined) return r;
  const shared = implicit.filter((a) => requested.includes(a));
  return shared.length ? { ...r, audiences: shared } : null;
}

export async function runAuthnChain(chain: AuthnChain, req: AuthnRequest, hooks: ChainHooks = {}): Promise<AuthnReply> {
  const errors: string[] = [];
  const timed = hooks.onResult;
  for (const a of chain.authenticators) {
    let r: AuthnResult;
    const start = timed ? performance.now() : 0;
    try {
      r = await a.authenticate(req);
    } catch (err) {
      timed?.(a.name, 'error', (performance.now() - start) / 1000);
      hooks.onError?.(a.name, err);
      errors.push('authentication failed');
      continue;
    }
    if (timed && r.kind !== 'skip') timed(a.name, r.kind === 'ok' ? 'success' : 'failure', (performance.now() - start) / 1000);
    if (r.kind === 'ok') {
      const scoped = withAudiences(r, req.audiences, chain.implicitAudiences ?? []);
      if (scoped) return success(scoped);
      errors.push(AUDIENCE_MISMATCH);
      continue;
    }
    if (r.kind === 'fail' && !errors.includes(r.error)) errors.push(r.error);
  }
  if (errors.length > 0) return { authenticated: false, error: errors.join('; ') };
  if (chain.anonymous) {
    const start = timed ? performance.now() : 0;
    const r = await chain.anonymous.authenticate(req);
    if (timed && r.kind !== 'skip') timed(chain.anonymous.name, r.kind === 'ok' ? 'success' : 'failure', (performance.now() - start) / 1000);
    if (r.kind === 'ok') return success(r);
  }
  return { authenticated: false };
}
