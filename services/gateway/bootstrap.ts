// Objects the cluster always has: the system namespaces (upstream's beside them when upstream names
// are served) and the system PriorityClasses (upstream's scheduling post-start hook), created once
// the cache is synced through the generic store like any request (strategy, admission, validation), as the API server's own loopback identity.
// Several gateways racing to create them is harmless (AlreadyExists ignored). What exists is left
// as it is: an administrator's changes to these objects are kept.

import type { Logger } from 'pino';
import { StatusError } from '../../shared/api/status.js';
import { API_SERVER_MANAGER, API_SERVER_USER } from '../../shared/registry/rest/internal-store.js';
import { NODE_LEASE_NAMESPACE } from '../../shared/api/node-identity.js';
import type { GenericStore } from '../../shared/registry/rest/generic-store.js';
import type { Targets } from '../../shared/registry/target.js';
import type { Target } from '../../shared/registry/types.js';
import type { ApiObject } from '../../shared/api/types.js';

const SCHEDULING_GROUP = 'scheduling.platform.io';

export const SYSTEM_NAMESPACES = ['default', 'platform-system', 'platform-public', NODE_LEASE_NAMESPACE] as const;

const RETRY_MS = 1_000;
const MAX_ATTEMPTS = 60;

/** The classes of the cluster's own critical pods; their values are above any user-defined class's. */
export const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2_000_001_000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2_000_000_000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
] as const;

/** Creates one object unless it exists; retries while the services it needs are starting (up to a minute). */
async function ensureObject(store: GenericStore, target: Target, obj: ApiObject, log: Logger, stopped: () => boolean): Promise<boolean> {
  const name = obj.metadata.name!;
  for (let attempt = 1; ; attempt++) {
    try {
      if (await store.exists(target, undefined, name)) return false;
      await store.create({ target, user: API_SERVER_USER, namespace: undefined, name, dryRun: false, warnings: [], manager: API_SERVER_MANAGER }, obj);
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.status.reason === 'AlreadyExists') return false;
      if (attempt >= MAX_ATTEMPTS || stopped()) throw err;
      if (attempt === 1) log.warn({ err: (err as Error).message, kind: obj.kind, object: name }, 'cannot create a system object yet; retrying');
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}

/**
 * Creates the missing system namespaces (upstream's `kube-system`, `kube-public` and
 * `kube-node-lease` too when the registry serves upstream names), then the missing system PriorityClasses (which pods of
 * the system namespaces name, so they come second); retries while the services it needs start.
 */
export async function ensureSystemNamespaces(store: GenericStore, targets: Targets, log: Logger, stopped: () => boolean): Promise<void> {
  const target = targets.preferred('', 'namespaces');
  if (!target) throw new Error('namespaces are not served');
  for (const name of [...SYSTEM_NAMESPACES, ...targets.registry.names.systemNamespaces]) {
    if (await ensureObject(store, target, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, log, stopped)) log.info({ namespace: name }, 'created system namespace');
  }
  await ensureSystemPriorityClasses(store, targets, log, stopped);
}

/** Creates the missing system PriorityClasses; nothing when the scheduling group is not served. */
export async function ensureSystemPriorityClasses(store: GenericStore, targets: Targets, log: Logger, stopped: () => boolean): Promise<void> {
  const target = targets.preferred(SCHEDULING_GROUP, 'priorityclasses');
  if (!target) return;
  for (const pc of SYSTEM_PRIORITY_CLASSES) {
    const obj: ApiObject = { apiVersion: target.apiVersion, kind: 'PriorityClass', metadata: { name: pc.name }, value: pc.value, description: pc.description };
    if (await ensureObject(store, target, obj, log, stopped)) log.info({ priorityClass: pc.name }, 'created system priority class');
  }
}
