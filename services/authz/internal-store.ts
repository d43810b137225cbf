// The internal store (shared/registry/rest/internal-store.ts) wired to NATS, for the authz
// service's RBAC bootstrap and aggregation: storage, admission and the other services through
// their NATS clients (shared/bus/storage-client.ts, service-clients.ts), every request given the
// same deadline, and admission's interest followed so that a phase no plugin wants is skipped.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { DEFAULT_BUS_TIMEOUT_MS } from '../../shared/bus/client.js';
import { natsAdmission, natsAuthn, natsAuthz } from '../../shared/bus/service-clients.js';
import { AdmissionInterestCache } from '../../shared/bus/service-interest.js';
import { natsStorage } from '../../shared/bus/storage-client.js';
import type { Registry } from '../../shared/registry/registry.js';
import { internalStore, type InternalStore } from '../../shared/registry/rest/internal-store.js';

export interface InternalStoreDeps {
  nc: NatsConnection;
  registry: Registry;
  log: Logger;
  timeoutMs?: number;
  updateRetryMs?: number;
}

export function createInternalStore(deps: InternalStoreDeps): InternalStore {
  const { nc } = deps;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_BUS_TIMEOUT_MS;
  const interest = new AdmissionInterestCache(nc, deps.log);
  void interest.start();
  return internalStore({
    registry: deps.registry,
    storage: natsStorage(nc, timeoutMs),
    admission: natsAdmission(nc, interest, timeoutMs),
    services: { authn: natsAuthn(nc, timeoutMs), authz: natsAuthz(nc, timeoutMs) },
    updateRetryMs: deps.updateRetryMs,
    stop: () => interest.stop(),
  });
}
