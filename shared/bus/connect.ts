// The one way services connect to NATS: reconnect forever, TLS and credentials from the `--nats-*`
// flags, replies on the user's own inbox prefix, and no async stack traces (nats.js would
// otherwise build two Error objects per request, a large share of a request's CPU; bus errors
// become Status replies anyway).

import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { credsAuthenticator, type NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { OptionsError, type natsOptions, type Options } from '../config/options.js';
import { userInboxPrefix } from './permissions.js';

export interface BusTlsOptions {
  /** PEM bundle that verifies the server's certificate. */
  caFile?: string;
  /** Client certificate and key, for a server that verifies its clients. */
  certFile?: string;
  keyFile?: string;
}

export interface BusConnectOptions {
  /** Comma-separated URLs, as the `--nats-url` flag takes them. */
  url: string;
  name: string;
  /** Path of a NATS credentials file (`--nats-creds`). */
  creds?: string;
  /** User and password of a user the server's configuration defines (`--nats-user`). */
  user?: string;
  password?: string;
  /**
   * TLS: the connection refuses a server that does not offer it. Without it nats.js still
   * upgrades when the server requires TLS, verifying against the system's CAs.
   */
  tls?: BusTlsOptions;
  /** Prefix of the reply subjects this connection subscribes to (default `_INBOX`). */
  inboxPrefix?: string;
  /**
   * How long the first connection keeps trying (default BUS_FIRST_CONNECT_DEADLINE_MS); 0 makes
   * one attempt at each server.
   */
  firstConnectDeadlineMs?: number;
  /** Where each first-connection attempt that failed and will be tried again is logged. */
  log?: Pick<Logger, 'warn'>;
}

/**
 * How often a connection pings its server, and how many pings may go unanswered before it counts
 * as lost and reconnects elsewhere. nats.js's defaults (2 minutes, 2) leave a service on the far
 * side of a partition believing it is connected for up to 6 minutes; with these it notices within
 * 15 s. One small frame each way per period is all an idle connection costs. The NATS
 * configurations (deploy/nats.conf, the chart's) ping their clients on the same terms.
 */
export const BUS_PING_INTERVAL_MS = 5_000;
export const BUS_MAX_PINGS_OUT = 2;

/**
 * How long one attempt to connect to a node may take (TCP, TLS, the CONNECT/PONG exchange) before
 * the next node is tried. nats.js waits 20 s, and a node on the far side of a partition does not
 * refuse, it stays silent: a connection moving away from a partition could pick it and hang there
 * for 20 s. Inside a cluster the exchange takes milliseconds.
 */
export const BUS_CONNECT_TIMEOUT_MS = 3_000;

/**
 * How long a service's first connection keeps trying before the process gives up (exit 1, for its
 * supervisor to restart it), as start-up waits for JetStream. A node that is starting, or a whole
 * machine busy starting every service at once, can take longer than one attempt's
 * BUS_CONNECT_TIMEOUT_MS to finish the TLS handshake: that is no reason for a restart.
 */
export const BUS_FIRST_CONNECT_DEADLINE_MS = 60_000;
const FIRST_CONNECT_RETRY_MS = 1_000;

/** A credential the server refused: trying again cannot help. */
const refusedCredentials = (err: Error) => ['AuthorizationError', 'UserAuthenticationExpiredError'].includes(err.name);

/**
 * Connects to the first server of `url` that answers, reconnecting forever afterwards. The first
 * connection is tried again (every second, each attempt on every server) until it succeeds or
 * `firstConnectDeadlineMs` passes; refused credentials fail at once.
 */
export async function connectBus(o: BusConnectOptions): Promise<NatsConnection> {
  const deadline = Date.now() + (o.firstConnectDeadlineMs ?? BUS_FIRST_CONNECT_DEADLINE_MS);
  for (let attempt = 1; ; attempt++) {
    try {
      return await connectOnce(o);
    } catch (err) {
      const e = err as Error;
      if (refusedCredentials(e) || Date.now() + FIRST_CONNECT_RETRY_MS >= deadline) throw e;
      o.log?.warn({ attempt, err: e.message }, 'NATS not reachable yet; trying again');
      await new Promise((resolve) => setTimeout(resolve, FIRST_CONNECT_RETRY_MS));
    }
  }
}

function connectOnce(o: BusConnectOptions): Promise<NatsConnection> {
  return connect({
    servers: o.url
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    name: o.name,
    maxReconnectAttempts: -1,
    pingInterval: BUS_PING_INTERVAL_MS,
    maxPingOut: BUS_MAX_PINGS_OUT,
    timeout: BUS_CONNECT_TIMEOUT_MS,
    noAsyncTraces: true,
    ...(o.creds ? { authenticator: credsAuthenticator(readFileSync(o.creds)) } : {}),
    ...(o.user !== undefined ? { user: o.user, pass: o.password ?? '' } : {}),
    ...(o.tls ? { tls: { ...o.tls } } : {}),
    ...(o.inboxPrefix ? { inboxPrefix: o.inboxPrefix } : {}),
  });
}

/**
 * The connection settings in a service's `--nats-*` options (see `natsOptions`), checked before
 * anything connects: a password file is read here, flags that only work together are refused
 * with OptionsError. The connection's name is the caller's.
 */
export function busOptionsFrom(o: Options<typeof natsOptions>): Omit<BusConnectOptions, 'name'> {
  const user = o['nats-user'] || undefined;
  if (o['nats-password'] && o['nats-password-file']) throw new OptionsError('give --nats-password or --nats-password-file, not both');
  let password = o['nats-password'] || undefined;
  const passwordFile = o['nats-password-file'];
  if (passwordFile) {
    try {
      // One trailing newline is what `echo` and most secret stores leave; the password has none.
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new OptionsError(`--nats-password-file: ${(err as Error).message}`);
    }
  }
  if (password !== undefined && !user) throw new OptionsError('a NATS password needs --nats-user');
  if (user && o['nats-creds']) throw new OptionsError('give --nats-user or --nats-creds, not both');
  const certFile = o['nats-tls-cert-file'];
  const keyFile = o['nats-tls-key-file'];
  if (Boolean(certFile) !== Boolean(keyFile)) throw new OptionsError('--nats-tls-cert-file and --nats-tls-key-file go together');
  const caFile = o['nats-tls-ca-file'];
  for (const [flag, file] of [
    ['nats-tls-ca-file', caFile],
    ['nats-tls-cert-file', certFile],
    ['nats-tls-key-file', keyFile],
    ['nats-creds', o['nats-creds']],
  ] as const) {
    if (!file) continue;
    try {
      readFileSync(file);
    } catch (err) {
      throw new OptionsError(`--${flag}: ${(err as Error).message}`);
    }
  }
  const tls: BusTlsOptions | undefined = caFile || certFile ? { ...(caFile ? { caFile } : {}), ...(certFile && keyFile ? { certFile, keyFile } : {}) } : undefined;
  // A user's permissions allow its own inbox only (shared/bus/permissions.ts).
  const inboxPrefix = o['nats-inbox-prefix'] || (user ? userInboxPrefix(user) : undefined);
  return {
    url: o['nats-url'],
    ...(o['nats-creds'] ? { creds: o['nats-creds'] } : {}),
    ...(user ? { user } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(tls ? { tls } : {}),
    ...(inboxPrefix ? { inboxPrefix } : {}),
  };
}
