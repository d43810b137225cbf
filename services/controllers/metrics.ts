// What the controllers service's /metrics shows: the process's own metrics and upstream's
// `leader_election_master_status` (1 while this replica leads), in one registry of its own.

import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ElectionStatus } from './service.js';

export interface ControllersMetrics {
  text(): Promise<string>;
}

export function controllersMetrics(d: { election(): ElectionStatus | undefined; leaseName: string }): ControllersMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    labelNames: ['name'],
    registers: [registry],
    collect() {
      const e = d.election();
      if (e) this.set({ name: d.leaseName }, e.leading ? 1 : 0);
    },
  });
  return { text: () => registry.metrics() };
}
