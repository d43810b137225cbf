// Delegated authentication and authorization, as upstream's controller manager protects its own
// endpoints: a bearer token is checked with a TokenReview and the request with a
// SubjectAccessReview on its path (a non-resource URL), both sent through the API with the
// service's own credentials, so whoever may `get /metrics` on the cluster may read this process's.
// A request without a token is `system:anonymous`. Verdicts are cached briefly (upstream's 10 s).

import { createHash } from 'node:crypto';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../../shared/api/groups.js';
import type { ApiClient } from '../../shared/client/rest.js';
import { TtlCache } from '../../shared/ground/ttl-cache.js';

export interface DelegatedUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const ANONYMOUS: DelegatedUser = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

const CACHE_TTL_MS = 10_000;
const CACHE_ENTRIES = 1_024;

/** The verb of a non-resource request, as the API server maps methods. */
export function nonResourceVerb(method: string): string {
  switch (method.toUpperCase()) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'get';
  }
}

/** Upstream's `--authorization-always-allow-paths`: an exact path, or a prefix ending in `*`. */
export function alwaysAllowed(paths: readonly string[], path: string): boolean {
  return paths.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : p === path));
}

export interface DelegatedAuth {
  /** The user of an `Authorization` header; undefined when its token is not valid. */
  authenticate(authorization: string | undefined): Promise<DelegatedUser | undefined>;
  authorize(user: DelegatedUser, verb: string, path: string): Promise<boolean>;
}

interface TokenReviewReply {
  status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } };
}

interface AccessReviewReply {
  status?: { allowed?: boolean };
}

export function delegatedAuth(client: ApiClient): DelegatedAuth {
  const users = new TtlCache<DelegatedUser | null>(CACHE_ENTRIES);
  const verdicts = new TtlCache<boolean>(CACHE_ENTRIES);
  return {
    async authenticate(authorization) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
      if (!authorization) return ANONYMOUS;
      if (!m) return undefined;
      const token = m[1]!;
      // Keyed by a digest: the cache never holds a token itself.
      const key = createHash('sha256').update(token).digest('base64');
      const cached = users.get(key);
      if (cached !== undefined) return cached ?? undefined;
      const review = await client.create<TokenReviewReply>(
        { group: AUTHENTICATION_GROUP, version: 'v1', resource: 'tokenreviews' },
        { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenReview', spec: { token } },
      );
      const u = review.status?.user;
      const user = review.status?.authenticated && u?.username ? { username: u.username, groups: u.groups ?? [], ...(u.uid ? { uid: u.uid } : {}), ...(u.extra ? { extra: u.extra } : {}) } : null;
      users.set(key, user, CACHE_TTL_MS);
      return user ?? undefined;
    },
    async authorize(user, verb, path) {
      const key = JSON.stringify([user.username, user.uid ?? '', user.groups, user.extra ?? {}, verb, path]);
      const cached = verdicts.get(key);
      if (cached !== undefined) return cached;
      const review = await client.create<AccessReviewReply>(
        { group: AUTHORIZATION_GROUP, version: 'v1', resource: 'subjectaccessreviews' },
        {
          apiVersion: `${AUTHORIZATION_GROUP}/v1`,
          kind: 'SubjectAccessReview',
          spec: { user: user.username, groups: user.groups, ...(user.uid ? { uid: user.uid } : {}), ...(user.extra ? { extra: user.extra } : {}), nonResourceAttributes: { path, verb } },
        },
      );
      const allowed = review.status?.allowed === true;
      verdicts.set(key, allowed, CACHE_TTL_MS);
      return allowed;
    },
  };
}
