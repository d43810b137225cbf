// Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-<name>`): pure parsing of the
// headers, the list of authorization checks the caller must pass (verb `impersonate` on each
// requested attribute), the identity the request then runs as, and the filter that applies them.

import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from '../../../shared/api/types.js';
import { badRequest } from '../../../shared/api/status.js';
import type { AuthzAttributes } from '../../../shared/bus/messages.js';
import { AUTHENTICATION_GROUP } from '../../../shared/api/groups.js';
import type { FastifyRequest } from 'fastify';
import type { Filter } from './filter.js';
import type { Identity } from '../identity.js';
import { apiState } from './request-info.js';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const SA_PREFIX = 'system:serviceaccount:';
const AUTHENTICATED = 'system:authenticated';
const UNAUTHENTICATED = 'system:unauthenticated';
const ANONYMOUS = 'system:anonymous';

export interface ImpersonationRequest {
  user: string;
  groups: string[];
  uid?: string;
  extra: Record<string, string[]>;
}

/** Every value of a header, each repeated header kept separate (never joined with commas). */
export type DistinctHeaders = Record<string, string[] | undefined>;

/** Whether the request asks for impersonation at all (cheap check on the hot path). */
export function asksForImpersonation(headers: IncomingHttpHeaders): boolean {
  for (const name in headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

/** Reads the impersonation headers; null when there are none. Group/uid/extra without a user → 400. */
export function parseImpersonation(headers: DistinctHeaders): ImpersonationRequest | null {
  let user: string | undefined;
  let uid: string | undefined;
  const groups: string[] = [];
  // Keys are client-chosen (`Impersonate-Extra-constructor`): a Map, never a plain object's members.
  const extra = new Map<string, string[]>();
  let other = false;
  for (const [name, values] of Object.entries(headers)) {
    if (!values || !name.startsWith('impersonate-')) continue;
    if (name === USER) {
      if (values.length > 1) throw badRequest('only one Impersonate-User header may be given');
      user = values[0];
    } else if (name === GROUP) {
      groups.push(...values);
      other = true;
    } else if (name === UID) {
      if (values.length > 1) throw badRequest('only one Impersonate-Uid header may be given');
      uid = values[0];
      other = true;
    } else if (name.startsWith(EXTRA_PREFIX)) {
      let key: string;
      try {
        key = decodeURIComponent(name.slice(EXTRA_PREFIX.length)).toLowerCase();
      } catch {
        throw badRequest(`malformed impersonation extra header ${JSON.stringify(name)}`);
      }
      if (!key) throw badRequest('an Impersonate-Extra- header needs a key');
      const list = extra.get(key);
      if (list) list.push(...values);
      else extra.set(key, [...values]);
      other = true;
    } else {
      throw badRequest(`unknown impersonation header ${JSON.stringify(name)}`);
    }
  }
  if (user === undefined) {
    if (other) throw badRequest('requested impersonation of groups, uid or extra attributes without impersonating a user');
    return null;
  }
  if (user === '') throw badRequest('Impersonate-User must not be empty');
  // fromEntries defines own properties, so even `__proto__` stays an ordinary key.
  const req: ImpersonationRequest = { user, groups, extra: Object.fromEntries(extra) };
  if (uid !== undefined) req.uid = uid;
  return req;
}

function check(caller: UserInfo, resource: string, name: string, group = '', extra: Partial<AuthzAttributes> = {}): AuthzAttributes {
  return { user: caller, verb: 'impersonate', isResourceRequest: true, path: '', apiGroup: group, resource, name, ...extra };
}

/** The authorization checks, one per requested attribute: every one must be allowed. */
export function impersonationChecks(caller: UserInfo, req: ImpersonationRequest): AuthzAttributes[] {
  const out: AuthzAttributes[] = [];
  const sa = serviceAccountOf(req.user);
  out.push(sa ? check(caller, 'serviceaccounts', sa.name, '', { namespace: sa.namespace }) : check(caller, 'users', req.user));
  for (const g of req.groups) out.push(check(caller, 'groups', g));
  if (req.uid !== undefined) out.push(check(caller, 'uids', req.uid, AUTHENTICATION_GROUP));
  for (const [key, values] of Object.entries(req.extra)) {
    for (const v of values) out.push(check(caller, 'userextras', v, AUTHENTICATION_GROUP, { subresource: key }));
  }
  return out;
}

function serviceAccountOf(user: string): { namespace: string; name: string } | null {
  if (!user.startsWith(SA_PREFIX)) return null;
  const rest = user.slice(SA_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0 || colon === rest.length - 1) return null;
  return { namespace: rest.slice(0, colon), name: rest.slice(colon + 1) };
}

/** The identity the request runs as once every check passed. */
export function impersonatedUser(req: ImpersonationRequest): UserInfo {
  const groups = [...req.groups];
  const sa = serviceAccountOf(req.user);
  // A service account named without groups gets the groups its tokens would carry.
  if (sa && groups.length === 0) groups.push('system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`);
  if (req.user !== ANONYMOUS && !groups.includes(AUTHENTICATED) && !groups.includes(UNAUTHENTICATED)) groups.push(AUTHENTICATED);
  const user: UserInfo = { username: req.user, groups };
  if (req.uid !== undefined) user.uid = req.uid;
  if (Object.keys(req.extra).length) user.extra = req.extra;
  return user;
}

/** Every header's values, repeated headers kept apart (Node joins most of them with ", "). */
export function distinctHeaders(raw: { rawHeaders: string[] }): Record<string, string[]> {
  // Header names are the client's: `constructor` or `__proto__` must not meet inherited members.
  const out = Object.create(null) as Record<string, string[]>;
  const list = raw.rawHeaders;
  for (let i = 0; i + 1 < list.length; i += 2) (out[list[i]!.toLowerCase()] ??= []).push(list[i + 1]!);
  return out;
}

/** Runs the request as the impersonated identity once the caller may act as every part of it. */
export function impersonationFilter(identity: Identity): Filter {
  return {
    name: 'impersonation',
    onRequest(req) {
      if (!asksForImpersonation(req.raw.headers)) return;
      return impersonate(req, identity);
    },
  };
}

async function impersonate(req: FastifyRequest, identity: Identity): Promise<void> {
  const api = apiState(req);
  const wanted = parseImpersonation(distinctHeaders(req.raw));
  // Impersonation headers never travel further than the gateway.
  for (const name of Object.keys(req.raw.headers)) if (name.startsWith('impersonate-')) delete req.raw.headers[name];
  if (!wanted) return;
  for (const attrs of impersonationChecks(api.user, wanted)) await identity.authorize(attrs, api.deadline);
  api.impersonator = api.user;
  api.user = impersonatedUser(wanted);
}
