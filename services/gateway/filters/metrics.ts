// Request metrics in the upstream names, served at /metrics in the Prometheus text format, and
// the filter that records each request when its response is done.

import { Counter, Gauge, Histogram, Registry as PromRegistry, collectDefaultMetrics } from 'prom-client';
import type { AuditMetrics } from '../../../shared/audit/backend.js';
import type { RequestInfo } from '../../../shared/api/request-info.js';
import type { Filter } from './chain.js';

export class GatewayMetrics {
  readonly registry = new PromRegistry();
  readonly requests = new Counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const,
    buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    registers: [this.registry],
  });
  readonly watchers = new Counter({
    name: 'apiserver_longrunning_requests_started_total',
    help: 'Number of long-running requests (watches) started.',
    labelNames: ['group', 'version', 'resource'] as const,
    registers: [this.registry],
  });

  readonly inflight = new Gauge({
    name: 'apiserver_current_inflight_requests',
    help: 'Number of requests in flight now, per request kind (readOnly, mutating); long-running requests are not counted.',
    labelNames: ['request_kind'] as const,
    registers: [this.registry],
  });
  readonly droppedRequests = new Counter({
    name: 'apiserver_dropped_requests_total',
    help: 'Number of requests dropped with \'Try again later\' response.',
    labelNames: ['request_kind'] as const,
    registers: [this.registry],
  });
  readonly deprecatedApis = new Gauge({
    name: 'apiserver_requested_deprecated_apis',
    help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
    labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'] as const,
    registers: [this.registry],
  });

  readonly auditEvents = new Counter({
    name: 'apiserver_audit_event_total',
    help: 'Counter of audit events generated and sent to the audit backend.',
    registers: [this.registry],
  });
  readonly auditErrors = new Counter({
    name: 'apiserver_audit_error_total',
    help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
    labelNames: ['plugin'] as const,
    registers: [this.registry],
  });
  readonly auditLevels = new Counter({
    name: 'apiserver_audit_level_total',
    help: 'Counter of policy levels for audit events (1 per request).',
    labelNames: ['level'] as const,
    registers: [this.registry],
  });
  readonly auditRejected = new Counter({
    name: 'apiserver_audit_requests_rejected_total',
    help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
    registers: [this.registry],
  });
  /** The audit metrics as the audit backends count them. */
  readonly audit: AuditMetrics = {
    event: () => this.auditEvents.inc(),
    level: (level) => this.auditLevels.inc({ level }),
    error: (plugin, events) => this.auditErrors.inc({ plugin }, events),
    rejected: () => this.auditRejected.inc(),
  };

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A request reached a deprecated version (spec, Versioning rule 10). */
  requestedDeprecated(group: string, version: string, resource: string, subresource: string, removedRelease = ''): void {
    this.deprecatedApis.set({ group, version, resource, subresource, removed_release: removedRelease }, 1);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Counts and times every request by its RequestInfo (who made it is the audit log's business). */
export function metricsFilter(metrics: GatewayMetrics): Filter {
  return {
    name: 'metrics',
    onResponse(req, reply) {
      const api = req.api;
      if (!api) return;
      const info = api.info;
      const labels = {
        verb: metricVerb(info, req.headers['content-type']),
        group: info.apiGroup,
        version: info.apiVersion,
        resource: info.resource,
        subresource: info.subresource,
        scope: !info.isResourceRequest ? '' : info.namespace ? 'namespace' : 'cluster',
        component: 'apiserver',
      };
      metrics.requests.inc({ ...labels, code: String(reply.statusCode) });
      metrics.duration.observe(labels, (performance.now() - api.startedAt) / 1000);
    },
  };
}

// apiserver_request_total uses HTTP-style verbs (POST, LIST, WATCH, APPLY, …), not RBAC verbs.
const METRIC_VERBS: Record<string, string> = { create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETECOLLECTION', get: 'GET', list: 'LIST', watch: 'WATCH' };

function metricVerb(info: RequestInfo, contentType: string | undefined): string {
  if (!info.isResourceRequest) return info.verb.toUpperCase();
  if (info.verb === 'patch' && contentType?.startsWith('application/apply-patch')) return 'APPLY';
  return METRIC_VERBS[info.verb] ?? info.verb.toUpperCase();
}
