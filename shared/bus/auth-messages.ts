// The authn and authz subjects whose bodies are protobuf (proto/bus/v1/authn.proto, authz.proto):
// authenticate's request and reply, authorize's attributes and reply. Each type converts between
// the contract's shape (shared/contracts/authn.ts, authz.ts) and the protobuf message, so callers
// and services see exactly what JSON carried:
// - an optional string of the contract is `optional` in the .proto: absent stays absent, "" stays "";
// - protobuf has no absent list or map: an empty optional list or map decodes as absent (no producer
//   sends an empty one: the gateway, the access reviews and the authenticators leave them out);
// - a list the contract requires (UserInfo.groups) is there even when empty;
// - a 64-bit number (AuthzReply.revision, -1 while the RBAC objects load) comes back a number, or
//   absent when it was.

import type { NatsConnection } from '@nats-io/nats-core';
import type { UserInfo } from '../api/types.js';
import type { Deadline } from '../api/deadline.js';
import type { AuthnReply, AuthnRequest } from '../contracts/authn.js';
import type { AuthzAttributes, AuthzReply, Decision } from '../contracts/authz.js';
import { busRequestBytes, DEFAULT_BUS_TIMEOUT_MS } from './client.js';
import { busType, type BusType } from './codec.js';
import { Subjects } from './subjects.js';

/** A decoded optional field: absent is null (proto3 `optional`, protobufjs). */
type Opt<T> = T | null | undefined;
type Int64 = number | { toNumber(): number };

interface UserInfoWire {
  username: string;
  uid?: Opt<string>;
  groups: string[];
  extra?: Record<string, { values: string[] }>;
}

interface AuthnRequestWire {
  token?: Opt<string>;
  certificates?: string[];
  headers?: Record<string, { values: string[] }>;
  audiences?: string[];
}

interface AuthnReplyWire {
  authenticated: boolean;
  user?: Opt<UserInfoWire>;
  audiences?: string[];
  error?: Opt<string>;
}

interface AuthzAttributesWire {
  user?: Opt<UserInfoWire>;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup?: Opt<string>;
  apiVersion?: Opt<string>;
  resource?: Opt<string>;
  subresource?: Opt<string>;
  namespace?: Opt<string>;
  name?: Opt<string>;
}

interface AuthzReplyWire {
  decision: string;
  decidedBy?: Opt<string>;
  reason?: Opt<string>;
  evaluationError?: Opt<string>;
  revision?: Opt<Int64>;
}

function listsToWire(m: Record<string, string[]>): Record<string, { values: string[] }> {
  const out: Record<string, { values: string[] }> = {};
  for (const k of Object.keys(m)) out[k] = { values: m[k]! };
  return out;
}

/** A decoded map of lists; undefined when empty (absent). */
function listsFromWire(m: Record<string, { values: string[] }> | undefined): Record<string, string[]> | undefined {
  if (!m) return undefined;
  let out: Record<string, string[]> | undefined;
  for (const k of Object.keys(m)) (out ??= {})[k] = m[k]!.values;
  return out;
}

function userToWire(u: UserInfo): UserInfoWire {
  return { username: u.username, uid: u.uid, groups: u.groups, extra: u.extra && listsToWire(u.extra) };
}

function userFromWire(m: UserInfoWire): UserInfo {
  const u: UserInfo = { username: m.username, groups: m.groups };
  if (m.uid != null) u.uid = m.uid;
  const extra = listsFromWire(m.extra);
  if (extra) u.extra = extra;
  return u;
}

/** A contract type over the protobuf message `name`, converted both ways. */
function contractType<T, W extends object>(name: string, toWire: (v: T) => W, fromWire: (m: W) => T): BusType<T> {
  const wire = busType<W>(name);
  // Named, so a CPU profile counts the conversion with the codec (bench/bus-share.ts).
  const encode = (value: T): Uint8Array => wire.encode(toWire(value));
  const decode = (data: Uint8Array): T => fromWire(wire.decode(data));
  return { name, encode, decode };
}

export const AuthnMessages = {
  request: contractType<AuthnRequest, AuthnRequestWire>(
    'AuthnRequest',
    (r) => ({ token: r.token, certificates: r.certificates, headers: r.headers && listsToWire(r.headers), audiences: r.audiences }),
    (m) => {
      const r: AuthnRequest = {};
      if (m.token != null) r.token = m.token;
      if (m.certificates?.length) r.certificates = m.certificates;
      const headers = listsFromWire(m.headers);
      if (headers) r.headers = headers;
      if (m.audiences?.length) r.audiences = m.audiences;
      return r;
    },
  ),
  reply: contractType<AuthnReply, AuthnReplyWire>(
    'AuthnReply',
    (r) => ({ authenticated: r.authenticated, user: r.user && userToWire(r.user), audiences: r.audiences, error: r.error }),
    (m) => {
      const r: AuthnReply = { authenticated: m.authenticated };
      if (m.user) r.user = userFromWire(m.user);
      if (m.audiences?.length) r.audiences = m.audiences;
      if (m.error != null) r.error = m.error;
      return r;
    },
  ),
} as const;

const OPTIONAL_ATTRIBUTES = ['apiGroup', 'apiVersion', 'resource', 'subresource', 'namespace', 'name'] as const;

function attributesFromWire(m: AuthzAttributesWire): AuthzAttributes {
  // A body without a user decodes without one; the authz service answers it with a 400.
  const a = { verb: m.verb, isResourceRequest: m.isResourceRequest, path: m.path } as AuthzAttributes;
  if (m.user) a.user = userFromWire(m.user);
  for (const k of OPTIONAL_ATTRIBUTES) {
    const v = m[k];
    if (v != null) a[k] = v;
  }
  return a;
}

export const AuthzMessages = {
  attributes: contractType<AuthzAttributes, AuthzAttributesWire>('AuthzAttributes', (a) => ({ ...a, user: a.user && userToWire(a.user) }), attributesFromWire),
  reply: contractType<AuthzReply, AuthzReplyWire>(
    'AuthzReply',
    (r) => r,
    (m) => {
      const r: AuthzReply = { decision: m.decision as Decision };
      if (m.decidedBy != null) r.decidedBy = m.decidedBy;
      if (m.reason != null) r.reason = m.reason;
      if (m.evaluationError != null) r.evaluationError = m.evaluationError;
      // protobufjs leaves a 64-bit field's default (a Long 0) on the prototype even when it is `optional`.
      if (m.revision != null && Object.hasOwn(m, 'revision')) r.revision = typeof m.revision === 'number' ? m.revision : m.revision.toNumber();
      return r;
    },
  ),
} as const;

/** Asks the authn service who a credential is (authn.authenticate). */
export async function requestAuthentication(nc: NatsConnection, request: AuthnRequest, timeoutMs = DEFAULT_BUS_TIMEOUT_MS, deadline?: Deadline): Promise<AuthnReply> {
  return AuthnMessages.reply.decode(await busRequestBytes(nc, Subjects.authnAuthenticate, AuthnMessages.request.encode(request), timeoutMs, deadline));
}

/** Asks the authz service for a decision (authz.authorize). */
export async function requestAuthorization(nc: NatsConnection, attrs: AuthzAttributes, timeoutMs = DEFAULT_BUS_TIMEOUT_MS, deadline?: Deadline): Promise<AuthzReply> {
  return AuthzMessages.reply.decode(await busRequestBytes(nc, Subjects.authzAuthorize, AuthzMessages.attributes.encode(attrs), timeoutMs, deadline));
}
