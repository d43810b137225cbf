// Service-account tokens: JWTs signed by one of the `--service-account-key-file` keys (or the
// signing key). The unverified issuer decides whose token it is: not ours (an OIDC id_token, a
// webhook's token) → skip; ours → it must verify, be current, be meant for the audience asked
// about, and (with `--service-account-lookup`) name objects that still exist with the same uid,
// or it is a 401. Legacy secret-based tokens never expire, so for them the lookup (the secret
// still holds exactly this token) is the only revocation there is.

import { createHash, timingSafeEqual, type KeyObject } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { UserInfo } from '../../../shared/api/types.js';
import type { AuthnObjects, ObjectView } from '../objects.js';
import { keyId, signingAlgorithm, type ServiceAccountConfig, type ServiceAccountKeys } from '../../../shared/serviceaccount/keys.js';
import { apiAudiences, LEGACY_CLAIMS, LEGACY_ISSUER, PRIVATE_CLAIM, serviceAccountUsername, type NamedUid } from '../../../shared/serviceaccount/tokens.js';
import { looksLikeJwt } from './jwt-shape.js';
import { skip, type AuthnResult, type TokenAuthenticator } from '../types.js';

export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const EXTRA_POD_NAME = 'authentication.platform.io/pod-name';
export const EXTRA_POD_UID = 'authentication.platform.io/pod-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.platform.io/credential-id';

/** Clock skew tolerated on exp, nbf and iat. */
export const DEFAULT_LEEWAY_SECONDS = 60;

export interface ServiceAccountAuthenticatorOptions {
  /** Clock in milliseconds, replaceable in tests. */
  now?: () => number;
  leewaySeconds?: number;
}

interface VerificationKey {
  key: KeyObject;
  kid: string;
  alg: string;
}

/** The identity a valid token establishes, before the lookup confirms its objects. */
interface Subject {
  namespace: string;
  serviceAccount: NamedUid;
  extra?: Record<string, string[]>;
}

const fail = (error: string): AuthnResult => ({ kind: 'fail', error });
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

function namedUid(v: unknown): NamedUid | null {
  if (!v || typeof v !== 'object') return null;
  const { name, uid } = v as Record<string, unknown>;
  return nonEmpty(name) && nonEmpty(uid) ? { name, uid } : null;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

function tokenAudiences(aud: unknown): string[] | null {
  if (aud === undefined) return [];
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud) && aud.every((a) => typeof a === 'string')) return aud as string[];
  return null;
}

/** Why an object named by the token does not count (absent, another uid, being deleted), or null. */
function objectProblem(kind: string, ref: NamedUid, found: ObjectView | undefined): string | null {
  if (!found) return `${kind} ${ref.name} has been deleted`;
  if (found.uid !== ref.uid) return `${kind} ${ref.name} has been deleted (its uid is no longer ${ref.uid})`;
  if (found.deleting) return `${kind} ${ref.name} is being deleted`;
  return null;
}

/** The verified payload, or null when no key verifies the signature. */
async function verifySignature(verifiers: VerificationKey[], token: string, kid: unknown): Promise<JWTPayload | null> {
  // A token naming one of our key ids is checked with that key only; one without a kid (or with
  // a kid we do not know, e.g. from a signer using another scheme) against every key.
  const named = typeof kid === 'string' ? verifiers.filter((v) => v.kid === kid) : [];
  for (const v of named.length ? named : verifiers) {
    try {
      const { payload } = await compactVerify(token, v.key, { algorithms: [v.alg] });
      const claims = JSON.parse(Buffer.from(payload).toString('utf8')) as unknown;
      return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as JWTPayload) : null;
    } catch {
      // next key
    }
  }
  return null;
}

/** What is wrong with the token's times at `t` (seconds), allowing `leeway` of clock skew; null when nothing. */
function timeProblem(claims: JWTPayload, requireExpiry: boolean, t: number, leeway: number): string | null {
  for (const c of ['exp', 'nbf', 'iat'] as const) {
    if (claims[c] !== undefined && typeof claims[c] !== 'number') return `service account token has a malformed ${c} claim`;
  }
  if (claims.exp === undefined) {
    if (requireExpiry) return 'service account token has no expiry';
  } else if (t > claims.exp + leeway) return 'service account token has expired';
  if (claims.nbf !== undefined && claims.nbf > t + leeway) return 'service account token is not valid yet';
  if (claims.iat !== undefined && claims.iat > t + leeway) return 'service account token was issued in the future';
  return null;
}

/** The subject of a legacy secret-based token; `objects` when the lookup is on. */
async function legacySubject(token: string, claims: JWTPayload, objects: AuthnObjects | undefined): Promise<Subject | string> {
  const namespace = claims[LEGACY_CLAIMS.namespace];
  const secretName = claims[LEGACY_CLAIMS.secretName];
  const name = claims[LEGACY_CLAIMS.serviceAccountName];
  const uid = claims[LEGACY_CLAIMS.serviceAccountUid];
  if (!nonEmpty(namespace) || !nonEmpty(secretName) || !nonEmpty(name) || !nonEmpty(uid)) return 'service account token lacks its service account or secret claims';
  if (claims.sub !== undefined && claims.sub !== serviceAccountUsername(namespace, name)) return 'service account token subject does not match its service account';
  if (objects) {
    const secret = await objects.secret(namespace, secretName);
    if (!secret) return `secret ${secretName} has been deleted`;
    if (secret.deleting) return `secret ${secretName} is being deleted`;
    // Equal digests of the whole token: timing tells nothing about where the stored one differs.
    if (secret.token === undefined || !timingSafeEqual(digest(secret.token), digest(token))) return `secret ${secretName} no longer holds this token`;
    const problem = objectProblem('service account', { name, uid }, await objects.serviceAccount(namespace, name, uid));
    if (problem) return problem;
  }
  return { namespace, serviceAccount: { name, uid } };
}

