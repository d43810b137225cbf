// Keeps every APIService's Available condition (upstream's AvailableConditionController, which
// kube-apiserver runs itself; here a controller of the controllers service). A Local APIService is
// Available with reason Local. A remote one is checked (check.ts) when it, its Service or its
// Endpoints change, and again every resync period (upstream's 30 s) — only remote ones are
// re-checked, so a cluster with none costs nothing at rest. The condition is written only when it
// changes: a steady backend costs one GET a period and no write.

import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { nowTimestamp } from '../../../shared/api/time.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound } from '../../../shared/client/rest.js';
import { APIREGISTRATION_GROUP, LOCAL_AVAILABLE, setAvailableCondition, showsAvailable, type AvailableCondition } from '../../../shared/registry/builtin/apiregistration/api-service.js';
import { remoteApiService, type RemoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';
import { WorkQueue } from '../queue.js';
import type { Controller } from '../types.js';
import { checkDiscovery, precheck, type ClientCertificate } from './check.js';

const API_SERVICES = { group: APIREGISTRATION_GROUP, version: 'v1', resource: 'apiservices' };
const SERVICES = { group: '', version: 'v1', resource: 'services' };
const ENDPOINTS = { group: '', version: 'v1', resource: 'endpoints' };

export interface AvailabilityOptions {
  /** `--proxy-client-cert-file` / `--proxy-client-key-file`: presented to backends, as the gateway presents it. */
  clientCertificate?: ClientCertificate;
  /** How often a remote APIService is checked when nothing changed (upstream's resync, 30 s). */
  resyncMs?: number;
  timeoutMs?: number;
}

/** The next periodic check of each remote APIService: one timer each, however often it is queued meanwhile. */
class Resyncs {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly periodMs: number,
    private readonly due: (name: string) => void,
  ) {}

  /** Checks `name` again after the period if it is remote; forgets it otherwise. */
  schedule(name: string, remote: boolean): void {
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
    if (!remote) return;
    const t = setTimeout(() => {
      this.timers.delete(name);
      this.due(name);
    }, this.periodMs);
    t.unref();
    this.timers.set(name, t);
  }

  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

export function apiServiceAvailabilityController(client: ApiClient, log: Logger, opts: AvailabilityOptions = {}): Controller {
  const resyncMs = opts.resyncMs ?? 30_000;
  const checkOptions = { timeoutMs: opts.timeoutMs ?? 5_000, attempts: 5, ...(opts.clientCertificate ? { clientCertificate: opts.clientCertificate } : {}) };
  const onError = (what: string) => (err: unknown) => log.warn({ err }, `${what} watch failed; retrying`);
  const apiServices = new Informer(client, API_SERVICES, { onError: onError('APIService') });
  const services = new Informer(client, SERVICES, { onError: onError('Service') });
  const endpoints = new Informer(client, ENDPOINTS, { onError: onError('Endpoints') });
  const queue = new WorkQueue(reconcile, { workers: 5, onError: (key, err) => log.warn({ err, apiService: key }, 'APIService availability not written; retrying') });
  /** `<namespace>/<name>` of a Service → the remote APIServices naming it. */
  let byService = new Map<string, string[]>();
  const resyncs = new Resyncs(resyncMs, (name) => queue.add(name));
  /** Nothing is judged before all three caches are synced (a Service not yet listed is not a missing one). */
  let synced = false;

  const rebuildIndex = () => {
    const next = new Map<string, string[]>();
    for (const o of apiServices.list()) {
      const api = remoteApiService(o);
      if (!api) continue;
      const key = `${api.service.namespace}/${api.service.name}`;
      next.set(key, [...(next.get(key) ?? []), api.name]);
    }
    byService = next;
  };
  const queueFor = (o: ApiObject) => {
    if (!synced) return;
    for (const name of byService.get(`${o.metadata.namespace}/${o.metadata.name}`) ?? []) queue.add(name);
  };
  const apiServiceChanged = (o: ApiObject) => {
    rebuildIndex();
    if (synced) queue.add(o.metadata.name!);
  };
  apiServices.addHandlers({ onAdd: apiServiceChanged, onUpdate: (_old, o) => apiServiceChanged(o), onDelete: apiServiceChanged });
  for (const informer of [services, endpoints]) informer.addHandlers({ onAdd: queueFor, onUpdate: (_old, o) => queueFor(o), onDelete: queueFor });

  async function reconcile(name: string): Promise<void> {
    const o = apiServices.get(name);
    const api = o && remoteApiService(o);
    resyncs.schedule(name, Boolean(api));
    if (!o) return;
    const condition = api ? await judge(api) : LOCAL_AVAILABLE;
    if (showsAvailable(o, condition)) return;
    await writeCondition(o, condition);
  }

  async function judge(api: RemoteApiService): Promise<AvailableCondition> {
    const { namespace, name } = api.service;
    const pre = precheck(api, services.get(`${namespace}/${name}`), endpoints.get(`${namespace}/${name}`));
    return 'condition' in pre ? pre.condition : checkDiscovery(api, pre.addresses, checkOptions);
  }

  async function writeCondition(o: ApiObject, condition: AvailableCondition): Promise<void> {
    const next = structuredClone(o);
    setAvailableCondition(next, condition, nowTimestamp());
    try {
      await client.update({ ...API_SERVICES, name: o.metadata.name!, subresource: 'status' }, next);
      log.info({ apiService: o.metadata.name, status: condition.status, reason: condition.reason, message: condition.message }, 'APIService availability changed');
    } catch (err) {
      // Changed or gone meanwhile: the informer's next event queues it again.
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }

  const informers = [apiServices, services, endpoints];
  return {
    name: 'apiservice-availability',
    async start() {
      for (const i of informers) i.start();
      await Promise.all(informers.map((i) => i.synced));
      synced = true;
      rebuildIndex();
      for (const o of apiServices.list()) queue.add(o.metadata.name!);
    },
    async stop() {
      queue.shutDown();
      resyncs.stop();
      await Promise.all(informers.map((i) => i.stop()));
    },
    idle: () => queue.idle(),
  };
}
