// Service-account tokens as this server mints them, and the claim names the authenticator reads
// back. Two kinds, as upstream has them:
// - bound tokens (TokenRequest): issuer `cfg.issuers[0]`, audiences, an expiry, and a private
//   `platform.io` claim naming the service account and the pod or secret the token dies with;
// - legacy tokens kept in `platform.io/service-account-token` secrets: fixed issuer, no expiry,
//   valid while the secret holds them.
// Both are JWS compact tokens signed with the signing key, `kid` = keyId(public half).

import { randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { badRequest } from '../api/status.js';
import { formatTime } from '../api/time.js';
import type { TokenIssueReply, TokenIssueRequest } from '../bus/messages.js';
import { keyId, signingAlgorithm, type ServiceAccountConfig } from './keys.js';

export const LEGACY_ISSUER = 'platform/serviceaccount';
/** The private claim of bound tokens. */
export const PRIVATE_CLAIM = 'platform.io';
export const LEGACY_CLAIMS = {
  namespace: 'platform.io/serviceaccount/namespace',
  secretName: 'platform.io/serviceaccount/secret.name',
  serviceAccountName: 'platform.io/serviceaccount/service-account.name',
  serviceAccountUid: 'platform.io/serviceaccount/service-account.uid',
} as const;

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
/** TokenRequest bounds, as the API validates them (spec.expirationSeconds). */
export const MIN_EXPIRATION_SECONDS = 600;
export const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface NamedUid {
  name: string;
  uid: string;
}

/** The `platform.io` claim of a bound token. */
export interface BoundTokenClaim {
  namespace: string;
  serviceaccount: NamedUid;
  pod?: NamedUid;
  secret?: NamedUid;
}

export interface TokenIssuer {
  issue(req: TokenIssueRequest): Promise<TokenIssueReply>;
}

export interface TokenIssuerOptions {
  /** Clock in milliseconds, replaceable in tests. */
  now?: () => number;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/** The API server's own audiences: `--api-audiences`, else the first issuer. */
export function apiAudiences(cfg: ServiceAccountConfig): string[] {
  if (cfg.apiAudiences?.length) return cfg.apiAudiences;
  return cfg.issuers.length ? [cfg.issuers[0]!] : [];
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** Checks what the gateway sends; a request that skipped its validation still cannot mint nonsense. */
function validate(req: TokenIssueRequest): void {
  const sa = req.serviceAccount as Partial<TokenIssueRequest['serviceAccount']> | undefined;
  if (!sa || !nonEmpty(sa.namespace) || !nonEmpty(sa.name) || !nonEmpty(sa.uid)) throw badRequest("a token request needs the service account's namespace, name and uid");
  if (req.audiences !== undefined && (!Array.isArray(req.audiences) || !req.audiences.every(nonEmpty))) throw badRequest('spec.audiences must be a list of non-empty strings');
  const s = req.expirationSeconds;
  if (typeof s !== 'number' || !Number.isInteger(s)) throw badRequest('spec.expirationSeconds must be an integer');
  if (s < MIN_EXPIRATION_SECONDS) throw badRequest('spec.expirationSeconds: may not specify a duration less than 10 minutes');
  if (s > MAX_EXPIRATION_SECONDS) throw badRequest('spec.expirationSeconds: may not specify a duration larger than 2^32 seconds');
  const b = req.boundObject as Partial<NonNullable<TokenIssueRequest['boundObject']>> | undefined;
  if (b !== undefined) {
    if (b.kind !== 'Pod' && b.kind !== 'Secret') throw badRequest('spec.boundObjectRef.kind: supported values: "Pod", "Secret"');
    if (!nonEmpty(b.name) || !nonEmpty(b.uid)) throw badRequest("spec.boundObjectRef needs the bound object's name and uid");
  }
}

function signer(signingKey: KeyObject) {
  const header = { alg: signingAlgorithm(signingKey), kid: keyId(signingKey), typ: 'JWT' };
  return (payload: Record<string, unknown>) => new SignJWT(payload).setProtectedHeader(header).sign(signingKey);
}

export function createTokenIssuer(cfg: ServiceAccountConfig, signingKey: KeyObject, opts: TokenIssuerOptions = {}): TokenIssuer {
  const issuer = cfg.issuers[0];
  if (!issuer) throw new Error('token issuance needs --service-account-issuer');
  const now = opts.now ?? Date.now;
  const sign = signer(signingKey);
  const defaults = apiAudiences(cfg);
  return {
    async issue(req: TokenIssueRequest): Promise<TokenIssueReply> {
      validate(req);
      const { namespace, name, uid } = req.serviceAccount;
      const audiences = req.audiences?.length ? [...new Set(req.audiences)] : defaults;
      let lifetime = req.expirationSeconds;
      if (cfg.maxExpirationSeconds && lifetime > cfg.maxExpirationSeconds) lifetime = cfg.maxExpirationSeconds;
      const iat = Math.floor(now() / 1000);
      const exp = iat + lifetime;
      const claim: BoundTokenClaim = { namespace, serviceaccount: { name, uid } };
      if (req.boundObject) {
        const bound = { name: req.boundObject.name, uid: req.boundObject.uid };
        if (req.boundObject.kind === 'Pod') claim.pod = bound;
        else claim.secret = bound;
      }
      const token = await sign({
        iss: issuer,
        sub: serviceAccountUsername(namespace, name),
        aud: audiences,
        exp,
        iat,
        nbf: iat,
        jti: randomUUID(),
        [PRIVATE_CLAIM]: claim,
      });
      return { token, expirationTimestamp: formatTime(new Date(exp * 1000)), audiences, expirationSeconds: lifetime };
    },
  };
}

export interface LegacyTokenSubject {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  /** The `platform.io/service-account-token` secret that will hold the token. */
  secretName: string;
}

/** Signs a secret-based token (for the token controller): no audience and no expiry. */
export async function signLegacyServiceAccountToken(signingKey: KeyObject, s: LegacyTokenSubject): Promise<string> {
  if (![s.namespace, s.serviceAccountName, s.serviceAccountUid, s.secretName].every(nonEmpty)) {
    throw new Error('a legacy service-account token needs the namespace, service account name and uid, and secret name');
  }
  return signer(signingKey)({
    iss: LEGACY_ISSUER,
    sub: serviceAccountUsername(s.namespace, s.serviceAccountName),
    [LEGACY_CLAIMS.namespace]: s.namespace,
    [LEGACY_CLAIMS.secretName]: s.secretName,
    [LEGACY_CLAIMS.serviceAccountName]: s.serviceAccountName,
    [LEGACY_CLAIMS.serviceAccountUid]: s.serviceAccountUid,
  });
}
