// The watch rows of the table, both through the gateway with the minimal server's delivery beside
// it in the same run: one write fanned out to many watchers, and one watcher at rest receiving one
// write a second (the write path, the storage service, the bucket's change feed and the gateway's
// watch cache, with no other load).

import type { BenchCluster } from './cluster.js';
import type { HttpClient } from './http.js';
import { ms } from './report.js';
import type { Row } from './report.js';
import { watchFanout } from './watch.js';

export interface WatchTargets {
  watchers: number;
  writes: number;
  /** Fan-out p99 at most this many times the minimal server's in the same run. */
  fanoutOverMinimal: number;
  rest: { writes: number; p50Ms: number; p99Ms: number };
}

/**
 * The fan-out through the gateway, and the same watchers and creates against the minimal server,
 * which writes each create's event to every watch socket at once: the floor of delivering one
 * event to this many TLS watchers and reading it back, on this machine.
 */
export async function fanoutFigure(c: BenchCluster, clients: { gw: HttpClient; bare: HttpClient }, namespace: string, t: WatchTargets): Promise<Row> {
  const opts = { caPem: c.caPem, token: c.token, namespace, watchers: t.watchers, writes: t.writes };
  const fan = await watchFanout(clients.gw, { ...opts, url: c.gatewayUrl });
  const floor = await watchFanout(clients.bare, { ...opts, url: c.baselineUrl });
  const ratio = Math.round((fan.p99Ms / floor.p99Ms) * 100) / 100;
  return {
    figure: `watch fan-out to ${fan.watchers.toLocaleString('en-US')} watchers (${fan.writes} writes)`,
    measured: `p50 ${ms(fan.p50Ms)} p99 ${ms(fan.p99Ms)}`,
    limit: `min ${ms(fan.minMs)} max ${ms(fan.maxMs)}, per-write p99 ${fan.perWriteP99Ms.map((x) => x.toFixed(0)).join('/')} ms, missed ${fan.missed}; minimal server p50 ${ms(floor.p50Ms)} p99 ${ms(floor.p99Ms)} min ${ms(floor.minMs)}`,
    ratio,
    target: `p99 ≤ ${t.fanoutOverMinimal}× minimal`,
    ok: ratio <= t.fanoutOverMinimal && fan.missed === 0,
  };
}

/** One watcher, one create a second: POST sent → the event's chunk at the watcher, through the gateway and then the minimal server. */
export async function restLatencyFigure(c: BenchCluster, clients: { gw: HttpClient; bare: HttpClient }, namespace: string, t: WatchTargets): Promise<Row> {
  const opts = { caPem: c.caPem, token: c.token, namespace, watchers: 1, writes: t.rest.writes, pauseMs: 1_000, prefix: 'rest' };
  const gw = await watchFanout(clients.gw, { ...opts, url: c.gatewayUrl });
  const floor = await watchFanout(clients.bare, { ...opts, url: c.baselineUrl });
  return {
    figure: `write-to-watcher latency at rest (1 watcher, ${gw.writes} writes, one a second)`,
    measured: `p50 ${ms(gw.p50Ms)} p99 ${ms(gw.p99Ms)}`,
    limit: `min ${ms(gw.minMs)}, missed ${gw.missed}; minimal server p50 ${ms(floor.p50Ms)} p99 ${ms(floor.p99Ms)}`,
    target: `p50 ≤ ${t.rest.p50Ms} ms, p99 ≤ ${t.rest.p99Ms} ms`,
    ok: gw.p50Ms <= t.rest.p50Ms && gw.p99Ms <= t.rest.p99Ms && gw.missed === 0,
  };
}
