// Keeps CustomResourceDefinitions' status (definition-status.ts) and their cleanup: a new
// definition gets the cleanup finalizer; a deleted one is Terminating while every object of it is
// deleted through the API (the gateways serve it until the finalizer goes), and the finalizer is
// removed once none is left. Upstream runs these in the API server; here they are one controller of
// the controllers service, so definitions become Established only where it runs (as everywhere
// the system is started: npm start, compose, Helm).

import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { nowTimestamp } from '../../../shared/api/time.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound } from '../../../shared/client/rest.js';
import { WorkQueue } from '../queue.js';
import { queueController, type Controller } from '../types.js';
import { CLEANUP_FINALIZER, desiredStatus } from './definition-status.js';

const DEFINITIONS = { group: 'apiextensions.platform.io', version: 'v1', resource: 'customresourcedefinitions' };
/** While objects are still going away (their own finalizers, grace periods), look again after this long. */
const REMAINING_RETRY_MS = 2_000;

export function customResourceDefinitionController(client: ApiClient, log: Logger): Controller {
  const informer = new Informer(client, DEFINITIONS, { onError: (err) => log.warn({ err }, 'definition watch failed; retrying') });
  const queue = new WorkQueue(reconcile, { onError: (key, err) => log.warn({ err, definition: key }, 'definition not reconciled; retrying') });
  informer.addHandlers({
    onAdd: (o) => queue.add(o.metadata.name!),
    // A change of one definition's accepted names may free or take names another one wants.
    onUpdate: (_old, o) => {
      for (const d of informer.list()) if (d.metadata.name === o.metadata.name || groupOf(d) === groupOf(o)) queue.add(d.metadata.name!);
    },
    onDelete: (o) => {
      for (const d of informer.list()) if (groupOf(d) === groupOf(o)) queue.add(d.metadata.name!);
    },
  });

  async function reconcile(name: string): Promise<void | { requeueAfterMs: number }> {
    const crd = informer.get(name);
    if (!crd) return;
    const finalizers = crd.metadata.finalizers ?? [];
    if (!crd.metadata.deletionTimestamp) {
      if (!finalizers.includes(CLEANUP_FINALIZER)) {
        await write(() => client.update({ ...DEFINITIONS, name }, { ...crd, metadata: { ...crd.metadata, finalizers: [...finalizers, CLEANUP_FINALIZER] } }));
        return;
      }
      await writeStatus(crd);
      return;
    }
    if (!finalizers.includes(CLEANUP_FINALIZER)) return;
    const terminating = await deleteInstances(crd);
    await writeStatus(crd, terminating);
    if (terminating.remaining > 0 || terminating.error) return { requeueAfterMs: REMAINING_RETRY_MS };
    await write(() => client.update({ ...DEFINITIONS, name }, { ...crd, metadata: { ...crd.metadata, finalizers: finalizers.filter((f) => f !== CLEANUP_FINALIZER) } }));
    log.info({ definition: name }, 'every custom resource deleted; definition released');
  }

  async function writeStatus(crd: ApiObject, terminating?: { remaining: number; error?: string }): Promise<void> {
    const status = desiredStatus(crd, informer.list(), nowTimestamp(), terminating);
    if (!status) return;
    await write(() => client.update({ ...DEFINITIONS, name: crd.metadata.name!, subresource: 'status' }, { ...crd, status }));
  }

  /** Deletes every object of the definition's resource through a served version; counts what is left. */
  async function deleteInstances(crd: ApiObject): Promise<{ remaining: number; error?: string }> {
    const spec = crd.spec as { group: string; names: { plural: string }; versions: Array<{ name: string; served: boolean }> };
    const accepted = (crd.status as { acceptedNames?: { plural?: string } } | undefined)?.acceptedNames?.plural;
    const version = spec.versions.find((v) => v.served)?.name;
    // Never served (no accepted names, no served version): no object can exist.
    if (!version || !accepted) return { remaining: 0 };
    const ref = { group: spec.group, version, resource: accepted };
    try {
      const items = (await client.list(ref)).items;
      for (const o of items.filter((x) => !x.metadata.deletionTimestamp)) {
        await client.delete({ ...ref, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name! }, { propagationPolicy: 'Background' }).catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
      }
      return { remaining: items.length };
    } catch (err) {
      // The gateways stopped serving it (not Established any more): nothing can be listed or left.
      if (isNotFound(err)) return { remaining: 0 };
      return { remaining: 1, error: (err as Error).message };
    }
  }

  /** A conflict or a definition gone meanwhile: the informer's next event queues it again. */
  async function write(op: () => Promise<unknown>): Promise<void> {
    try {
      await op();
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }

  return queueController('customresourcedefinitions', [informer], queue);
}

const groupOf = (crd: ApiObject) => (crd.spec as { group?: string } | undefined)?.group;
