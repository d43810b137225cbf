// What the controllers service's /metrics shows: the process's own metrics and upstream's
// `leader_election_master_status` (1 while this replica leads), in one registry of its own with
// upstream's stability rules (`--show-hidden-metrics-for-version`, `--disabled-metrics`).

import { MetricsRegistry, type MetricsOptions } from '../../shared/metrics/registry.js';
import { StabilityLevel } from '../../shared/metrics/stability.js';
import type { ElectionStatus } from './service.js';

export interface ControllersMetrics {
  text(): Promise<string>;
}

export function controllersMetrics(d: { election(): ElectionStatus | undefined; leaseName: string; options?: MetricsOptions }): ControllersMetrics {
  const registry = new MetricsRegistry(d.options);
  registry.processMetrics();
  const status = registry.gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    stabilityLevel: StabilityLevel.Alpha,
    labelNames: ['name'],
    collect() {
      const e = d.election();
      if (e) status.with([d.leaseName]).set(e.leading ? 1 : 0);
    },
  });
  return { text: () => registry.metrics() };
}
