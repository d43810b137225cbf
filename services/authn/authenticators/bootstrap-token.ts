// Bootstrap tokens (`--enable-bootstrap-token-auth`): `<id>.<secret>` checked against the secret
// `bootstrap-token-<id>` in platform-system, read from memory. A token of this shape is ours
// alone, so from here on every problem is a 401, never a pass to the next authenticator: a
// well-formed token must not reach a webhook or be retried elsewhere.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { UserInfo } from '../../../shared/api/types.js';
import { SYNC_WAIT_MS, type AuthnObjects } from '../objects.js';
import { skip, type AuthnResult, type TokenAuthenticator } from '../types.js';

export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_GROUP = 'system:bootstrappers';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export interface BootstrapTokenOptions {
  now?: () => number;
  /** How long a token waits for the first load of the secrets before it is refused. */
  syncWaitMs?: number;
}

const fail = (error: string): AuthnResult => ({ kind: 'fail', error });

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** The secret's groups (sorted, deduplicated, with system:bootstrappers), or null when one is invalid. */
export function bootstrapGroups(extra: string | undefined): string[] | null {
  const groups = new Set([BOOTSTRAP_GROUP]);
  if (extra) {
    for (const g of extra.split(',')) {
      const group = g.trim();
      if (!EXTRA_GROUP.test(group)) return null;
      groups.add(group);
    }
  }
  return [...groups].sort();
}

export function createBootstrapTokenAuthenticator(objects: AuthnObjects, opts: BootstrapTokenOptions = {}): TokenAuthenticator {
  const now = opts.now ?? Date.now;
  const syncWaitMs = opts.syncWaitMs ?? SYNC_WAIT_MS;
  return {
    name: 'bootstrap-token',
    async authenticateToken(token: string): Promise<AuthnResult> {
      const m = TOKEN.exec(token);
      if (!m) return skip;
      const [, id, presented] = m as unknown as [string, string, string];
      // Before the first load an absent secret proves nothing; refusing is safe, the client retries.
      if (!(await objects.whenSynced(syncWaitMs))) return fail('bootstrap tokens are not loaded yet');
      const secret = objects.bootstrapTokenSecret(id);
      if (!secret) return fail(`no bootstrap token with id ${id}`);
      const data = secret.data;
      // Both digests are compared whole whatever they hold, so timing says nothing about the secret.
      const secretMatches = timingSafeEqual(digest(data['token-secret'] ?? ''), digest(presented));
      if (!secretMatches || data['token-id'] !== id) return fail(`bootstrap token ${id}: the token does not match`);
      if (secret.deleting) return fail(`bootstrap token ${id} is being deleted`);
      const expiration = data.expiration;
      if (expiration !== undefined) {
        const at = RFC3339.test(expiration) ? Date.parse(expiration) : NaN;
        // An unreadable expiration counts as expired: the secret's author meant it to end.
        if (Number.isNaN(at) || at <= now()) return fail(`bootstrap token ${id} has expired`);
      }
      if (data['usage-bootstrap-authentication'] !== 'true') return fail(`bootstrap token ${id} is not enabled for authentication`);
      const groups = bootstrapGroups(data['auth-extra-groups']);
      if (!groups) return fail(`bootstrap token ${id} has an invalid auth-extra-groups entry`);
      const user: UserInfo = { username: `${BOOTSTRAP_USER_PREFIX}${id}`, groups };
      return { kind: 'ok', user };
    },
  };
}
