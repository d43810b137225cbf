// The generic store for services without a watch cache (authz's RBAC bootstrap and aggregation,
// controllers): the same strategy, admission, validation and write rules as an API request,
// reading current state through the storage service (its reads are direct, so always fresh).
// Internal writes run as the API server's own loopback identity, as upstream's post-start hooks do.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { StatusError } from '../../api/status.js';
import type { ObjectRef, UserInfo } from '../../api/types.js';
import { busRequest } from '../../bus/client.js';
import { Subjects } from '../../bus/subjects.js';
import type { StorageGetReply, StorageGetRequest } from '../../bus/messages.js';
import { AdmissionInterestCache } from '../../bus/service-interest.js';
import type { Registry } from '../registry.js';
import { Targets } from '../target.js';
import { type Target } from '../types.js';
import { admissionClient } from './admission.js';
import type { BusRequest } from '../types.js';
import { GenericStore, type ObjectSource, type StoredObject, type WriteRequest } from './generic-store.js';

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

export interface InternalStoreDeps {
  nc: NatsConnection;
  registry: Registry;
  log: Logger;
  timeoutMs?: number;
  updateRetryMs?: number;
}

export function createInternalStore(deps: InternalStoreDeps): InternalStore {
  const timeoutMs = deps.timeoutMs ?? 5_000;
  const interest = new AdmissionInterestCache(deps.nc, deps.log);
  void interest.start();
  const bus: BusRequest = (subject, body) => busRequest(deps.nc, subject, body, timeoutMs);
  const source: ObjectSource = {
    async current(t, namespace, name): Promise<StoredObject | undefined> {
      const ref: ObjectRef = { group: t.storage.group, resource: t.storage.resource, name };
      if (namespace && t.namespaced) ref.namespace = namespace;
      try {
        return await bus<StorageGetReply>(Subjects.storageGet, { ref } satisfies StorageGetRequest);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      }
    },
    caughtUp: async () => undefined,
  };
  const store = new GenericStore({ registry: deps.registry, source, admit: admissionClient(deps.nc, interest, timeoutMs), bus, updateRetryMs: deps.updateRetryMs ?? 10_000 });
  return {
    store,
    targets: new Targets(deps.registry),
    get: (target, namespace, name) => source.current(target, namespace, name, true),
    write: (target, namespace, name) => ({ target, user: API_SERVER_USER, namespace: target.namespaced ? namespace : undefined, name, dryRun: false, warnings: [], manager: API_SERVER_MANAGER }),
    stop: () => interest.stop(),
  };
}
