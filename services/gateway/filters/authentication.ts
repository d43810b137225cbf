// Authentication: the credentials a request carries (bearer token, client certificate chain,
// front-proxy headers) go to the authn service through the identity cache. The credentials are
// consumed here: nothing downstream (admission, proxies) ever sees them.
//
// Anonymous access and AlwaysAllow never go together (upstream's ApplyAuthorization resets
// --anonymous-auth to false under that mode): the authn and authz services are configured apart,
// so the gateway, which calls both, refuses an anonymous identity with 401 unless the authz
// service has said that none of its modes is AlwaysAllow. Services started with their defaults
// (anonymous on, AlwaysAllow) thus let no one in without credentials.

import { hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { bearerToken } from '../../../shared/api/bearer-token.js';
import type { Logger } from 'pino';
import type { AuthnInterestCache, AuthzInterestCache } from '../../../shared/bus/service-interest.js';
import { StatusError, unauthorized } from '../../../shared/api/status.js';
import type { UserInfo } from '../../../shared/api/types.js';
import type { Credentials, Identity } from '../identity.js';
import type { Filter } from './filter.js';
import type { GatewayMetrics } from '../metrics.js';
import { distinctHeaders } from './impersonation.js';
import { apiState } from './request-info.js';

/**
 * `clientCertificates`: whether the server asks for client certificates (only then are they looked
 * for). Each attempt is counted and timed as upstream's filter does: success, failure (401), error.
 */
export interface AuthenticationDeps {
  identity: Identity;
  authnInterest: AuthnInterestCache;
  /** The authz service's modes: anonymous requests are refused under AlwaysAllow or while they are unknown. */
  authzInterest: AuthzInterestCache;
  clientCertificates: boolean;
  metrics?: GatewayMetrics;
  log?: Logger;
}

export function authenticationFilter({ identity, authnInterest: interest, authzInterest, clientCertificates, metrics, log }: AuthenticationDeps): Filter {
  let warned = false;
  const refuseAnonymous = (): boolean => {
    if (authzInterest.anonymousAllowed()) return false;
    if (!warned && authzInterest.value()) {
      warned = true;
      log?.warn('AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer');
    }
    return true;
  };
  return {
    name: 'authentication',
    async onRequest(req) {
      const api = apiState(req);
      const creds = credentialsOf(req.raw, clientCertificates, interest);
      const start = performance.now();
      try {
        const user = await identity.authenticate(creds, api.deadline);
        if (isAnonymous(user) && refuseAnonymous()) throw unauthorized();
        api.user = user;
      } catch (err) {
        api.failedAuthentication = failureMessage(creds);
        metrics?.authenticated(err instanceof StatusError && err.code === 401 ? 'failure' : 'error', (performance.now() - start) / 1000);
        throw err;
      }
      metrics?.authenticated('success', (performance.now() - start) / 1000, api.user);
    },
  };
}

/** The anonymous authenticator's identity (system:anonymous in system:unauthenticated). */
function isAnonymous(user: UserInfo): boolean {
  return user.username === 'system:anonymous' && user.groups.includes('system:unauthenticated');
}

function credentialsOf(raw: IncomingMessage, clientCertificates: boolean, interest: AuthnInterestCache): Credentials {
  const creds: Credentials = {};
  const auth = raw.headers.authorization;
  if (auth !== undefined) {
    const token = bearerToken(auth);
    if (token !== undefined) creds.token = token;
    delete raw.headers.authorization;
  }
  if (clientCertificates) {
    const peer = peerCertificates(raw.socket as TLSSocket);
    if (peer) {
      creds.certificates = peer.chain;
      creds.certificateDigest = peer.digest;
    }
  }
  // Front-proxy headers go to the authn service and are then removed, whether or not they were
  // trusted: a client must never be able to pass them on.
  let headers: Record<string, string[]> | undefined;
  let distinct: Record<string, string[]> | undefined;
  for (const k of Object.keys(raw.headers)) {
    if (!interest.wants(k)) continue;
    distinct ??= distinctHeaders(raw);
    const v = distinct[k];
    if (v !== undefined) (headers ??= {})[k] = v;
    delete raw.headers[k];
  }
  if (headers) creds.headers = headers;
  return creds;
}

/** Upstream's account of a failed authentication in the audit log (what was tried, never what it was). */
function failureMessage(c: Credentials): string {
  const tried: string[] = [];
  if (c.token !== undefined) tried.push('bearer');
  if (c.certificates?.length) tried.push('x509');
  return tried.length ? `Authentication failed, attempted: ${tried.join(', ')}` : 'Authentication failed, no credentials provided';
}

/** A connection's client certificate chain as PEM, leaf first, and the digest that keys its identity. */
interface PeerCertificates {
  chain: string[];
  digest: string;
}

// A TLS connection's peer chain is fixed at its handshake (this server allows no renegotiation), so
// it is read, formatted and hashed once per connection, not once per request on a kept-alive one.
const peers = new WeakMap<TLSSocket, PeerCertificates | null>();

function peerCertificates(socket: TLSSocket): PeerCertificates | null {
  let peer = peers.get(socket);
  if (peer === undefined) {
    const chain = peerCertificateChain(socket);
    peer = chain.length ? { chain, digest: hash('sha256', chain.join(''), 'base64') } : null;
    // A socket that has not finished its handshake has nothing yet; only a settled answer is kept.
    if (socket.encrypted && !socket.connecting) peers.set(socket, peer);
  }
  return peer;
}

/** The client's certificate chain as PEM, leaf first. */
function peerCertificateChain(socket: TLSSocket): string[] {
  const chain: string[] = [];
  if (typeof socket.getPeerCertificate !== 'function') return chain;
  let cert = socket.getPeerCertificate(true);
  const seen = new Set<string>();
  while (cert && cert.raw && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(
      `-----BEGIN CERTIFICATE-----\n${cert.raw
        .toString('base64')
        .replace(/(.{64})/g, '$1\n')
        .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`,
    );
    cert = cert.issuerCertificate;
  }
  return chain;
}
