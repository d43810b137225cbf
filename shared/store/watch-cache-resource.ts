// One resource's part of the watch cache: its current objects (and a key-ordered view of them
// that reads share), the change log of the window, its watchers and its figures for the metrics.

import type { ApiObject, ObjectRef } from '../api/types.js';
import type { CachedObject } from '../codec/cached-object.js';
import type { ChangeEvent, Watcher, WatchedResource } from './watch-cache-watcher.js';

/** One resource's figures for the metrics, read at scrape time. */
export interface ResourceStats {
  /** Storage group ('' for core) and resource. */
  group: string;
  resource: string;
  objects: number;
  watchers: number;
  initEvents: number;
  dispatched: number;
  terminatedWatchers: number;
}

export class ResourceState implements WatchedResource {
  readonly objects = new Map<string, CachedObject>();
  /** The window's changes in revision order (a rebuilt window's are put in front: watch-cache.ts restoreHistory). */
  log: ChangeEvent[] = [];
  readonly watchers = new Set<Watcher>();
  /** Highest revision compacted out of this resource's log. */
  droppedThrough = 0;
  // Counted for the metrics (read at scrape time, so counting is all a change costs).
  /** Entries applied while loading the initial state. */
  initEvents = 0;
  /** Changes logged and handed to the watchers. */
  dispatched = 0;
  /** Watchers closed for not keeping up. */
  terminatedWatchers = 0;
  // Sorted keys change only when objects appear or vanish; a modification replaces one object in
  // place. The objects in key order are built from the keys once and then patched per read with
  // the modifications since: a read holds on to the array it got (a watcher sends its initial
  // state from it over time), so a patched array is always a new copy.
  private sortedKeys: string[] | null = null;
  private sortedObjects: CachedObject[] | null = null;
  private readonly modified = new Set<string>();

  /** Drops the log's events older than `cutoffAt` or at or below revision `through`; returns how many went. */
  dropOldest(cutoffAt: number, through: number): number {
    const log = this.log;
    let n = 0;
    while (n < log.length && (log[n]!.at < cutoffAt || log[n]!.revision <= through)) n++;
    if (n === 0) return 0;
    this.droppedThrough = log[n - 1]!.revision;
    log.splice(0, n);
    return n;
  }

  sorted(): CachedObject[] {
    if (!this.sortedKeys) {
      this.sortedKeys = [...this.objects.keys()].sort();
      this.sortedObjects = null;
    }
    const keys = this.sortedKeys;
    if (!this.sortedObjects || this.modified.size > keys.length / 8) {
      this.sortedObjects = keys.map((k) => this.objects.get(k)!);
    } else if (this.modified.size) {
      const next = this.sortedObjects.slice();
      for (const k of this.modified) next[indexOf(keys, k)] = this.objects.get(k)!;
      this.sortedObjects = next;
    }
    this.modified.clear();
    return this.sortedObjects;
  }

  /** Stores a new or modified object (the sorted view follows). */
  put(sortKey: string, obj: CachedObject, isNew: boolean): void {
    this.objects.set(sortKey, obj);
    if (isNew) this.invalidate();
    else if (this.sortedObjects) this.modified.add(sortKey);
  }

  remove(sortKey: string): void {
    this.objects.delete(sortKey);
    this.invalidate();
  }

  invalidate(): void {
    this.sortedKeys = null;
    this.sortedObjects = null;
    this.modified.clear();
  }

  /** Its figures for the metrics; `key` is its resource key (storage group, slash, resource). */
  stats(key: string): ResourceStats {
    const slash = key.indexOf('/');
    return {
      group: key.slice(0, slash),
      resource: key.slice(slash + 1),
      objects: this.objects.size,
      watchers: this.watchers.size,
      initEvents: this.initEvents,
      dispatched: this.dispatched,
      terminatedWatchers: this.terminatedWatchers,
    };
  }

  /** The first logged change after `revision` (the log is in revision order). */
  nextChange(revision: number): ChangeEvent | undefined {
    return this.log[countThrough(this.log, revision)];
  }
}

/** Index of `key` in the ascending `keys` (which hold it). */
function indexOf(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function sortKeyOf(ref: ObjectRef): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

const decoder = new TextDecoder();

/** A stored object (JSON text or bytes) at `revision`; null when it does not parse as one. */
export function parseLogged(ref: ObjectRef, sortKey: string, json: string | Uint8Array, revision: number): CachedObject | null {
  try {
    const object = JSON.parse(typeof json === 'string' ? json : decoder.decode(json)) as ApiObject;
    if (!object || typeof object !== 'object' || Array.isArray(object)) return null;
    (object.metadata ??= {}).resourceVersion = String(revision);
    return { ref, sortKey, object, revision };
  } catch {
    return null;
  }
}

/**
 * The lowest revision through which at least `count` events of all the resources' logs lie: what
 * dropping the oldest `count` events, whatever their resource, drops through (0 when none need go).
 */
export function oldestThrough(states: Iterable<ResourceState>, count: number): number {
  const logs = [...states].map((s) => s.log).filter((log) => log.length > 0);
  if (count <= 0 || logs.length === 0) return 0;
  let lo = Infinity;
  let hi = 0;
  for (const log of logs) {
    lo = Math.min(lo, log[0]!.revision);
    hi = Math.max(hi, log[log.length - 1]!.revision);
  }
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    let n = 0;
    for (const log of logs) n += countThrough(log, mid);
    if (n >= count) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** How many of a log's events (in revision order) are at or below `revision`. */
function countThrough(log: readonly ChangeEvent[], revision: number): number {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (log[mid]!.revision <= revision) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
