// The authn service as the API machinery asks it: who a credential is (TokenReview) and a signed
// service-account token (TokenRequest). Implemented over NATS by `natsAuthn`
// (shared/bus/service-clients.ts); the authn service answers (services/authn/service.ts).

import type { UserInfo } from '../api/types.js';

export interface AuthnRequest {
  /** Bearer token from the Authorization header, if any. */
  token?: string;
  /** Client certificate chain presented on the TLS connection, leaf first, PEM. */
  certificates?: string[];
  /** Headers an authenticator may read (front-proxy headers), lowercase names. */
  headers?: Record<string, string[]>;
  /** Audiences the token must be valid for (TokenReview); empty = the API server's. */
  audiences?: string[];
}

export interface AuthnReply {
  authenticated: boolean;
  user?: UserInfo;
  audiences?: string[];
  /** Why authentication failed; set when a credential was presented and rejected. */
  error?: string;
}

/** TokenRequest: a service-account token signed by the authn service. */
export interface TokenIssueRequest {
  serviceAccount: { namespace: string; name: string; uid: string };
  /** Empty = the API server's own audiences. */
  audiences: string[];
  expirationSeconds: number;
  /** The object the token is bound to; the token dies with it. */
  boundObject?: { kind: 'Pod' | 'Secret'; apiVersion: string; name: string; uid: string };
}

export interface TokenIssueReply {
  token: string;
  /** RFC 3339. */
  expirationTimestamp: string;
  audiences: string[];
  /** The lifetime given, which `--service-account-max-token-expiration` may have shortened. */
  expirationSeconds: number;
}

/** Failures are Status errors (503 when no authn replica answers, 504 on timeout). */
export interface AuthnPort {
  /** Runs the authenticator chain on the credentials (TokenReview). */
  authenticate(request: AuthnRequest): Promise<AuthnReply>;
  /** Issues a service-account token (TokenRequest). */
  issueToken(request: TokenIssueRequest): Promise<TokenIssueReply>;
}
