// /healthz, /livez and /readyz with `verbose`, `exclude` and per-check paths, in the upstream
// text format (`[+]ping ok` … `readyz check passed`). Machines rely on the status code alone.

import type { NatsConnection } from '@nats-io/nats-core';
import { ServiceName, serviceSubjects } from '../../../shared/bus/subjects.js';

export type HealthCheck = { name: string; check: () => Promise<void> | void };

export interface HealthResult {
  code: number;
  text: string;
}

export async function runChecks(endpoint: string, checks: HealthCheck[], query: URLSearchParams, single?: string): Promise<HealthResult | null> {
  if (single !== undefined) {
    const c = checks.find((x) => x.name === single);
    if (!c) return null;
    try {
      await c.check();
      return { code: 200, text: 'ok' };
    } catch (err) {
      return { code: 500, text: `internal server error: ${(err as Error).message}` };
    }
  }
  const excluded = new Set(query.getAll('exclude').flatMap((e) => e.split(',')).filter(Boolean));
  const verbose = query.has('verbose');
  const lines: string[] = [];
  let failed = false;
  const results = await Promise.all(
    checks.map(async (c) => {
      if (excluded.has(c.name)) return `[+]${c.name} excluded: ok`;
      try {
        await c.check();
        return `[+]${c.name} ok`;
      } catch {
        failed = true;
        return `[-]${c.name} failed: reason withheld`;
      }
    }),
  );
  lines.push(...results);
  for (const name of excluded) if (!checks.some((c) => c.name === name)) lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
  if (!failed && !verbose) return { code: 200, text: 'ok' };
  lines.push(failed ? `${endpoint} check failed` : `${endpoint} check passed`);
  return { code: failed ? 500 : 200, text: lines.join('\n') + '\n' };
}

export interface GatewayHealth {
  livez: HealthCheck[];
  readyz: HealthCheck[];
}

export interface GatewayHealthDeps {
  nc: NatsConnection;
  /** The watch cache holds the initial state and its feed is running. */
  cacheReady(): boolean;
  shuttingDown(): boolean;
  pingTimeoutMs: number;
}

/** The gateway's checks: NATS, the watch cache, each neighbouring service answering `$SRV.PING`, shutdown. */
export function gatewayHealth(d: GatewayHealthDeps): GatewayHealth {
  const pingedUntil = new Map<string, number>();
  const pingService = (name: string) => async () => {
    if ((pingedUntil.get(name) ?? 0) > Date.now()) return;
    await d.nc.request(serviceSubjects.ping(name), undefined, { timeout: d.pingTimeoutMs });
    pingedUntil.set(name, Date.now() + 1_000);
  };
  const nats: HealthCheck = {
    name: 'nats',
    check: () => {
      if (d.nc.isClosed()) throw new Error('NATS connection closed');
    },
  };
  const livez: HealthCheck[] = [{ name: 'ping', check: () => undefined }, nats];
  const readyz: HealthCheck[] = [
    ...livez,
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
