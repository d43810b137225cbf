// The storage object in use protection controllers, as upstream's pvc-protection and
// pv-protection: StorageObjectInUseProtection admission puts a finalizer on every new claim and
// volume, so deleting one only marks it; these take the finalizer off once nothing uses it — a
// claim once no pod of its namespace uses it, a volume once it is not bound — and the deletion
// completes. Each also puts its finalizer back on an object that lacks it and is not being
// deleted (made while the admission plugin was off).

import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../../../shared/api/volume-protection.js';
import { Informer, objectKey } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound, type ResourceRef } from '../../../shared/client/rest.js';
import { WorkQueue } from '../queue.js';
import { queueController, type Controller } from '../types.js';
import { awaitsFinalizer, claimInUse, claimsToRecheck, lacksFinalizer, volumeInUse } from './decide.js';

const CLAIMS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const VOLUMES = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

/** A conflict only means the cache trailed the store: the retry reads the newer object. */
function onError(log: Logger, what: string) {
  return (key: string, err: unknown) => (isConflict(err) ? log.debug({ [what]: key }, 'changed meanwhile; retrying') : log.warn({ err, [what]: key }, 'protection failed; retrying'));
}

/**
 * Puts the object back with the finalizer added or removed (a full update of the cached object, as
 * upstream's: a stale copy is refused with a conflict and the retry reads the newer one).
 */
async function setFinalizer(client: ApiClient, ref: Omit<ResourceRef, 'namespace' | 'name'>, o: ApiObject, finalizer: string, present: boolean): Promise<void> {
  const held = o.metadata.finalizers ?? [];
  const finalizers = present ? [...held, finalizer] : held.filter((f) => f !== finalizer);
  const target = { ...ref, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name! };
  try {
    await client.update(target, { ...o, metadata: { ...o.metadata, finalizers } });
  } catch (err) {
    // Gone meanwhile: nothing left to protect.
    if (!isNotFound(err)) throw err;
  }
}

export function pvcProtectionController(client: ApiClient, log: Logger): Controller {
  const claims = new Informer(client, CLAIMS, { onError: (err) => log.warn({ err }, 'persistent volume claim watch failed; retrying') });
  const pods = new Informer(client, PODS, { onError: (err) => log.warn({ err }, 'pod watch failed; retrying') });

  /**
   * The cache first: a pod there that uses the claim settles it. Finding none is confirmed by a
   * live list, since a pod just created may not have reached the cache yet.
   */
  async function inUse(claim: ApiObject): Promise<boolean> {
    const namespace = claim.metadata.namespace!;
    if (claimInUse(claim, pods.list(namespace))) return true;
    const live = await client.list({ ...PODS, namespace });
    return claimInUse(claim, live.items);
  }

  async function sync(key: string): Promise<void> {
    const claim = claims.get(key);
    if (!claim) return;
    if (awaitsFinalizer(claim, PVC_PROTECTION_FINALIZER)) {
      if (!(await inUse(claim))) {
        await setFinalizer(client, CLAIMS, claim, PVC_PROTECTION_FINALIZER, false);
        log.info({ claim: key }, 'persistent volume claim unused; protection finalizer removed');
        return;
      }
      log.debug({ claim: key }, 'keeping the persistent volume claim: a pod uses it');
    }
    if (lacksFinalizer(claim, PVC_PROTECTION_FINALIZER)) await setFinalizer(client, CLAIMS, claim, PVC_PROTECTION_FINALIZER, true);
  }

  const queue = new WorkQueue(sync, { onError: onError(log, 'claim') });
  const enqueueClaim = (c: ApiObject) => {
    if (awaitsFinalizer(c, PVC_PROTECTION_FINALIZER) || lacksFinalizer(c, PVC_PROTECTION_FINALIZER)) queue.add(objectKey(c));
  };
  claims.addHandlers({ onAdd: enqueueClaim, onUpdate: (_o, n) => enqueueClaim(n) });
  const recheck = (pod: ApiObject, deleted: boolean) => {
    for (const name of claimsToRecheck(pod, deleted)) queue.add(`${pod.metadata.namespace}/${name}`);
  };
  pods.addHandlers({
    onAdd: (p) => recheck(p, false),
    onUpdate: (o, n) => {
      recheck(n, false);
      // The update may hide a deletion and a new pod of the same name: the old one's claims are free.
      if (o.metadata.uid !== n.metadata.uid) recheck(o, true);
    },
    onDelete: (p) => recheck(p, true),
  });
  // Pods first: a claim looked at before they are listed would only cost a live list.
  return queueController('pvc-protection', [pods, claims], queue);
}

export function pvProtectionController(client: ApiClient, log: Logger): Controller {
  const volumes = new Informer(client, VOLUMES, { onError: (err) => log.warn({ err }, 'persistent volume watch failed; retrying') });

  async function sync(name: string): Promise<void> {
    const pv = volumes.get(name);
    if (!pv) return;
    if (awaitsFinalizer(pv, PV_PROTECTION_FINALIZER)) {
      if (!volumeInUse(pv)) {
        await setFinalizer(client, VOLUMES, pv, PV_PROTECTION_FINALIZER, false);
        log.info({ volume: name }, 'persistent volume not bound; protection finalizer removed');
        return;
      }
      log.debug({ volume: name }, 'keeping the persistent volume: it is bound');
    }
    if (lacksFinalizer(pv, PV_PROTECTION_FINALIZER)) await setFinalizer(client, VOLUMES, pv, PV_PROTECTION_FINALIZER, true);
  }

  const queue = new WorkQueue(sync, { onError: onError(log, 'volume') });
  const enqueue = (pv: ApiObject) => {
    if (awaitsFinalizer(pv, PV_PROTECTION_FINALIZER) || lacksFinalizer(pv, PV_PROTECTION_FINALIZER)) queue.add(pv.metadata.name!);
  };
  volumes.addHandlers({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n) });
  return queueController('pv-protection', [volumes], queue);
}
