// The Local APIServices every cluster lists (upstream's autoregistration of the groups the server
// installs): once the cache is synced, each missing one is created, and one whose spec was changed
// gets the server's spec back and one that does not show Available gets it, all through the
// generic store as the API server's own loopback identity, as bootstrap.ts writes the system
// namespaces. Several gateways doing it at once is harmless: a create that loses is AlreadyExists,
// an update that loses is retried against the new state.

import type { Logger } from 'pino';
import { StatusError } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import { nowTimestamp } from '../../shared/api/time.js';
import { jsonEqual } from '../../shared/patch/json-value.js';
import { APIREGISTRATION_GROUP, apiservices, isLocalAvailable, setLocalAvailable } from '../../shared/registry/builtin/apiregistration/api-service.js';
import { localApiServices } from '../../shared/registry/builtin/apiregistration/local-api-services.js';
import { API_SERVER_MANAGER, API_SERVER_USER } from '../../shared/registry/rest/internal-store.js';
import type { GenericStore } from '../../shared/registry/rest/generic-store.js';
import type { WriteRequest } from '../../shared/registry/rest/store-types.js';
import type { Targets } from '../../shared/registry/target.js';
import type { Target } from '../../shared/registry/types.js';

const RETRY_MS = 1_000;
const MAX_ATTEMPTS = 60;
/** Local APIServices written at once. */
const WRITERS = 8;

/** What became of one Local APIService. */
type Outcome = 'created' | 'repaired' | 'kept';

/**
 * Thrown by an update's compute that finds nothing to change: the store then stops before
 * admission and the write, so a restart that finds every APIService in place costs one read each.
 */
class Unchanged extends Error {}

/** Runs one read-modify-write; false when `change` found nothing to do (it returns undefined). */
async function updateIfChanged(store: GenericStore, req: WriteRequest, change: (current: ApiObject) => ApiObject | undefined): Promise<boolean> {
  try {
    await store.update(req, (current) => {
      const next = change(current);
      if (!next) throw new Unchanged();
      return next;
    });
    return true;
  } catch (err) {
    if (err instanceof Unchanged) return false;
    throw err;
  }
}

function writeRequest(target: Target, name: string, subresource?: string): WriteRequest {
  return { target, user: API_SERVER_USER, namespace: undefined, name, dryRun: false, warnings: [], manager: API_SERVER_MANAGER, ...(subresource ? { subresource } : {}) };
}

/** Puts the server's spec back on a Local APIService whose spec differs from it. */
function repairSpec(store: GenericStore, target: Target, desired: ApiObject): Promise<boolean> {
  return updateIfChanged(store, writeRequest(target, desired.metadata.name!), (current) => (jsonEqual(current.spec, desired.spec) ? undefined : { ...current, spec: structuredClone(desired.spec) }));
}

/** Marks a Local APIService Available unless it already shows it. */
function repairStatus(store: GenericStore, target: Target, name: string): Promise<boolean> {
  return updateIfChanged(store, writeRequest(target, name, 'status'), (current) => {
    if (isLocalAvailable(current)) return undefined;
    setLocalAvailable(current, nowTimestamp());
    return current;
  });
}

/** Creates the APIService, or brings an existing one back to the server's spec and status. */
async function ensureOne(store: GenericStore, target: Target, desired: ApiObject): Promise<Outcome> {
  const name = desired.metadata.name!;
  if (!(await store.exists(target, undefined, name))) {
    try {
      // A create of a Local APIService is Available at once (the type's prepareForCreate).
      await store.create(writeRequest(target, name), structuredClone(desired));
      return 'created';
    } catch (err) {
      if (!(err instanceof StatusError && err.status.reason === 'AlreadyExists')) throw err;
    }
  }
  const spec = await repairSpec(store, target, desired);
  const status = await repairStatus(store, target, name);
  return spec || status ? 'repaired' : 'kept';
}

/** One APIService, retried while the services it needs are starting (up to a minute). */
async function ensureWithRetry(store: GenericStore, target: Target, desired: ApiObject, log: Logger, stopped: () => boolean): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ensureOne(store, target, desired);
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || stopped()) throw err;
      if (attempt === 1) log.warn({ err: (err as Error).message, apiService: desired.metadata.name }, 'cannot write a Local APIService yet; retrying');
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}

/**
 * Makes the cluster list a Local APIService, Available, for every built-in group/version the
 * registry serves; nothing when APIServices are not served. Objects another writer added (remote
 * APIServices) are left alone, and so are Local ones for group/versions no longer served.
 */
export async function ensureLocalApiServices(store: GenericStore, targets: Targets, log: Logger, stopped: () => boolean, present?: (t: Target) => Promise<ApiObject[]>): Promise<void> {
  const target = targets.preferred(APIREGISTRATION_GROUP, apiservices.plural);
  if (!target) return;
  // With the stored ones at hand (one consistent read of the gateway's cache), those already in
  // place cost nothing; a gateway's every start would otherwise read each one three times.
  const stored = new Map((present ? await present(target) : []).map((o) => [o.metadata.name!, o]));
  const todo = localApiServices(targets.registry).filter((desired) => {
    const current = stored.get(desired.metadata.name!);
    return !(current && jsonEqual(current.spec, desired.spec) && isLocalAvailable(current));
  });
  // A first start writes some forty: a few at a time, since readiness waits for them (as
  // upstream's autoregistration gates its /readyz) and one after another took a busy machine most
  // of a minute, past the compose health check's patience.
  const worker = async () => {
    for (let desired = todo.shift(); desired && !stopped(); desired = todo.shift()) {
      const outcome = await ensureWithRetry(store, target, desired, log, stopped);
      if (outcome !== 'kept') log.info({ apiService: desired.metadata.name }, `${outcome} Local APIService`);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, worker));
}
