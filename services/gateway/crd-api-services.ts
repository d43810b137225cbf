// The Local APIServices of custom resources (upstream's crdregistration controller in front of the
// aggregator's autoregistration, in its "sync always" mode): one per group/version a served
// CustomResourceDefinition serves, with the priorities upstream gives every CRD group (1000 / 100),
// labelled automanaged=true. Made when a definition comes to serve a version, its spec put back
// when someone changes it (a sync runs on every change of the registry and of any APIService), deleted when no definition serves that group/version any more. An
// APIService of that name the server does not manage (no such label: a remote one created before
// the definition) is left alone, as upstream's autoregistration leaves what it does not own.
// Because they exist, a remote APIService for a custom resource's group/version is refused
// AlreadyExists, as one for a built-in group/version is (local-api-services.ts).
// Every gateway runs it on each change of its registry; their races end as AlreadyExists,
// Conflict or NotFound, which are what another gateway already did.

import type { Logger } from 'pino';
import { StatusError } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import { jsonEqual } from '../../shared/patch/json-value.js';
import { APIREGISTRATION_GROUP, apiservices } from '../../shared/registry/builtin/apiregistration/api-service.js';
import { AUTOMANAGED_LABEL, DEFAULT_LOCAL_PRIORITY, localApiService } from '../../shared/registry/builtin/apiregistration/local-api-services.js';
import { CUSTOM_RESOURCE_TYPES } from '../../shared/registry/custom-resources/definition-types.js';
import type { Registry } from '../../shared/registry/registry.js';
import { API_SERVER_MANAGER, API_SERVER_USER } from '../../shared/registry/rest/internal-store.js';
import type { GenericStore } from '../../shared/registry/rest/generic-store.js';
import type { WriteRequest } from '../../shared/registry/rest/store-types.js';
import type { Targets } from '../../shared/registry/target.js';
import type { Target } from '../../shared/registry/types.js';

/** The label's value for APIServices kept in step with what is served (upstream's `true`). */
export const AUTOMANAGED_SYNCED = 'true';

const RETRY_MS = 2_000;

/** The Local APIServices the custom resources the registry serves call for, by name. */
export function customResourceApiServices(registry: Registry): Map<string, ApiObject> {
  const out = new Map<string, ApiObject>();
  for (const type of registry.definedBy(CUSTOM_RESOURCE_TYPES)) {
    for (const served of registry.servedVersions(type)) {
      const o = localApiService(served.group, served.version.name);
      o.metadata.labels = { [AUTOMANAGED_LABEL]: AUTOMANAGED_SYNCED };
      o.spec = { ...(o.spec as object), groupPriorityMinimum: DEFAULT_LOCAL_PRIORITY.group, versionPriority: DEFAULT_LOCAL_PRIORITY.version };
      out.set(o.metadata.name!, o);
    }
  }
  return out;
}

const managed = (o: ApiObject) => o.metadata.labels?.[AUTOMANAGED_LABEL] === AUTOMANAGED_SYNCED;
const lostRace = (err: unknown, ...reasons: string[]) => err instanceof StatusError && reasons.includes(err.status.reason ?? '');

export interface CustomResourceApiServicesDeps {
  store: GenericStore;
  targets: Targets;
  registry: Registry;
  /** The stored APIServices (a consistent read of the gateway's cache). */
  list(t: Target): Promise<ApiObject[]>;
  log: Logger;
}

export class CustomResourceApiServices {
  private started = false;
  private running = false;
  private again = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: CustomResourceApiServicesDeps) {}

  /** Syncs now and after every change of the registry's types. */
  start(): void {
    this.started = true;
    this.unsubscribe = this.deps.registry.onChange(() => this.sync());
    this.sync();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.retry);
  }

  /** One sync at a time; a change during one makes one more. Also called on every change of an APIService (an edit is put back). */
  sync(): void {
    if (!this.started || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.once();
      } catch (err) {
        this.deps.log.warn({ err: (err as Error).message }, 'Local APIServices of custom resources not written; retrying');
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.sync(), RETRY_MS);
        this.retry.unref();
      }
    } while (this.again && !this.stopped);
    this.running = false;
  }

  private async once(): Promise<void> {
    const target = this.deps.targets.preferred(APIREGISTRATION_GROUP, apiservices.plural);
    if (!target) return;
    const desired = customResourceApiServices(this.deps.registry);
    const present = new Map((await this.deps.list(target)).map((o) => [o.metadata.name!, o]));
    for (const [name, want] of desired) {
      if (this.stopped) return;
      const have = present.get(name);
      if (!have) await this.create(target, want);
      else if (managed(have) && !jsonEqual(have.spec, want.spec)) await this.repair(target, want);
    }
    for (const [name, have] of present) {
      if (this.stopped) return;
      if (managed(have) && !desired.has(name)) await this.remove(target, name);
    }
  }

  private request(target: Target, name: string): WriteRequest {
    return { target, user: API_SERVER_USER, namespace: undefined, name, dryRun: false, warnings: [], manager: API_SERVER_MANAGER };
  }

  private async create(target: Target, want: ApiObject): Promise<void> {
    try {
      await this.deps.store.create(this.request(target, want.metadata.name!), structuredClone(want));
      this.deps.log.info({ apiService: want.metadata.name }, 'created Local APIService of custom resources');
    } catch (err) {
      if (!lostRace(err, 'AlreadyExists')) throw err;
    }
  }

  private async repair(target: Target, want: ApiObject): Promise<void> {
    try {
      await this.deps.store.update(this.request(target, want.metadata.name!), (current) => ({ ...current, spec: structuredClone(want.spec) }));
    } catch (err) {
      if (!lostRace(err, 'NotFound', 'Conflict')) throw err;
    }
  }

  private async remove(target: Target, name: string): Promise<void> {
    try {
      await this.deps.store.delete(this.request(target, name));
      this.deps.log.info({ apiService: name }, 'deleted Local APIService of custom resources no longer served');
    } catch (err) {
      if (!lostRace(err, 'NotFound', 'Conflict')) throw err;
    }
  }
}
