// Bearer token from the Authorization header, offered to every token authenticator in turn.
// Present even when no token authenticator is configured: a presented token that nobody accepts
// is a 401, never silently an anonymous request.

import type { AuthnRequest } from '../../../shared/bus/messages.js';
import { skip, type AuthnResult, type RequestAuthenticator, type TokenAuthenticator } from '../types.js';

export const INVALID_BEARER_TOKEN = 'invalid bearer token';

export interface BearerTokenOptions {
  /** Called with the name of an authenticator that threw; never with the token. */
  onError?(authenticator: string, err: unknown): void;
}

export function createBearerTokenAuthenticator(tokenAuthenticators: TokenAuthenticator[], opts: BearerTokenOptions = {}): RequestAuthenticator {
  return {
    name: 'bearer-token',
    async authenticate(req: AuthnRequest): Promise<AuthnResult> {
      // Verbatim: the gateway extracted it by the one header rule (shared/api/bearer-token.ts),
      // and a TokenReview's token is compared as sent; trimming here would make ` tok` valid.
      const token = req.token;
      if (!token) return skip;
      const audiences = req.audiences ?? [];
      for (const a of tokenAuthenticators) {
        let r: AuthnResult;
        try {
          r = await a.authenticateToken(token, audiences);
        } catch (err) {
          opts.onError?.(a.name, err);
          continue;
        }
        if (r.kind === 'ok') return r;
        // A `fail` from one token authenticator does not stop the others: the token may belong
        // to a later one (a JWT that is not an OIDC id_token may be a service-account token).
      }
      return { kind: 'fail', error: INVALID_BEARER_TOKEN };
    },
  };
}
