// The authenticating proxy (`--requestheader-*`): a front proxy that has already authenticated
// the user passes the identity in headers, and proves it is the proxy with a client certificate
// signed by the request-header CA. The headers are trusted only after that certificate verified
// here (the gateway's TLS check is not trusted) and, with `--requestheader-allowed-names`, only
// when its CN is one of the allowed names.
//
// Outcomes, in the order they are decided:
//   no client certificate                                    → skip (headers are ignored)
//   certificate does not verify against the proxy CA:
//     and no username header has a value                    → skip (it may be an ordinary client
//                                                              certificate for the x509 authenticator)
//     and a username header has a value                     → fail: proxy headers with a certificate
//                                                              that is not a valid proxy certificate
//   certificate verifies, CN not in the allowed names        → fail
//   certificate verifies, no username header has a value     → skip
//   certificate verifies, username header has a value        → ok, identity from the headers
// A `fail` does not stop the chain: an ordinary client certificate carrying stray proxy headers is
// still that certificate's user (the x509 authenticator runs next); only when nothing else
// succeeds is the request a 401 rather than anonymous.

import type { UserInfo } from '../../../shared/api/types.js';
import type { AuthnInterest, AuthnRequest } from '../../../shared/bus/messages.js';
import { skip, type AuthnResult, type RequestAuthenticator } from '../types.js';
import { createChainVerifier, noCertificates, parseCABundle, type ChainVerifierOptions } from './x509.js';

export interface RequestHeaderConfig {
  /** `--requestheader-username-headers` (required, ordered). */
  usernameHeaders: string[];
  /** `--requestheader-group-headers`. */
  groupHeaders?: string[];
  /** `--requestheader-extra-headers-prefix` (repeatable). */
  extraHeadersPrefixes?: string[];
  /** `--requestheader-client-ca-file` (required). */
  clientCAFile: string;
  /** `--requestheader-allowed-names`; empty = any CN the CA signed. */
  allowedNames?: string[];
}

export const REQUEST_HEADER_CN_NOT_ALLOWED = 'request-header: client certificate CN not allowed';

const lower = (names: readonly string[] | undefined): string[] => [...new Set((names ?? []).map((n) => n.trim().toLowerCase()).filter(Boolean))];

/** The headers the gateway must forward to authn (and strip before anything downstream). */
export function requestHeaderInterest(cfg: RequestHeaderConfig): AuthnInterest {
  return { headers: lower([...cfg.usernameHeaders, ...(cfg.groupHeaders ?? [])]), headerPrefixes: lower(cfg.extraHeadersPrefixes) };
}

// Percent-decoding of an extra key; a key that is not valid percent-encoding is kept as sent, as
// upstream does, rather than dropping the attribute.
function decodeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** The configured header names, lowercased once at start-up. */
export interface HeaderSpec {
  usernameHeaders: string[];
  groupHeaders: string[];
  extraPrefixes: string[];
}

export function headerSpec(cfg: Pick<RequestHeaderConfig, 'usernameHeaders' | 'groupHeaders' | 'extraHeadersPrefixes'>): HeaderSpec {
  return { usernameHeaders: lower(cfg.usernameHeaders), groupHeaders: lower(cfg.groupHeaders), extraPrefixes: lower(cfg.extraHeadersPrefixes) };
}

/** The identity the headers carry, or undefined when no username header has a value. Pure. */
export function identityFromHeaders(headers: Record<string, string[]> | undefined, spec: HeaderSpec): UserInfo | undefined {
  // The contract says names arrive lowercase; normalising again costs little and keeps a
  // differently-cased duplicate from being missed.
  const h = new Map<string, string[]>();
  for (const [name, values] of Object.entries(headers ?? {})) {
    if (!Array.isArray(values)) continue;
    const key = name.toLowerCase();
    h.set(key, [...(h.get(key) ?? []), ...values.filter((v): v is string => typeof v === 'string')]);
  }

  // The first header (in configured order) whose first value is non-empty names the user.
  let username = '';
  for (const name of spec.usernameHeaders) {
    const first = h.get(name)?.[0];
    if (first) {
      username = first;
      break;
    }
  }
  if (!username) return undefined;

  // Each header value is one group: a comma inside a value is part of the group name.
  const groups: string[] = [];
  for (const name of spec.groupHeaders) for (const v of h.get(name) ?? []) if (v !== '') groups.push(v);

  // A Map, so keys such as `__proto__` or `constructor` are plain keys like any other.
  const extra = new Map<string, string[]>();
  for (const [name, values] of h) {
    for (const prefix of spec.extraPrefixes) {
      if (!name.startsWith(prefix) || name.length === prefix.length) continue;
      const key = decodeExtraKey(name.slice(prefix.length));
      extra.set(key, [...(extra.get(key) ?? []), ...values]);
    }
  }

  const user: UserInfo = { username, groups };
  if (extra.size > 0) user.extra = Object.fromEntries(extra);
  return user;
}

export function createRequestHeaderAuthenticator(cfg: RequestHeaderConfig, caPem: string, opts: ChainVerifierOptions = {}): RequestAuthenticator {
  const spec = headerSpec(cfg);
  if (spec.usernameHeaders.length === 0) throw new Error('--requestheader-username-headers: at least one header is required');
  const verify = createChainVerifier(parseCABundle(caPem, '--requestheader-client-ca-file'), opts);
  const allowed = new Set(cfg.allowedNames ?? []);
  return {
    name: 'request-header',
    authenticate(req: AuthnRequest): AuthnResult {
      const presented = req.certificates;
      if (noCertificates(presented)) return skip;
      const v = verify(presented);
      // The headers are read only to decide between skip and fail; they are never trusted here.
      if (!v.ok) return identityFromHeaders(req.headers, spec) ? { kind: 'fail', error: `request-header: ${v.error}` } : skip;
      if (allowed.size > 0 && !allowed.has(v.subject?.commonName ?? '')) return { kind: 'fail', error: REQUEST_HEADER_CN_NOT_ALLOWED };
      const user = identityFromHeaders(req.headers, spec);
      return user ? { kind: 'ok', user } : skip;
    },
  };
}
