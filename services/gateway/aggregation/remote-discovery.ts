// The resources each remote APIService's backend serves, for the gateway's discovery documents:
// fetched from `/apis/<group>/<version>` as upstream's discovery manager falls back to for a backend
// without aggregated discovery, as the aggregator's own identity (system:kube-aggregator in
// system:masters). A backend is asked when its APIService appears, changes or becomes Available,
// and again when discovery is read and its answer is older than a minute — never on a timer, so a
// gateway nobody asks costs nothing. A failed fetch keeps the last answer and marks it stale.

import type { Logger } from 'pino';
import type { APIResource } from '../../../shared/registry/discovery.js';
import { parseApiResourceList, type RemoteGroupVersion } from '../../../shared/registry/merged-discovery.js';
import { AGGREGATOR_USER, type RemoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';
import { SYSTEM_MASTERS } from '../../../shared/api/groups.js';
import { authProxyHeaders, type ApiServiceBackends } from './backends.js';

export interface RemoteDiscoveryOptions {
  /** An answer older than this is fetched again when discovery is read (upstream refreshes every minute). */
  maxAgeMs: number;
  timeoutMs: number;
  /** A backend's resource list larger than this is not read. */
  maxBytes: number;
}

export const defaultRemoteDiscoveryOptions: RemoteDiscoveryOptions = { maxAgeMs: 60_000, timeoutMs: 5_000, maxBytes: 4 * 1024 * 1024 };

interface Known {
  /** What the answer depends on: a change of it asks again. */
  basis: string;
  resources?: APIResource[];
  stale: boolean;
  fetchedAt: number;
  fetching: boolean;
}

export class RemoteDiscovery {
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly backends: ApiServiceBackends,
    private readonly log: Logger,
    /** Called when an answer changed what discovery shows. */
    private readonly onChange: () => void,
    private readonly opts: RemoteDiscoveryOptions = defaultRemoteDiscoveryOptions,
  ) {}

  /** Follows the current set of remote APIServices: new, changed or newly Available ones are asked at once. */
  track(apis: readonly RemoteApiService[]): void {
    const names = new Set(apis.map((a) => a.name));
    for (const name of this.known.keys()) if (!names.has(name)) this.known.delete(name);
    for (const api of apis) {
      const basis = JSON.stringify([api.group, api.version, api.service, api.caPem, api.insecureSkipTLSVerify, api.available]);
      const k = this.known.get(api.name);
      if (k?.basis === basis) continue;
      // An APIService that is not Available is answered 503 by the proxy: what is known goes stale.
      const next: Known = { basis, stale: !api.available, fetchedAt: 0, fetching: false, ...(k?.resources ? { resources: k.resources } : {}) };
      this.known.set(api.name, next);
      if (api.available) this.fetch(api, next);
    }
  }

  /** Discovery was read: answers older than maxAgeMs are asked again, in the background. */
  refreshOld(apis: readonly RemoteApiService[]): void {
    const now = Date.now();
    for (const api of apis) {
      const k = this.known.get(api.name);
      if (k && api.available && !k.fetching && now - k.fetchedAt > this.opts.maxAgeMs) this.fetch(api, k);
    }
  }

  /** What discovery shows of each. */
  groupVersions(apis: readonly RemoteApiService[]): RemoteGroupVersion[] {
    return apis.map((api) => {
      const k = this.known.get(api.name);
      return {
        group: api.group,
        version: api.version,
        groupPriority: api.groupPriority,
        versionPriority: api.versionPriority,
        stale: k?.stale ?? true,
        ...(k?.resources ? { resources: k.resources } : {}),
      };
    });
  }

  private fetch(api: RemoteApiService, k: Known): void {
    k.fetching = true;
    k.fetchedAt = Date.now();
    void this.ask(api).then(
      (resources) => this.settle(api, k, resources),
      (err: unknown) => {
        this.log.info({ apiService: api.name, err: (err as Error).message }, 'discovery of a remote APIService failed');
        this.settle(api, k, undefined);
      },
    );
  }

  private settle(api: RemoteApiService, k: Known, resources: APIResource[] | undefined): void {
    k.fetching = false;
    // Replaced meanwhile (the APIService changed): the newer fetch decides.
    if (this.known.get(api.name) !== k) return;
    const before = JSON.stringify([k.resources, k.stale]);
    if (resources) k.resources = resources;
    k.stale = !resources;
    if (JSON.stringify([k.resources, k.stale]) !== before) this.onChange();
  }

  private async ask(api: RemoteApiService): Promise<APIResource[]> {
    const headers = { accept: 'application/json', ...authProxyHeaders({ username: AGGREGATOR_USER, groups: [SYSTEM_MASTERS] }) };
    const res = await this.backends.open(api, {
      method: 'GET',
      path: `/apis/${api.group}/${api.version}`,
      headers,
      headersTimeoutMs: this.opts.timeoutMs,
      signal: AbortSignal.timeout(this.opts.timeoutMs),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.opts.maxBytes) throw new Error(`resource list larger than ${this.opts.maxBytes} bytes`);
      chunks.push(chunk);
    }
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    const resources = parseApiResourceList(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    if (!resources) throw new Error('not an APIResourceList');
    return resources;
  }
}
