// A list+watch informer, as client-go's: lists a collection (paged), then watches from the list's
// resourceVersion with bookmarks, keeps a cache of the objects and tells handlers what changed. A
// watch that ends is resumed from the last resourceVersion seen; 410 Gone (outside the server's
// window) relists, and the objects that disappeared meanwhile are reported deleted; other failures
// back off (1 s doubling to 30 s) before the next try.

import type { ApiObject } from '../api/types.js';
import { ApiClient, isGone, PARTIAL_OBJECT_METADATA, PARTIAL_OBJECT_METADATA_LIST, type ResourceRef } from './rest.js';
import { sleep } from '../ground/sleep.js';

export interface InformerHandlers<T extends ApiObject = ApiObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions {
  /** Page size of the list (0: no paging). */
  pageSize?: number;
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side bound of one watch request, after which it is resumed. */
  watchTimeoutSeconds?: number;
  onError?(err: unknown): void;
  /** Objects as PartialObjectMetadata: metadata only, whatever the type. */
  metadataOnly?: boolean;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export function objectKey(o: ApiObject): string {
  const ns = o.metadata?.namespace;
  return ns ? `${ns}/${o.metadata?.name ?? ''}` : (o.metadata?.name ?? '');
}

export class Informer<T extends ApiObject = ApiObject> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly abort = new AbortController();
  private resourceVersion = '';
  private syncedResolve!: () => void;
  private running: Promise<void> | undefined;
  private isSynced = false;
  /** Resolves once the first list is in the cache. */
  readonly synced = new Promise<void>((r) => (this.syncedResolve = r));

  constructor(
    private readonly client: ApiClient,
    readonly ref: Omit<ResourceRef, 'name' | 'subresource'>,
    private readonly opts: InformerOptions = {},
  ) {}

  addHandlers(h: InformerHandlers<T>): this {
    this.handlers.push(h);
    return this;
  }

  hasSynced(): boolean {
    return this.isSynced;
  }

  /** The cached object, by `namespace/name` (or `name` for cluster-scoped ones). */
  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  list(namespace?: string): T[] {
    const all = [...this.cache.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === namespace);
  }

  /** The resourceVersion the cache reflects. */
  lastResourceVersion(): string {
    return this.resourceVersion;
  }

  start(): this {
    this.running ??= this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private emit(fn: (h: InformerHandlers<T>) => void): void {
    for (const h of this.handlers) {
      try {
        fn(h);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }

  private selectors(): Record<string, string> {
    const q: Record<string, string> = {};
    if (this.opts.labelSelector) q.labelSelector = this.opts.labelSelector;
    if (this.opts.fieldSelector) q.fieldSelector = this.opts.fieldSelector;
    return q;
  }

  /** A full list, replacing the cache: objects gone since are reported deleted. */
  private async relist(): Promise<void> {
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    do {
      const page = await this.client.list<T>(
        this.ref,
        { ...this.selectors(), ...(this.opts.pageSize ? { limit: this.opts.pageSize } : {}), ...(cont ? { continue: cont } : {}) },
        this.opts.metadataOnly ? PARTIAL_OBJECT_METADATA_LIST : undefined,
      );
      items.push(...page.items);
      rv = page.metadata.resourceVersion ?? rv;
      cont = page.metadata.continue || undefined;
    } while (cont);
    const seen = new Set<string>();
    for (const o of items) {
      const key = objectKey(o);
      seen.add(key);
      const old = this.cache.get(key);
      this.cache.set(key, o);
      if (!old) this.emit((h) => h.onAdd?.(o));
      else if (old.metadata?.resourceVersion !== o.metadata?.resourceVersion) this.emit((h) => h.onUpdate?.(old, o));
    }
    for (const [key, old] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      this.emit((h) => h.onDelete?.(old));
    }
    this.resourceVersion = rv;
    if (!this.isSynced) {
      this.isSynced = true;
      this.syncedResolve();
    }
  }

  private apply(type: string, o: T): void {
    if (o.metadata?.resourceVersion) this.resourceVersion = o.metadata.resourceVersion;
    if (type === 'BOOKMARK') return;
    const key = objectKey(o);
    const old = this.cache.get(key);
    if (type === 'DELETED') {
      this.cache.delete(key);
      this.emit((h) => h.onDelete?.(old ?? o));
      return;
    }
    this.cache.set(key, o);
    if (old) this.emit((h) => h.onUpdate?.(old, o));
    else this.emit((h) => h.onAdd?.(o));
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    const min = this.opts.minBackoffMs ?? 1_000;
    const max = this.opts.maxBackoffMs ?? 30_000;
    let backoff = min;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist();
          needList = false;
        }
        await this.client.watch<T>(
          this.ref,
          { ...this.selectors(), resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300) },
          (e) => this.apply(e.type, e.object),
          signal,
          this.opts.metadataOnly ? PARTIAL_OBJECT_METADATA : undefined,
        );
        backoff = min;
      } catch (err) {
        if (signal.aborted) break;
        if (isGone(err)) {
          needList = true;
          continue;
        }
        this.opts.onError?.(err);
        await sleep(backoff, signal);
        backoff = Math.min(max, backoff * 2);
      }
    }
  }
}
