// Objects, requests and a hand-fed quota store for the ResourceQuota and LimitRanger unit tests:
// the store plays the bucket (compare-and-swap on revisions) and the object cache the plugin reads.

import { conflict, CONFLICT_MODIFIED, StatusError } from '../../../shared/api/status.js';
import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import type { AdmissionOperation, AdmissionRequest } from '../../../shared/bus/messages.js';
import { silentLogger } from '../../../shared/log.js';
import { ObjectCache } from '../object-cache.js';
import type { AdmissionContext, AdmissionPlugin, PluginDeps } from '../types.js';
import type { PluginConfiguration } from '../plugin-configuration.js';

export const CTX: AdmissionContext = { log: silentLogger(), warn: () => undefined, annotate: () => undefined };
export const NS = 'team';

type Json = Record<string, unknown>;

export function container(name: string, requests?: Json, limits?: Json): Json {
  const resources: Json = {};
  if (requests) resources.requests = requests;
  if (limits) resources.limits = limits;
  return { name, image: 'registry.example/app:1', ...(requests || limits ? { resources } : {}) };
}

export function pod(name: string, spec: Json = {}, extra: Partial<ApiObject> = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { containers: [container('c')], ...spec }, ...extra };
}

export function quota(name: string, hard: Json, opts: { used?: Json; statusHard?: Json | null; scopes?: string[]; scopeSelector?: Json; rv?: number } = {}): ApiObject {
  const status: Json = {};
  if (opts.statusHard !== null) status.hard = opts.statusHard ?? hard;
  if (opts.used) status.used = opts.used;
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name, namespace: NS, resourceVersion: String(opts.rv ?? 1) },
    spec: { hard, ...(opts.scopes ? { scopes: opts.scopes } : {}), ...(opts.scopeSelector ? { scopeSelector: opts.scopeSelector } : {}) },
    status,
  };
}

const KINDS: Record<string, string> = { pods: 'Pod', services: 'Service', persistentvolumeclaims: 'PersistentVolumeClaim', configmaps: 'ConfigMap', secrets: 'Secret' };

export function request(
  resource: string,
  object: ApiObject | null,
  o: { operation?: AdmissionOperation; old?: ApiObject; group?: string; dryRun?: boolean; sub?: string; phase?: AdmissionRequest['phase'] } = {},
): AdmissionRequest {
  const group = o.group ?? '';
  const r: AdmissionRequest = {
    uid: 'u1',
    phase: o.phase ?? 'validating',
    kind: { group, version: 'v1', kind: KINDS[resource] ?? 'Thing' },
    resource: { group, version: 'v1', resource },
    name: object?.metadata.name ?? '',
    namespace: NS,
    operation: o.operation ?? 'CREATE',
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object,
    oldObject: o.old ?? null,
    dryRun: o.dryRun ?? false,
  };
  if (o.sub) r.subResource = o.sub;
  return r;
}

/** A bucket of objects of one resource with revisions, and the cache a plugin reads it through. */
export class FakeStore {
  readonly cache: ObjectCache;
  private readonly objects = new Map<string, ApiObject>();
  private revision = 100;
  writes = 0;
  conflicts = 0;
  /** Delay of each write, so concurrent writers overlap. */
  delayMs = 0;
  /** When false the cache is not told of writes (a feed lagging behind). */
  feedWrites = true;

  constructor(
    readonly group: string,
    readonly resource: string,
    initial: ApiObject[] = [],
  ) {
    this.cache = new ObjectCache(group, resource);
    for (const o of initial) this.put(o);
    this.cache.markSynced();
  }

  private key(ns: string | undefined, name: string): string {
    return `${ns ?? ''}/${name}`;
  }

  put(o: ApiObject, feed = true): ApiObject {
    const stored = { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.revision) } };
    this.objects.set(this.key(o.metadata.namespace, o.metadata.name!), stored);
    if (feed)
      this.cache.apply({
        key: this.key(o.metadata.namespace, o.metadata.name!),
        ref: { group: this.group, resource: this.resource, name: o.metadata.name!, namespace: o.metadata.namespace },
        revision: this.revision,
        object: stored,
      });
    return stored;
  }

  get(ns: string, name: string): ApiObject | undefined {
    return this.objects.get(this.key(ns, name));
  }

  async update(ref: ObjectRef, object: ApiObject, expected: number): Promise<{ object: ApiObject; revision: number }> {
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const cur = this.objects.get(this.key(ref.namespace, ref.name));
    if (!cur || Number(cur.metadata.resourceVersion) !== expected) {
      this.conflicts++;
      throw conflict({ group: ref.group, resource: ref.resource }, ref.name, CONFLICT_MODIFIED);
    }
    this.writes++;
    const stored = this.put(object, this.feedWrites);
    return { object: stored, revision: Number(stored.metadata.resourceVersion) };
  }

  async read(ref: ObjectRef): Promise<ApiObject | null> {
    return this.objects.get(this.key(ref.namespace, ref.name)) ?? null;
  }
}

/** PluginDeps for a plugin that reads `stores` (by `group/resource`) and writes to them. */
export function depsOf(stores: FakeStore[], config?: unknown): PluginDeps {
  const find = (group: string, resource: string) => {
    const s = stores.find((x) => x.group === group && x.resource === resource);
    if (!s) throw new Error(`no store for ${group}/${resource}`);
    return s;
  };
  const deps: Partial<PluginDeps> = {
    log: silentLogger(),
    objects: ((group: string, resource: string) => find(group, resource).cache) as PluginDeps['objects'],
    read: (ref) => find(ref.group, ref.resource).read(ref),
    write: {
      create: () => Promise.reject(new Error('no creates here')),
      update: (ref, object, expected) => find(ref.group, ref.resource).update(ref, object, expected),
    },
  };
  if (config !== undefined) deps.config = { configuration: config, dir: '/tmp', source: 'test' } satisfies PluginConfiguration;
  return deps as PluginDeps;
}

export type Outcome = 'allowed' | { code: number; message: string };

export async function validate(plugin: AdmissionPlugin, req: AdmissionRequest): Promise<Outcome> {
  try {
    await plugin.validate!(req, CTX);
    return 'allowed';
  } catch (err) {
    if (err instanceof StatusError) return { code: err.code, message: err.status.message };
    throw err;
  }
}

export const forbiddenPod = (name: string, why: string): Outcome => ({ code: 403, message: `pods "${name}" is forbidden: ${why}` });
