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

/** The watches of the quota-tracked resources (upstream's quota monitor), each started on first use. */
class QuotaMonitors {
  private readonly monitors = new Map<string, Monitor>();
  private discovered: { at: number; resources: DiscoveredResource[] } | undefined;
  private stopped = false;
  private readonly stopping = new AbortController();

  constructor(
    private readonly client: ApiClient,
    private readonly log: Logger,
    /** The quotas' own informer, which serves `/resourcequotas`. */
    private readonly quotas: Informer,
    private readonly syncWaitMs: number,
    /** Called when an object of what `e` measures went away or may use less. */
    private readonly usageMayDrop: (e: Evaluator, namespace: string | undefined) => void,
  ) {}

  /** Whether an informer has its first list, waiting for it a while. */
  async synced(i: Informer): Promise<boolean> {
    if (i.hasSynced()) return true;
    const done = new AbortController();
    await Promise.race([i.synced, sleep(this.syncWaitMs, AbortSignal.any([done.signal, this.stopping.signal]))]);
    done.abort();
    return i.hasSynced();
  }

  /** The watch of one evaluator's resource, started on first use; undefined when it is not served. */
  async monitorFor(e: Evaluator): Promise<Monitor | undefined> {
    const { monitors } = this;
    const id = `${e.group}/${e.resource}`;
    const held = monitors.get(id);
    if (held) return held;
    if (id === '/resourcequotas') {
      const m = { informer: this.quotas, evaluator: e };
      monitors.set(id, m);
      return m;
    }
    const version = await this.versionOf(e.group, e.resource);
    if (!version || this.stopped || monitors.has(id)) return monitors.get(id);
    const informer = new Informer(
      this.client,
      { group: e.group, version, resource: e.resource },
      { metadataOnly: !FULL_OBJECTS.has(id), onError: (err) => this.log.warn({ err, resource: id }, 'watch of a quota-tracked resource failed; retrying') },
    );
    informer.addHandlers({
      onDelete: (o) => this.usageMayDrop(e, o.metadata.namespace),
      onUpdate: (oldObj, newObj) => {
        if (e.usageMayDrop?.(oldObj, newObj, Date.now())) this.usageMayDrop(e, newObj.metadata.namespace);
      },
    });
    const m = { informer, evaluator: e };
    monitors.set(id, m);
    informer.start();
    return m;
  }

  /** From now on no watch starts, and no wait for a first list lasts. */
  halt(): void {
    this.stopped = true;
    this.stopping.abort();
  }

  /** The watches started here (not the quotas' own). */
  informers(): Informer[] {
    return [...this.monitors.values()].filter((m) => m.informer !== this.quotas).map((m) => m.informer);
  }

  private async versionOf(group: string, resource: string): Promise<string | undefined> {
    if (group === '') return 'v1';
    if (!this.discovered || Date.now() - this.discovered.at > DISCOVERY_TTL_MS) this.discovered = { at: Date.now(), resources: await discoverResources(this.client) };
    const r = this.discovered.resources.find((d) => d.group === group && d.resource === resource && d.namespaced && d.verbs.includes('list') && d.verbs.includes('watch'));
    return r?.version;
  }
}

export function resourceQuotaController(client: ApiClient, log: Logger, opts: ResourceQuotaOptions = DEFAULT_RESOURCE_QUOTA): Controller {
  const quotas = new Informer(client, QUOTAS, { onError: (err) => log.warn({ err }, 'resource quota watch failed; retrying') });
  let resync: NodeJS.Timeout | undefined;
  const keyOf = (o: ApiObject) => `${o.metadata.namespace}/${o.metadata.name}`;

  /** Recounts the quotas of a namespace that track what `e` measures (upstream's replenishQuota). */
  function replenish(e: Evaluator, namespace: string | undefined): void {
    if (!namespace) return;
    for (const q of quotas.list(namespace)) {
      const hard = resourceNames(toResourceList((q.status as { hard?: unknown } | undefined)?.hard));
      if (e.matchingResources(hard).length) queue.add(keyOf(q));
    }
  }
  const monitors = new QuotaMonitors(client, log, quotas, opts.syncWaitMs ?? 10_000, replenish);

  async function sync(key: string): Promise<void> {
    const quota = quotas.get(key);
    if (!quota) return;
    const evaluators = evaluatorsFor(quota);
    const ready = new Map<Evaluator, Monitor>();
    await Promise.all(
      evaluators.map(async (e) => {
        const m = await monitors.monitorFor(e);
        if (m && (await monitors.synced(m.informer))) ready.set(e, m);
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
      monitors.halt();
      if (resync) clearInterval(resync);
      queue.shutDown();
      await Promise.all([quotas.stop(), ...monitors.informers().map((i) => i.stop())]);
    },
    idle: () => queue.idle(),
  };
}
