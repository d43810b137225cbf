// Request metrics in the upstream names, served at /metrics in the Prometheus text format.

import { Counter, Histogram, Registry as PromRegistry, collectDefaultMetrics } from 'prom-client';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
