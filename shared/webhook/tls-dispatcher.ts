// The connection pool behind every outbound HTTPS call of the server (webhooks, OIDC discovery):
// an undici Agent (one pool per origin) that dials with the TLS settings the caller trusts and
// presents, and keeps connections alive so a busy endpoint costs one handshake, not one per call.
// The whole-exchange deadline belongs to the call (http-json.ts), so the pool's own per-phase
// timers are off. The connect has a bound of its own: a call's deadline fails the call at once but
// cannot stop a dial in progress, and a dial that never completes must not hold a socket for long.

import type { LookupFunction } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';

/** Longest a TCP connect and TLS handshake may take (as Go's TLS handshake timeout; undici's default). */
export const CONNECT_TIMEOUT_MS = 10_000;

export interface TlsDialOptions {
  /** PEM of the CAs that are trusted; absent: the host's root CAs. */
  ca?: string;
  /** The name the server certificate is checked for (and sent as SNI) when not the URL's host. */
  servername?: string;
  /** PEM the server is presented (client certificate authentication). */
  cert?: string;
  key?: string;
  /** false: the server certificate is not checked (insecure-skip-tls-verify). Default true. */
  rejectUnauthorized?: boolean;
  /** Resolves (and may refuse) the host at connect time, as net.connect's `lookup`. */
  lookup?: LookupFunction;
}

/** A keep-alive pool dialling with `tls`. Close it with `closeDispatcher`. */
export function createTlsDispatcher(tls: TlsDialOptions = {}): Dispatcher {
  const connect: ConnectionOptions & { timeout: number } = { timeout: CONNECT_TIMEOUT_MS, rejectUnauthorized: tls.rejectUnauthorized ?? true };
  if (tls.ca) connect.ca = tls.ca;
  if (tls.servername) connect.servername = tls.servername;
  if (tls.cert) connect.cert = tls.cert;
  if (tls.key) connect.key = tls.key;
  if (tls.lookup) connect.lookup = tls.lookup;
  // headersTimeout and bodyTimeout 0: off, the call's deadline covers both. Idle connections close
  // after undici's keep-alive default (4 s, or what the server's Keep-Alive header says, less 2 s).
  return new Agent({ connect, headersTimeout: 0, bodyTimeout: 0 });
}

/** Closes every connection at once (calls in progress fail); nothing of the pool stays behind. */
export function closeDispatcher(d: Dispatcher): Promise<void> {
  return d.destroy().catch(() => undefined);
}
