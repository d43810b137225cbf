// The one way services connect to NATS: reconnect forever, optional credentials file, and no
// async stack traces (nats.js would otherwise build two Error objects per request, a large share
// of a request's CPU; bus errors become Status replies anyway).

import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { credsAuthenticator, type NatsConnection } from '@nats-io/nats-core';

export interface BusConnectOptions {
  /** Comma-separated URLs, as the `--nats-url` flag takes them. */
  url: string;
  name: string;
  /** Path of a NATS credentials file (`--nats-creds`). */
  creds?: string;
}

export function connectBus(o: BusConnectOptions): Promise<NatsConnection> {
  return connect({
    servers: o.url
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    name: o.name,
    maxReconnectAttempts: -1,
    noAsyncTraces: true,
    ...(o.creds ? { authenticator: credsAuthenticator(readFileSync(o.creds)) } : {}),
  });
}
