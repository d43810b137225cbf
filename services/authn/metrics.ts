// What the authn service's /metrics shows besides the process's own metrics: each authenticator's
// attempts and their latency, by result (success, failure: a credential it rejected, error: it
// failed). An authenticator that skips a request (not its kind of credential) has not attempted it.
// The gateway's /metrics has upstream's chain-wide authentication_attempts and _duration_seconds.

import { exponentialBuckets, SeriesIndex, type CounterCell, type HistogramCell } from '../../shared/metrics/families.js';
import type { MetricsRegistry } from '../../shared/metrics/registry.js';
import { StabilityLevel } from '../../shared/metrics/stability.js';
import type { AuthenticatorResult } from './chain.js';

export class AuthnMetrics {
  private readonly cells: SeriesIndex<[CounterCell, HistogramCell]>;
  private readonly key = ['', ''];

  constructor(registry: MetricsRegistry) {
    const attempts = registry.counter({
      name: 'platform_authenticator_attempts_total',
      help: 'Counter of authentication attempts broken out by authenticator and result (success, failure, error).',
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['authenticator', 'result'],
    });
    const duration = registry.histogram({
      name: 'platform_authenticator_duration_seconds',
      help: 'Authentication latency in seconds broken out by authenticator and result.',
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['authenticator', 'result'],
      // 100 µs (a token in memory) to 3 s (a webhook or an OIDC key fetch).
      buckets: exponentialBuckets(0.0001, 2, 16),
    });
    this.cells = new SeriesIndex(2, (values) => [attempts.with(values), duration.with(values)]);
  }

  /** The chain's hook (ChainHooks.onResult). */
  readonly observe = (authenticator: string, result: AuthenticatorResult, seconds: number): void => {
    this.key[0] = authenticator;
    this.key[1] = result;
    const [attempts, duration] = this.cells.get(this.key);
    attempts.inc();
    duration.observe(seconds);
  };
}
