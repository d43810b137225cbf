// Upstream's pod security metrics on the admission service's /metrics: evaluations per decision,
// level, version and mode; exempt requests; errors (fatal: the request was refused; non-fatal:
// unreadable labels evaluated as restricted:latest).

import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import { SeriesIndex, type CounterCell } from '../../../../shared/metrics/families.js';
import type { MetricsRegistry } from '../../../../shared/metrics/registry.js';
import { Level, minorVersion, versionOlder, versionString, type LevelVersion } from './policy.js';

/** The release this server implements: a policy version newer than it is reported as `future`. */
const API_VERSION = minorVersion(24);

const resourceLabel = (req: AdmissionRequest): string => {
  if (req.resource.group === '' && req.resource.resource === 'pods') return 'pod';
  if (req.resource.group === '' && req.resource.resource === 'namespaces') return 'namespace';
  return 'controller';
};

export class PodSecurityMetrics {
  private readonly evaluations: SeriesIndex<CounterCell>;
  private readonly exemptions: SeriesIndex<CounterCell>;
  private readonly errors: SeriesIndex<CounterCell>;

  constructor(registry: MetricsRegistry) {
    const evaluations = registry.counter({
      name: 'pod_security_evaluations_total',
      help: 'Number of policy evaluations that occurred, not counting ignored or exempt requests.',
      labelNames: ['decision', 'policy_level', 'policy_version', 'mode', 'request_operation', 'resource', 'subresource'],
    });
    const exemptions = registry.counter({
      name: 'pod_security_exemptions_total',
      help: 'Number of exempt requests, not counting ignored or out of scope requests.',
      labelNames: ['request_operation', 'resource', 'subresource'],
    });
    const errors = registry.counter({
      name: 'pod_security_errors_total',
      help: 'Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.',
      labelNames: ['fatal', 'request_operation', 'resource', 'subresource'],
    });
    this.evaluations = new SeriesIndex(7, (v) => evaluations.with(v));
    this.exemptions = new SeriesIndex(3, (v) => exemptions.with(v));
    this.errors = new SeriesIndex(4, (v) => errors.with(v));
  }

  recordEvaluation(decision: 'allow' | 'deny', policy: LevelVersion, mode: 'enforce' | 'audit' | 'warn', req: AdmissionRequest): void {
    // Privileged is the same at every version.
    const version = policy.version.latest || policy.level === Level.Privileged ? 'latest' : versionOlder(API_VERSION, policy.version) ? 'future' : versionString(policy.version);
    this.evaluations.get([decision, policy.level, version, mode, req.operation.toLowerCase(), resourceLabel(req), req.subResource ?? '']).inc();
  }

  recordExemption(req: AdmissionRequest): void {
    this.exemptions.get([req.operation.toLowerCase(), resourceLabel(req), req.subResource ?? '']).inc();
  }

  recordError(fatal: boolean, req: AdmissionRequest): void {
    this.errors.get([String(fatal), req.operation.toLowerCase(), resourceLabel(req), req.subResource ?? '']).inc();
  }
}
