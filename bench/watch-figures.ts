// The watch rows of the table, both through the gateway with the minimal server's delivery beside
// it in the same run: one write fanned out to many watchers, and one watcher at rest receiving one
// write a second (the write path, the storage service, the bucket's change feed and the gateway's
// watch cache, with no other load). The two servers take turns write by write (watch.ts).

import type { BenchCluster } from './cluster.js';
import type { HttpClient } from './http.js';
import { ms } from './report.js';
import type { Row } from './report.js';
import { alternate, openAudience, type Audience, type FanoutResult } from './watch.js';

export interface WatchTargets {
  watchers: number;
  writes: number;
  /** Fan-out p99 at most this many times the minimal server's in the same run. */
  fanoutOverMinimal: number;
  rest: { writes: number; p50Ms: number; p99Ms: number };
}

/** Pause after each fan-out write's deliveries: both sides go idle, writes never overlap. */
const FANOUT_PAUSE_MS = 200;

/** Each server's watchers (the gateway's first), kept open while `measure` runs; closed whatever happens. */
async function withAudiences<T>(
  c: BenchCluster,
  clients: { gw: HttpClient; bare: HttpClient },
  namespace: string,
  watchers: number,
  measure: (a: { gateway: Audience; minimal: Audience }) => Promise<T>,
): Promise<T> {
  const opts = { caPem: c.caPem, token: c.token, namespace, watchers };
  const gateway = await openAudience(clients.gw, { ...opts, url: c.gatewayUrl });
  try {
    const minimal = await openAudience(clients.bare, { ...opts, url: c.baselineUrl });
    try {
      return await measure({ gateway, minimal });
    } finally {
      minimal.close();
    }
  } finally {
    gateway.close();
  }
}

/**
 * The fan-out through the gateway, and the same creates to as many watchers of the minimal server,
 * which writes each create's event to every watch socket at once: the floor of delivering one
 * event to this many TLS watchers and reading it back, on this machine.
 */
export async function fanoutFigure(c: BenchCluster, clients: { gw: HttpClient; bare: HttpClient }, namespace: string, t: WatchTargets): Promise<Row> {
  const { gateway: fan, minimal: floor } = await withAudiences(c, clients, namespace, t.watchers, (a) => alternate(a, t.writes, FANOUT_PAUSE_MS, 'fanout'));
  const ratio = Math.round((fan.p99Ms / floor.p99Ms) * 100) / 100;
  return {
    figure: `watch fan-out to ${fan.watchers.toLocaleString('en-US')} watchers (${fan.writes} writes each, taking turns with the minimal server)`,
    measured: `p50 ${ms(fan.p50Ms)} p99 ${ms(fan.p99Ms)}`,
    limit: `min ${ms(fan.minMs)} max ${ms(fan.maxMs)}, per-write p99 ${spread(fan)}, missed ${fan.missed}; minimal server p50 ${ms(floor.p50Ms)} p99 ${ms(floor.p99Ms)} min ${ms(floor.minMs)}, per-write p99 ${spread(floor)}`,
    ratio,
    target: `p99 ≤ ${t.fanoutOverMinimal}× minimal`,
    ok: ratio <= t.fanoutOverMinimal && fan.missed === 0,
  };
}

/** One watcher each, one create a second: POST sent → the event's chunk at the watcher, the gateway and the minimal server half a second apart. */
export async function restLatencyFigure(c: BenchCluster, clients: { gw: HttpClient; bare: HttpClient }, namespace: string, t: WatchTargets): Promise<Row> {
  const { gateway: gw, minimal: floor } = await withAudiences(c, clients, namespace, 1, (a) => alternate(a, t.rest.writes, 500, 'rest'));
  return {
    figure: `write-to-watcher latency at rest (1 watcher, ${gw.writes} writes, one a second)`,
    measured: `p50 ${ms(gw.p50Ms)} p99 ${ms(gw.p99Ms)}`,
    limit: `min ${ms(gw.minMs)}, missed ${gw.missed}; minimal server p50 ${ms(floor.p50Ms)} p99 ${ms(floor.p99Ms)}`,
    target: `p50 ≤ ${t.rest.p50Ms} ms, p99 ≤ ${t.rest.p99Ms} ms`,
    ok: gw.p50Ms <= t.rest.p50Ms && gw.p99Ms <= t.rest.p99Ms && gw.missed === 0,
  };
}

/** The least and largest of the per-write p99s. */
function spread(r: FanoutResult): string {
  return `${Math.min(...r.perWriteP99Ms).toFixed(0)}–${Math.max(...r.perWriteP99Ms).toFixed(0)} ms`;
}
