// What the authz service's /metrics shows besides the process's own metrics: upstream's
// apiserver_authorization_decisions_total (each Allow or Deny that ended the chain, by the
// authorizer that gave it) and the chain's latency by its decision.

import { Decision } from '../../shared/bus/messages.js';
import type { CounterCell, HistogramCell } from '../../shared/metrics/families.js';
import type { MetricsRegistry } from '../../shared/metrics/registry.js';
import { StabilityLevel } from '../../shared/metrics/stability.js';

const DECISION_LABEL: Record<string, string> = { [Decision.Allow]: 'allowed', [Decision.Deny]: 'denied' };

export class AuthzMetrics {
  /** Cells by authorizer, then decision (a handful of each). */
  private readonly decisions = new Map<string, Map<string, CounterCell>>();
  private readonly latency = new Map<string, HistogramCell>();
  private readonly decisionFamily;
  private readonly latencyFamily;

  constructor(registry: MetricsRegistry) {
    this.decisionFamily = registry.counter({
      name: 'apiserver_authorization_decisions_total',
      help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['type', 'name', 'decision'],
    });
    this.latencyFamily = registry.histogram({
      name: 'platform_authorization_duration_seconds',
      help: 'Latency in seconds of the authorizer chain for one request, broken out by its decision (allowed, denied).',
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['decision'],
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    });
  }

  /** The chain's hook (AuthzChainHooks.onDecision): `authorizer` is the mode (RBAC, Node, …), its name the mode in lower case. */
  readonly decided = (authorizer: string, decision: Decision): void => {
    let byDecision = this.decisions.get(authorizer);
    if (!byDecision) this.decisions.set(authorizer, (byDecision = new Map()));
    let c = byDecision.get(decision);
    if (!c) byDecision.set(decision, (c = this.decisionFamily.with([authorizer, authorizer.toLowerCase(), DECISION_LABEL[decision] ?? 'unknown'])));
    c.inc();
  };

  /** One run of the whole chain. */
  chain(decision: Decision, seconds: number): void {
    let c = this.latency.get(decision);
    if (!c) this.latency.set(decision, (c = this.latencyFamily.with([DECISION_LABEL[decision] ?? 'denied'])));
    c.observe(seconds);
  }
}
