// The contracts every authenticator implements. Two layers, as upstream has them: request
// authenticators look at the whole request (client certificate, proxy headers, bearer token) and
// token authenticators look at a bearer token only (static file, bootstrap, service-account JWT,
// OIDC, webhook). Each new method is one file implementing one of these.

import type { UserInfo } from '../../shared/api/types.js';
import type { AuthnRequest } from '../../shared/bus/messages.js';

/**
 * `skip`: the credential this authenticator understands is absent, or it is not one of its own
 * (a JWT handed to the static token file): the next one is asked.
 * `ok`: the identity is established; the chain stops.
 * `fail`: a credential was presented and is invalid; the request must never fall back to anonymous.
 */
export type AuthnResult = { kind: 'skip' } | { kind: 'ok'; user: UserInfo; audiences?: string[] } | { kind: 'fail'; error: string };

export interface RequestAuthenticator {
  readonly name: string;
  authenticate(req: AuthnRequest): Promise<AuthnResult> | AuthnResult;
}

export interface TokenAuthenticator {
  readonly name: string;
  /** `token` is never empty. `audiences` is empty for the API server's own audience. */
  authenticateToken(token: string, audiences: string[]): Promise<AuthnResult> | AuthnResult;
  /** Releases timers and connections (OIDC key refresh, webhook cache). */
  stop?(): Promise<void>;
}

export const skip: AuthnResult = { kind: 'skip' };
