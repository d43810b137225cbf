// The resource quota controller (upstream's resourcequota controller with its quota monitor):
// keeps every ResourceQuota's status.hard equal to spec.hard and recounts status.used from the
// namespace's objects — when a quota appears or its spec.hard changes, on a periodic full resync,
// and when a tracked object goes away or stops using compute (a deleted pod, a pod that finished,
// a service no longer of type LoadBalancer/NodePort), since admission only ever adds usage. The
// objects of each tracked resource are watched from the first quota that needs them on (pods,
// services and claims in full, anything counted by `count/<resource>.<group>` metadata only).

import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { discoverResources, type DiscoveredResource } from '../../../shared/client/discovery.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound } from '../../../shared/client/rest.js';
import { sleep } from '../../../shared/ground/sleep.js';
import type { Evaluator } from '../../../shared/quota/evaluators.js';
import { toResourceList, resourceNames, equalLists } from '../../../shared/quota/resource-list.js';
import { WorkQueue } from '../queue.js';
import type { Controller } from '../types.js';
import { evaluatorsFor, nextStatus, recount } from './usage.js';

export interface ResourceQuotaOptions {
  /** `--resource-quota-sync-period`: every quota is recounted this often (upstream: 5 minutes). */
  resyncMs: number;
  /** `--concurrent-resource-quota-syncs` (upstream: 5). */
  workers: number;
  /** How long a recount waits for a newly watched resource's first list. */
  syncWaitMs?: number;
}

export const DEFAULT_RESOURCE_QUOTA: ResourceQuotaOptions = { resyncMs: 5 * 60_000, workers: 5 };

const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };
/** Resources whose objects' content matters (usage, scopes); the rest are only counted. */
const FULL_OBJECTS = new Set(['/pods', '/services', '/persistentvolumeclaims']);
const DISCOVERY_TTL_MS = 30_000;

interface Monitor {
  informer: Informer;
  evaluator: Evaluator;
}

export function resourceQuotaController(client: ApiClient, log: Logger, opts: ResourceQuotaOptions = DEFAULT_RESOURCE_QUOTA): Controller {
  const quotas = new Informer(client, QUOTAS, { onError: (err) => log.warn({ err }, 'resource quota watch failed; retrying') });
  const monitors = new Map<string, Monitor>();
  let discovered: { at: number; resources: DiscoveredResource[] } | undefined;
  let resync: NodeJS.Timeout | undefined;
  let stopped = false;
  const stopping = new AbortController();
  const syncWaitMs = opts.syncWaitMs ?? 10_000;

  /** Whether an informer has its first list, waiting for it a while. */
  async function synced(i: Informer): Promise<boolean> {
    if (i.hasSynced()) return true;
    const done = new AbortController();
    await Promise.race([i.synced, sleep(syncWaitMs, AbortSignal.any([done.signal, stopping.signal]))]);
    done.abort();
    return i.hasSynced();
  }

  const keyOf = (o: ApiObject) => `${o.metadata.namespace}/${o.metadata.name}`;

  /** Recounts the quotas of a namespace that track what `e` measures (upstream's replenishQuota). */
  function replenish(e: Evaluator, namespace: string | undefined): void {
    if (!namespace) return;
    for (const q of quotas.list(namespace)) {
      const hard = resourceNames(toResourceList((q.status as { hard?: unknown } | undefined)?.hard));
      if (e.matchingResources(hard).length) queue.add(keyOf(q));
    }
  }

  async function versionOf(group: string, resource: string): Promise<string | undefined> {
    if (group === '') return 'v1';
    if (!discovered || Date.now() - discovered.at > DISCOVERY_TTL_MS) discovered = { at: Date.now(), resources: await discoverResources(client) };
    const r = discovered.resources.find((d) => d.group === group && d.resource === resource && d.namespaced && d.verbs.includes('list') && d.verbs.includes('watch'));
    return r?.version;
  }

  /** The watch of one evaluator's resource, started on first use; undefined when it is not served. */
  async function monitorFor(e: Evaluator): Promise<Monitor | undefined> {
    const id = `${e.group}/${e.resource}`;
    const held = monitors.get(id);
    if (held) return held;
    if (id === '/resourcequotas') {
      const m = { informer: quotas, evaluator: e };
      monitors.set(id, m);
      return m;
    }
    const version = await versionOf(e.group, e.resource);
    if (!version || stopped || monitors.has(id)) return monitors.get(id);
    const informer = new Informer(
      client,
      { group: e.group, version, resource: e.resource },
      { metadataOnly: !FULL_OBJECTS.has(id), onError: (err) => log.warn({ err, resource: id }, 'watch of a quota-tracked resource failed; retrying') },
    );
    informer.addHandlers({
      onDelete: (o) => replenish(e, o.metadata.namespace),
      onUpdate: (oldObj, newObj) => {
        if (e.usageMayDrop?.(oldObj, newObj, Date.now())) replenish(e, newObj.metadata.namespace);
      },
    });
    const m = { informer, evaluator: e };
    monitors.set(id, m);
    informer.start();
    return m;
  }

  async function sync(key: string): Promise<void> {
    const quota = quotas.get(key);
    if (!quota) return;
    const evaluators = evaluatorsFor(quota);
    const ready = new Map<Evaluator, Monitor>();
    await Promise.all(
      evaluators.map(async (e) => {
        const m = await monitorFor(e);
        if (m && (await synced(m.informer))) ready.set(e, m);
      }),
    );
    const counted = recount(quota, evaluators, (e, ns) => ready.get(e)?.informer.list(ns), Date.now());
    const status = nextStatus(quota, counted.used);
    if (status) {
      try {
        await client.update({ ...QUOTAS, namespace: quota.metadata.namespace!, name: quota.metadata.name!, subresource: 'status' }, { ...quota, status });
      } catch (err) {
        // Gone: nothing to keep. Changed meanwhile (admission charged it): the retry counts again.
        if (isNotFound(err)) return;
        if (isConflict(err)) throw new Error(`resource quota ${key} changed while being counted`);
        throw err;
      }
    }
    if (counted.unavailable.length) throw new Error(`usage of ${counted.unavailable.join(', ')} could not be counted yet (their objects are not listed)`);
  }

  const queue = new WorkQueue(sync, {
    workers: opts.workers,
    onError: (key, err) => log.warn({ err: (err as Error).message, quota: key }, 'resource quota sync failed; retrying'),
  });

  quotas.addHandlers({
    onAdd: (q) => queue.add(keyOf(q)),
    // Only spec.hard drives a recount: status changes are this controller's and admission's own.
    onUpdate: (o, n) => {
      if (!equalLists(toResourceList((o.spec as { hard?: unknown } | undefined)?.hard), toResourceList((n.spec as { hard?: unknown } | undefined)?.hard))) queue.add(keyOf(n));
    },
  });

  return {
    name: 'resourcequota',
    async start() {
      quotas.start();
      await quotas.synced;
      resync = setInterval(() => {
        for (const q of quotas.list()) queue.add(keyOf(q));
      }, opts.resyncMs);
      resync.unref();
    },
    async stop() {
      stopped = true;
      stopping.abort();
      if (resync) clearInterval(resync);
      queue.shutDown();
      await Promise.all([quotas.stop(), ...[...monitors.values()].filter((m) => m.informer !== quotas).map((m) => m.informer.stop())]);
    },
    idle: () => queue.idle(),
  };
}
