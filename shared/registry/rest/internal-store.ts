// The generic store for services without a watch cache (authz's RBAC bootstrap and aggregation):
// the same strategy, admission, validation and write rules as an API request, reading current
// state with the storage interface's get (direct reads, so always fresh). Internal writes run as
// the API server's own loopback identity, as upstream's post-start hooks do. This is the store
// over the interfaces; a service wires them to NATS (services/authz/internal-store.ts).

import type { UserInfo } from '../../api/types.js';
import type { AdmissionPort } from '../../contracts/admission.js';
import { lookup, type Storage } from '../../contracts/storage.js';
import type { Registry } from '../registry.js';
import { Targets } from '../target.js';
import type { ServicePorts, Target } from '../types.js';
import { admissionAdmitter } from './admission.js';
import { GenericStore } from './generic-store.js';
import type { ObjectSource, StoredObject, WriteRequest } from './store-types.js';
import { storageRef } from './stored-form.js';

/** Who the API server's own writes run as (upstream's loopback client, a member of system:masters). */
export const API_SERVER_USER: UserInfo = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };
/** The field manager of the server's own writes (bootstrap policy, aggregation, system namespaces). */
export const API_SERVER_MANAGER = 'platform-apiserver';

export interface InternalStore {
  store: GenericStore;
  targets: Targets;
  /** The stored object and its revision; undefined when absent. */
  get(target: Target, namespace: string | undefined, name: string): Promise<StoredObject | undefined>;
  /** A write request of the API server itself. */
  write(target: Target, namespace: string | undefined, name: string): WriteRequest;
  stop(): void;
}

export interface InternalStoreParts {
  registry: Registry;
  storage: Storage;
  admission: AdmissionPort;
  services: ServicePorts;
  updateRetryMs?: number;
  /** Stops what the wiring started for the ports (e.g. the admission interest's refresh). */
  stop?: () => void;
}

export function internalStore(parts: InternalStoreParts): InternalStore {
  const source: ObjectSource = {
    current: (t, namespace, name, _fresh, deadline) => lookup(parts.storage, storageRef(t, namespace, name), deadline),
    caughtUp: async () => undefined,
  };
  const store = new GenericStore({
    registry: parts.registry,
    source,
    admit: admissionAdmitter(parts.admission, parts.registry.names),
    storage: parts.storage,
    services: parts.services,
    updateRetryMs: parts.updateRetryMs ?? 10_000,
  });
  return {
    store,
    targets: new Targets(parts.registry),
    get: (target, namespace, name) => source.current(target, namespace, name, true),
    write: (target, namespace, name) => ({ target, user: API_SERVER_USER, namespace: target.namespaced ? namespace : undefined, name, dryRun: false, warnings: [], manager: API_SERVER_MANAGER }),
    stop: () => parts.stop?.(),
  };
}
