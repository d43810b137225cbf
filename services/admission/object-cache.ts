// An in-memory view of one resource's stored objects for the plugins that decide from cluster
// state (LimitRanges, ResourceQuotas, ServiceAccounts, PriorityClasses, StorageClasses, webhook
// configurations, …): fed by one watch of the object bucket (object-feed.ts), shared by every
// plugin that asks for the same resource, read without I/O. A plugin that must not decide from a
// view that has not caught up yet awaits `ready()` first (upstream's WaitForReady); one that
// must see a write made a moment ago reads the store (`lookup`).

import type { NatsConnection } from '@nats-io/nats-core';
import { serviceUnavailable } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import type { ObjectReader } from '../../shared/bus/storage-read.js';
import type { Logger } from '../../shared/log.js';
import { resourceFilter, startObjectFeed, type FeedEvent, type ObjectFeed } from '../../shared/store/object-feed.js';

/** How long a request waits for a cache's first sync before it is refused with 503. */
export const CACHE_READY_TIMEOUT_MS = 10_000;

type Listener = (e: FeedEvent) => void;

export class ObjectCache<T extends ApiObject = ApiObject> {
  /** namespace ('' for cluster-scoped) → name → object. */
  private readonly byNamespace = new Map<string, Map<string, T>>();
  private readonly listeners = new Set<Listener>();
  private isSynced = false;
  private synced: Promise<void> = Promise.resolve();

  constructor(
    readonly group: string,
    readonly resource: string,
    private readonly reader?: ObjectReader,
  ) {}

  /** Attaches the feed's first-sync promise (object-cache users call `ready()`). */
  attach(synced: Promise<void>): void {
    this.synced = synced.then(() => {
      this.isSynced = true;
    });
  }

  /** Applies one feed event (exported for unit tests that feed a cache by hand). */
  apply(e: FeedEvent): void {
    if (e.ref.group !== this.group || e.ref.resource !== this.resource) return;
    const ns = e.ref.namespace ?? '';
    if (e.object === null) {
      const names = this.byNamespace.get(ns);
      names?.delete(e.ref.name);
      if (names && names.size === 0) this.byNamespace.delete(ns);
    } else {
      let names = this.byNamespace.get(ns);
      if (!names) this.byNamespace.set(ns, (names = new Map()));
      const held = names.get(e.ref.name);
      // A restarted watch replays older revisions of what it already delivered.
      if (held && Number(held.metadata.resourceVersion) > e.revision) return;
      names.set(e.ref.name, e.object as T);
    }
    for (const l of this.listeners) l(e);
  }

  /** Marks the cache synced without a feed (unit tests). */
  markSynced(): void {
    this.isSynced = true;
    this.synced = Promise.resolve();
  }

  /** Resolves once the cache holds what was stored when its watch started; 503 after `timeoutMs`. */
  async ready(timeoutMs = CACHE_READY_TIMEOUT_MS): Promise<void> {
    if (this.isSynced) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.synced,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(serviceUnavailable(`admission is not yet ready to handle requests: the ${this.describe()} are still loading`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves once the cache first holds what was stored, without a deadline (background work, not requests). */
  whenSynced(): Promise<void> {
    return this.synced;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.byNamespace.get(namespace ?? '')?.get(name);
  }

  /** The objects of one namespace (undefined: every object; '' for a cluster-scoped resource). */
  list(namespace?: string): T[] {
    if (namespace !== undefined) return [...(this.byNamespace.get(namespace)?.values() ?? [])];
    const out: T[] = [];
    for (const names of this.byNamespace.values()) out.push(...names.values());
    return out;
  }

  /** The cached object, or on a miss one read of the store (null: it does not exist). */
  async lookup(namespace: string | undefined, name: string): Promise<T | null> {
    const hit = this.get(namespace, name);
    if (hit || !this.reader) return hit ?? null;
    const ref = { group: this.group, resource: this.resource, name, ...(namespace ? { namespace } : {}) };
    return (await this.reader(ref)) as T | null;
  }

  /** Told of every change after it is applied (webhook configurations rebuild their matchers). */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private describe(): string {
    return this.group ? `${this.resource}.${this.group}` : this.resource;
  }
}

/** One cache per resource, each fed by its own watch, started on first use. */
export class ObjectCaches {
  private readonly caches = new Map<string, { cache: ObjectCache; feed: ObjectFeed }>();

  constructor(private readonly opts: { nc: NatsConnection; bucket: string; log: Logger; reader: ObjectReader; retryMs?: number }) {}

  get<T extends ApiObject = ApiObject>(group: string, resource: string): ObjectCache<T> {
    const id = `${group}/${resource}`;
    let held = this.caches.get(id);
    if (!held) {
      const cache = new ObjectCache(group, resource, this.opts.reader);
      const feed = startObjectFeed({
        nc: this.opts.nc,
        bucket: this.opts.bucket,
        filters: [resourceFilter(group, resource)],
        onEvent: (e) => cache.apply(e),
        log: this.opts.log,
        ...(this.opts.retryMs !== undefined ? { retryMs: this.opts.retryMs } : {}),
      });
      cache.attach(feed.synced);
      this.caches.set(id, (held = { cache, feed }));
    }
    return held.cache as unknown as ObjectCache<T>;
  }

  /** Resolves once every cache started so far has synced. */
  synced(): Promise<void> {
    return Promise.all([...this.caches.values()].map((c) => c.feed.synced)).then(() => undefined);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.caches.values()].map((c) => c.feed.stop()));
    this.caches.clear();
  }
}