/** The subject of a bound token (the private claim names its objects); `objects` when the lookup is on. */
async function boundSubject(claims: JWTPayload, objects: AuthnObjects | undefined): Promise<Subject | string> {
  const c = claims[PRIVATE_CLAIM] as Record<string, unknown> | undefined;
  const namespace = c?.namespace;
  const sa = namedUid(c?.serviceaccount);
  if (!c || typeof c !== 'object' || !nonEmpty(namespace) || !sa) return `service account token lacks the ${PRIVATE_CLAIM} claim`;
  if (claims.sub !== serviceAccountUsername(namespace, sa.name)) return 'service account token subject does not match its service account';
  const pod = c.pod === undefined ? undefined : namedUid(c.pod);
  const secret = c.secret === undefined ? undefined : namedUid(c.secret);
  if (pod === null || secret === null) return 'service account token names a malformed bound object';
  if (objects) {
    const problem =
      objectProblem('service account', sa, await objects.serviceAccount(namespace, sa.name, sa.uid)) ??
      (pod ? objectProblem('pod', pod, await objects.pod(namespace, pod.name, pod.uid)) : null) ??
      (secret ? objectProblem('secret', secret, await objects.secret(namespace, secret.name, secret.uid)) : null);
    if (problem) return problem;
  }
  const extra: Record<string, string[]> = {};
  if (pod) {
    extra[EXTRA_POD_NAME] = [pod.name];
    extra[EXTRA_POD_UID] = [pod.uid];
  }
  if (nonEmpty(claims.jti)) extra[EXTRA_CREDENTIAL_ID] = [`JTI=${claims.jti}`];
  return Object.keys(extra).length ? { namespace, serviceAccount: sa, extra } : { namespace, serviceAccount: sa };
}

export function createServiceAccountAuthenticator(cfg: ServiceAccountConfig, keys: ServiceAccountKeys, objects?: AuthnObjects, opts: ServiceAccountAuthenticatorOptions = {}): TokenAuthenticator {
  const lookup = cfg.lookup ?? true;
  // Lookup on without the objects would silently accept revoked tokens; refuse to start instead.
  if (lookup && !objects) throw new Error('service-account lookup needs the cluster object views');
  const lookupObjects = lookup ? objects : undefined;
  const now = opts.now ?? Date.now;
  const leeway = opts.leewaySeconds ?? DEFAULT_LEEWAY_SECONDS;
  const issuers = new Set(cfg.issuers);
  const implicit = apiAudiences(cfg);
  const verifiers: VerificationKey[] = keys.verify.map((key) => ({ key, kid: keyId(key), alg: signingAlgorithm(key) }));

  return {
    name: 'service-account',
    async authenticateToken(token: string, audiences: string[]): Promise<AuthnResult> {
      if (!looksLikeJwt(token)) return skip;
      let header: ReturnType<typeof decodeProtectedHeader>;
      let unverified: JWTPayload;
      try {
        header = decodeProtectedHeader(token);
        unverified = decodeJwt(token);
      } catch {
        return skip; // not a JWT at all
      }
      const iss = unverified.iss;
      const isLegacy = iss === LEGACY_ISSUER;
      if (!isLegacy && !(typeof iss === 'string' && issuers.has(iss))) return skip;

      // From here the token claims to be ours: anything wrong is a 401.
      const claims = await verifySignature(verifiers, token, header.kid);
      if (!claims) return fail('service account token signature is invalid');
      const badTimes = timeProblem(claims, !isLegacy, now() / 1000, leeway);
      if (badTimes) return fail(badTimes);

      // A token without an audience is one for the API server itself, as upstream treats them.
      let own = tokenAudiences(claims.aud);
      if (!own) return fail('service account token has a malformed aud claim');
      if (own.length === 0) own = implicit;
      const requested = audiences.length ? audiences : implicit;
      const granted = [...new Set(own.filter((a) => requested.includes(a)))];
      if (granted.length === 0 && requested.length > 0) return fail('service account token is not valid for the requested audiences');

      const subject = isLegacy ? await legacySubject(token, claims, lookupObjects) : await boundSubject(claims, lookupObjects);
      if (typeof subject === 'string') return fail(subject);
      const { namespace, serviceAccount } = subject;
      const user: UserInfo = {
        username: serviceAccountUsername(namespace, serviceAccount.name),
        uid: serviceAccount.uid,
        groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`],
      };
      if (subject.extra) user.extra = subject.extra;
      return granted.length ? { kind: 'ok', user, audiences: granted } : { kind: 'ok', user };
    },
  };
}
