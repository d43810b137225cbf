// Round-trip latency of every NATS contract as the caller sees it (request sent → reply decoded),
// per subject and outcome: `platform_bus_request_duration_seconds`. Subjects come from subjects.ts,
// so the label set is bounded. A resent idempotent request is one round trip, both tries included.

import type { HistogramCell, HistogramFamily } from '../metrics/families.js';
import type { MetricsRegistry } from '../metrics/registry.js';
import { StabilityLevel } from '../metrics/stability.js';

export const BusOutcome = {
  /** A value reply. */
  Ok: 'ok',
  /** A Status error reply from the service. */
  Error: 'error',
  /** No reply within the timeout (504). */
  Timeout: 'timeout',
  /** No responders, or the connection failed or closed (503). */
  Unavailable: 'unavailable',
} as const;
export type BusOutcome = (typeof BusOutcome)[keyof typeof BusOutcome];

const OUTCOMES = Object.values(BusOutcome);

/** NATS round trips are sub-millisecond on a quiet network; the upper buckets reach the 5 s default timeout. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class BusMetrics {
  private readonly family: HistogramFamily;
  /** Cells per subject, one per outcome in OUTCOMES order (made when first seen): one Map lookup per request. */
  private readonly bySubject = new Map<string, (HistogramCell | undefined)[]>();

  constructor(registry: MetricsRegistry) {
    this.family = registry.histogram({
      name: 'platform_bus_request_duration_seconds',
      help: 'NATS request/reply round-trip latency in seconds as the caller sees it, broken out by subject (contract) and outcome (ok, error, timeout, unavailable).',
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['subject', 'outcome'],
      buckets: BUCKETS,
    });
  }

  observe(subject: string, outcome: BusOutcome, seconds: number): void {
    let cells = this.bySubject.get(subject);
    if (!cells) this.bySubject.set(subject, (cells = []));
    const i = OUTCOMES.indexOf(outcome);
    (cells[i] ??= this.family.with([subject, outcome])).observe(seconds);
  }
}
