// The controllers service's health checks, as upstream's controller manager has them: `ping`;
// `leaderElection` (a leader that stopped renewing is unhealthy, a standby is fine); for readiness
// also `apiserver` (the API answers this service's own credentials), one check per controller of
// the current term named after it (started, its caches synced) and `shutdown`.

import type { ApiClient } from '../../shared/client/rest.js';
import type { HealthCheck } from '../../shared/health/checks.js';
import { leaderElectionProblem } from './leader-election.js';
import type { ControllerState, ElectionStatus } from './service.js';

export interface ControllersHealth {
  livez(): HealthCheck[];
  readyz(): HealthCheck[];
}

export interface ControllersHealthDeps {
  client: ApiClient;
  election(): ElectionStatus | undefined;
  controllerStates(): ReadonlyMap<string, ControllerState>;
  stopping(): boolean;
  /** Bound of one probe of the API. */
  apiTimeoutMs?: number;
  now?: () => number;
}

/** A reachable API is believed for this long, so frequent probes do not each cost a request. */
const API_OK_FOR_MS = 1_000;

export function controllersHealth(d: ControllersHealthDeps): ControllersHealth {
  const now = d.now ?? Date.now;
  let apiOkUntil = 0;
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  const leaderElection: HealthCheck = {
    name: 'leaderElection',
    check: () => {
      const e = d.election();
      const problem = e && leaderElectionProblem(e, now(), e.leaseDurationMs, e.lease);
      if (problem) throw new Error(problem);
    },
  };
  const apiserver: HealthCheck = {
    name: 'apiserver',
    check: async () => {
      if (apiOkUntil > now()) return;
      try {
        await d.client.request('GET', '/livez', { timeoutMs: d.apiTimeoutMs ?? 2_000, accept: 'text/plain' });
      } catch (err) {
        throw new Error(`the API server at ${d.client.config.server.origin} is not reachable: ${(err as Error).message}`, { cause: err });
      }
      apiOkUntil = now() + API_OK_FOR_MS;
    },
  };
  const shutdown: HealthCheck = {
    name: 'shutdown',
    check: () => {
      if (d.stopping()) throw new Error('shutting down');
    },
  };
  const controllerChecks = (): HealthCheck[] =>
    [...d.controllerStates()].map(([name, s]) => ({
      name,
      check: () => {
        if (s.state === 'starting') throw new Error(`${name} has not started: its caches are not synced yet`);
        if (s.state === 'failed') throw new Error(`${name} failed to start: ${s.error}`);
      },
    }));
  return {
    livez: () => [ping, leaderElection],
    readyz: () => [ping, leaderElection, apiserver, ...controllerChecks(), shutdown],
  };
}
