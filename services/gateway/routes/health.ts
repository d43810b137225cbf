// The gateway's health checks (NATS, the watch cache, its neighbouring services, shutdown); the
// endpoints run them with shared/health/checks.ts.

import type { NatsConnection } from '@nats-io/nats-core';
import { ServiceName, serviceSubjects } from '../../../shared/bus/subjects.js';
import type { HealthCheck } from '../../../shared/health/checks.js';

export interface GatewayHealth {
  livez: HealthCheck[];
  readyz: HealthCheck[];
}

export interface GatewayHealthDeps {
  nc: NatsConnection;
  /** The connection is up (not reconnecting after a lost server or unanswered pings). */
  busUp(): boolean;
  /** The watch cache holds the initial state and its feed is running. */
  cacheReady(): boolean;
  shuttingDown(): boolean;
  pingTimeoutMs: number;
  /**
   * `--livez-grace-period`: until this time (ms since the epoch) a failing liveness check other
   * than ping still reports ok, so a slow start is not mistaken for a dead process.
   */
  livezGraceUntil?: number;
}

/** The gateway's checks: NATS, the watch cache, each neighbouring service answering `$SRV.PING`, shutdown. */
export function gatewayHealth(d: GatewayHealthDeps): GatewayHealth {
  const pingedUntil = new Map<string, number>();
  const pingService = (name: string) => async () => {
    if ((pingedUntil.get(name) ?? 0) > Date.now()) return;
    // Not a second per service of waiting when the connection is known to be down.
    if (!d.busUp()) throw new Error('NATS connection lost');
    await d.nc.request(serviceSubjects.ping(name), undefined, { timeout: d.pingTimeoutMs });
    pingedUntil.set(name, Date.now() + 1_000);
  };
  // Synchronous, so readyz's own nats check calls it inline with nothing to await.
  const natsOpen = (): void => {
    if (d.nc.isClosed()) throw new Error('NATS connection closed');
  };
  const nats: HealthCheck = { name: 'nats', check: natsOpen };
  const graceful = (c: HealthCheck): HealthCheck => ({
    name: c.name,
    check: async () => {
      try {
        await c.check();
      } catch (err) {
        if (Date.now() >= (d.livezGraceUntil ?? 0)) throw err;
      }
    },
  });
  const livez: HealthCheck[] = [{ name: 'ping', check: () => undefined }, graceful(nats)];
  const readyz: HealthCheck[] = [
    { name: 'ping', check: () => undefined },
    {
      name: 'nats',
      check: () => {
        natsOpen();
        if (!d.busUp()) throw new Error('NATS connection lost; reconnecting');
      },
    },
    {
      name: 'watch-cache',
      check: () => {
        if (!d.cacheReady()) throw new Error('watch cache not synced');
      },
    },
    ...Object.values(ServiceName).map((n) => ({ name: `service-${n.replace(/^platform-/, '')}`, check: pingService(n) })),
    {
      name: 'shutdown',
      check: () => {
        if (d.shuttingDown()) throw new Error('shutting down');
      },
    },
  ];
  return { livez, readyz };
}
