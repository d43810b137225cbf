// The remote APIServices a gateway proxies to (kube-aggregator's proxy handlers), following its
// watch cache as custom-resources.ts follows definitions: every change of an APIService, and every
// change of the registry's types, rebuilds the table once the burst of changes is applied. The
// request path asks it one Map lookup (`remoteFor`), and nothing at all while no remote APIService
// exists. A group/version the gateway serves itself (a built-in or a custom resource's) is never
// proxied: its own types keep answering and the APIService is ignored, with a warning.

import type { Logger } from 'pino';
import { resourceKey } from '../../../shared/api/resource-key.js';
import type { RequestInfo } from '../../../shared/api/request-info.js';
import { APIREGISTRATION_GROUP, apiservices } from '../../../shared/registry/builtin/apiregistration/api-service.js';
import { remoteApiService, type RemoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';
import type { RemoteGroupVersion } from '../../../shared/registry/merged-discovery.js';
import type { Registry } from '../../../shared/registry/registry.js';
import { resourcePrefix } from '../../../shared/store/key-codec.js';
import type { WatchCache } from '../../../shared/store/watch-cache.js';
import { ApiServiceBackends, type ProxyClientCertificate } from './backends.js';
import { RemoteDiscovery } from './remote-discovery.js';
import { RemoteOpenApi, type RemoteOpenApiDocs } from './remote-openapi.js';

export interface AggregationDeps {
  cache: WatchCache;
  registry: Registry;
  log: Logger;
  /** `--proxy-client-cert-file` / `--proxy-client-key-file`; none: backends get no client certificate. */
  proxyClientCertificate?: ProxyClientCertificate;
}

const APIS_PREFIX = '/apis/';

export class Aggregation {
  /** `<group>/<version>` as the URL spells it → the APIService serving it. */
  private byGroupVersion = new Map<string, RemoteApiService>();
  private remotes: RemoteApiService[] = [];
  private scheduled = false;
  private changes = 0;
  /** Shadowing APIServices already warned about (name and what it named). */
  private warned = new Set<string>();
  private readonly prefix = resourcePrefix(APIREGISTRATION_GROUP, apiservices.plural);
  private readonly cacheKey = resourceKey(APIREGISTRATION_GROUP, apiservices.plural);
  private readonly stopFollowingTypes: () => void;
  readonly backends: ApiServiceBackends;
  private readonly discovery: RemoteDiscovery;
  private readonly openApi: RemoteOpenApi;
  private openApiChanges = 0;

  constructor(private readonly deps: AggregationDeps) {
    this.backends = new ApiServiceBackends(deps.cache, deps.proxyClientCertificate);
    this.discovery = new RemoteDiscovery(this.backends, deps.log, () => this.changes++);
    this.openApi = new RemoteOpenApi(this.backends, deps.log, () => this.openApiChanges++);
    // A custom resource definition may come to serve (or stop serving) a remote group/version.
    this.stopFollowingTypes = deps.registry.onChange(() => this.changed());
  }

  /** Whether a changed bucket key is an APIService's (then `changed` should be called). */
  isApiServiceKey(key: string): boolean {
    return key.startsWith(this.prefix);
  }

  /** An APIService changed: the table is made again once the current burst of changes is applied. */
  changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.refresh());
  }

  /** Makes the table from the cache now. */
  refresh(): void {
    this.scheduled = false;
    const next = new Map<string, RemoteApiService>();
    for (const { object } of this.deps.cache.current(this.cacheKey)) {
      const api = remoteApiService(object);
      if (!api || !api.group || !api.version) continue;
      if (this.deps.registry.resources(api.group, api.version).length > 0) {
        this.warnShadowing(api);
        continue;
      }
      next.set(`${api.group}/${api.version}`, api);
    }
    const remotes = [...next.values()];
    if (JSON.stringify(remotes) === JSON.stringify(this.remotes)) return;
    this.byGroupVersion = next;
    this.remotes = remotes;
    this.changes++;
    this.backends.keepOnly(new Set(remotes.map((a) => a.name)));
    this.discovery.track(remotes);
    this.openApi.track(remotes);
  }

  private warnShadowing(api: RemoteApiService): void {
    const key = `${api.name} ${JSON.stringify(api.service)}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.deps.log.warn({ apiService: api.name }, 'remote APIService names a group/version this server serves itself; it is not proxied');
  }

  /**
   * The remote APIService a request is for: `/apis/<group>/<version>` and everything under it. The
   * group as the URL spells it: an upstream alias of a branded group is the gateway's own.
   */
  remoteFor(info: RequestInfo, path: string): RemoteApiService | undefined {
    if (this.byGroupVersion.size === 0) return undefined;
    if (info.isResourceRequest) return info.apiPrefix === 'apis' ? this.byGroupVersion.get(`${info.groupSpelling}/${info.apiVersion}`) : undefined;
    if (!path.startsWith(APIS_PREFIX)) return undefined;
    return this.byGroupVersion.get(path.slice(APIS_PREFIX.length, path.endsWith('/') ? -1 : undefined));
  }

  /** Moves whenever what discovery shows of remote APIServices changed. */
  generation(): number {
    return this.changes;
  }

  /** Each remote group/version as discovery shows it. */
  groupVersions(): RemoteGroupVersion[] {
    return this.discovery.groupVersions(this.remotes);
  }

  /** Discovery was read: backends whose answer is older than a minute are asked again, in the background. */
  discoveryRead(): void {
    if (this.remotes.length) this.discovery.refreshOld(this.remotes);
  }

  /** Moves whenever what OpenAPI shows of remote APIServices changed. */
  openApiGeneration(): number {
    return this.openApiChanges;
  }

  /** The OpenAPI each Available remote APIService's backend serves. */
  openApiDocuments(): RemoteOpenApiDocs[] {
    return this.openApi.documents(this.remotes);
  }

  /** OpenAPI was read: backends whose answer is older than a minute are asked again, in the background. */
  openApiRead(): void {
    if (this.remotes.length) this.openApi.refreshOld(this.remotes);
  }

  close(): void {
    this.stopFollowingTypes();
    this.backends.close();
  }
}
