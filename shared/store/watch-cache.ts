// The gateway's watch cache: current state of every object plus a change log covering the
// retention window, fed in revision order by one KV watch. It answers get/list at any revision
// inside the window (rolling the current state back through the log), waits for revisions for
// consistent reads, and fans each change out to every HTTP watcher with one serialization.
// The parts: watch-cache-watcher (one watcher), watch-cache-resource (one resource's objects, log
// and watchers), watch-cache-window (the window rebuilt from the change log at start-up).

import type { ApiObject, ObjectRef } from '../api/types.js';
import { resourceExpired, type Status } from '../api/status.js';
import { decodeKey, encodeKey } from './key-codec.js';
import type { CachedObject } from '../codec/cached-object.js';
import { resourceKey } from '../api/resource-key.js';
import type { ChangeLogRead, LoggedChange } from './change-log.js';
import type { NamespaceFacts } from '../api/admission-match.js';
import { ResourceState, oldestThrough, parseLogged, sortKeyOf, type ResourceStats } from './watch-cache-resource.js';
import { Watcher, type ChangeEvent, type WatchHandle, type WatchOptions } from './watch-cache-watcher.js';
import { keptAfter, PendingWindow, restoreWindow } from './watch-cache-window.js';
import { RevisionWaiters } from './revision-waiters.js';

export { sortKeyOf, type ResourceStats } from './watch-cache-resource.js';
export type { WatchHandle, WatchOptions, WatchSink } from './watch-cache-watcher.js';

export const DEFAULT_WINDOW_MS = 5 * 60_000;
const DEFAULT_MAX_LOG_EVENTS = 500_000;

export interface WatchCacheOptions {
  windowMs?: number;
  maxLogEvents?: number;
  now?: () => number;
  /** Told how many events a compaction dropped (the objects they held may now be garbage). */
  onCompacted?: (dropped: number) => void;
  /** How long each step of the window's rebuild runs before the event loop gets a turn (default 20 ms). */
  restoreSliceMs?: number;
}

export interface KvChange {
  key: string;
  revision: number;
  operation: 'PUT' | 'DEL' | 'PURGE';
  value?: Uint8Array;
}

export class WatchCache {
  /** Highest revision applied. */
  revision = 0;
  /** Oldest revision whose state can still be reconstructed; older exact reads are 410. */
  compactedRevision = 0;
  synced = false;
  /** Times the cache (re)built its state: the first load, and each restart of the window after a feed outage. */
  initializations = 0;
  private readonly resources = new Map<string, ResourceState>();
  private readonly waiters = new RevisionWaiters();
  private readonly syncWaiters: Array<() => void> = [];
  private readonly windowMs: number;
  private readonly onCompacted: ((dropped: number) => void) | undefined;
  private readonly maxLogEvents: number;
  private readonly now: () => number;
  private logSize = 0;
  private readonly snapshots = new Map<string, { at: number; items: CachedObject[] }>();
  /** Delete markers of the initial load, by bucket key (see restoreHistory). */
  private initialMarkers = new Map<string, number>();
  /** While the window before the initial load is rebuilt from the change log: the load's revision, and the reads waiting for it. */
  private restoring: PendingWindow | null = null;
  /** Set while the cache cannot follow the store (see failWatches): what a new watch is refused with. */
  private failing: Status | null = null;
  /** How the window's rebuild went, once it has been put in place (restoreHistory): for the log. */
  restoreReport: { windowStart: number; longestStepMs: number; heldChanges: number } | undefined;
  /** While a rebuilt window is put in place: the changes that arrived meanwhile, applied in order once it is in (restoreHistory). */
  private heldBack: Array<[KvChange, (() => void) | undefined]> | null = null;
  private readonly restoreSliceMs: number | undefined;

  constructor(opts: WatchCacheOptions = {}) {
    this.windowMs = opts.windowMs ?? DEFAULT_WINDOW_MS;
    this.onCompacted = opts.onCompacted;
    this.maxLogEvents = opts.maxLogEvents ?? DEFAULT_MAX_LOG_EVENTS;
    this.now = opts.now ?? Date.now;
    this.restoreSliceMs = opts.restoreSliceMs;
  }

  private state(resource: string): ResourceState {
    let s = this.resources.get(resource);
    if (!s) this.resources.set(resource, (s = new ResourceState()));
    return s;
  }

  /**
   * Applies one KV entry, then calls `applied` (what follows the cache's state: its readers must not
   * look before the change is in). While a rebuilt window is put in place both wait, in order.
   * Entries at or below the applied revision are redeliveries and dropped.
   */
  apply(change: KvChange, applied?: () => void): void {
    if (this.heldBack) {
      this.heldBack.push([change, applied]);
      return;
    }
    this.applyNow(change);
    applied?.();
  }

  private applyNow(change: KvChange): void {
    if (change.revision <= this.revision) return;
    let ref: ObjectRef;
    try {
      ref = decodeKey(change.key);
    } catch {
      this.advance(change.revision);
      return;
    }
    if (change.operation === 'PUT') {
      // An entry that is not an object (no writer of ours makes one) reads as a deletion: the
      // cache must not keep serving the key's older state.
      const obj = change.value && parseLogged(ref, sortKeyOf(ref), change.value, change.revision);
      this.record(ref, change.revision, obj ? obj.object : null);
    } else {
      // Before the window is restored, a delete marker is the only trace of an object deleted
      // since the log began (markSynced checks the log has it).
      if (!this.synced) this.initialMarkers.set(change.key, change.revision);
      this.record(ref, change.revision, null);
    }
    this.advance(change.revision);
  }

  private record(ref: ObjectRef, revision: number, object: ApiObject | null): void {
    const st = this.state(resourceKey(ref.group, ref.resource));
    const sortKey = sortKeyOf(ref);
    const prev = st.objects.get(sortKey);
    let ev: ChangeEvent;
    if (object) {
      const obj: CachedObject = { ref, sortKey, object, revision };
      st.put(sortKey, obj, !prev);
      ev = { revision, type: prev ? 'MODIFIED' : 'ADDED', obj, prev, at: this.now() };
    } else {
      if (!prev) return;
      st.remove(sortKey);
      const last: ApiObject = { ...prev.object, metadata: { ...prev.object.metadata, resourceVersion: String(revision) } };
      ev = { revision, type: 'DELETED', obj: { ref, sortKey, object: last, revision }, prev, at: this.now() };
    }
    if (this.synced) {
      st.dispatched++;
      st.log.push(ev);
      this.logSize++;
      for (const w of st.watchers) if (w.live) w.deliver(ev);
      if (this.logSize > this.maxLogEvents) this.compact(true);
    } else st.initEvents++;
  }

  private advance(revision: number): void {
    this.revision = revision;
    this.waiters.reached(revision);
  }

  /** The initial state is loaded at `revision`, with no history before it (markLoaded). */
  markSynced(revision: number): void {
    this.markLoaded(revision);
  }

  /**
   * Called by the feed once the initial state is loaded, at `revision`: the cache serves from now
   * on. With `restoring`, the window before `revision` is being rebuilt from the change log
   * (restoreHistory) meanwhile, and what needs it waits (awaitsHistory, whenHistory); without it,
   * history starts now.
   */
  markLoaded(revision: number, restoring = false): void {
    this.release();
    if (revision > this.revision) this.advance(revision);
    this.compactedRevision = this.revision;
    if (restoring) this.restoring = new PendingWindow(this.revision, this.initialMarkers);
    this.initialMarkers = new Map();
    this.synced = true;
    this.initializations++;
    for (const f of this.syncWaiters.splice(0)) f();
  }

  /**
   * Rebuilds the window before the initial load from the bucket's logged writes up to it
   * (watch-cache-window.ts: which changes can be rolled back), in front of the changes applied
   * since, and sets compactedRevision to where that history starts. The cache serves throughout:
   * it takes changes while the log is walked, then holds them back (`hold`) while the window is
   * worked out against its state and put in, and applies them once it is. A log not read to its
   * end, or a window restarted meanwhile (resync, catchUp) or compacted past the load, restores
   * nothing: history then starts where it already does. Either way the reads waiting for it go on
   * once it ends. Resolves with the changes restored.
   */
  async restoreHistory({ changes, complete, following }: ChangeLogRead): Promise<number> {
    const pending = this.restoring;
    this.restoreReport = undefined;
    if (!pending) return 0;
    let queue: unknown[] | null = null;
    const wanted = () => this.restoring === pending && this.compactedRevision <= pending.through && (queue === null || this.heldBack === queue);
    try {
      if (!complete || changes.length === 0 || !wanted()) return 0;
      const keepAfter = keptAfter(changes, this.now() - this.windowMs, Math.max(0, this.maxLogEvents - this.logSize));
      const w = await restoreWindow(
        this.resources,
        { changes, following: following ?? [], through: pending.through, markers: pending.markers, keepAfter, stateOf: (resource) => this.state(resource) },
        // Holding: changes are kept in order instead of applied, until `release`.
        { wanted, hold: () => (queue = this.heldBack = []), ...(this.restoreSliceMs === undefined ? {} : { sliceMs: this.restoreSliceMs }) },
      );
      if (!w) return 0;
      this.logSize += w.restored;
      this.compactedRevision = w.start;
      this.restoreReport = { windowStart: w.start, longestStepMs: Math.round(w.longestStepMs), heldChanges: this.heldBack?.length ?? 0 };
      return w.restored;
    } finally {
      if (queue !== null && this.heldBack === queue) this.release();
      this.endRestore(pending);
    }
  }

  /** Applies the changes held back, in order; a rebuild that held them then is no longer wanted. */
  private release(): void {
    const queue = this.heldBack;
    if (!queue) return;
    this.heldBack = null;
    for (const [change, applied] of queue) {
      this.applyNow(change);
      applied?.();
    }
  }

  /** The rebuild of `pending` (the one going on when absent) ends: the reads waiting for it go on. */
  private endRestore(pending = this.restoring): void {
    if (!pending || this.restoring !== pending) return;
    this.restoring = null;
    pending.end();
  }

  /** Whether a read at `revision` needs history that is still being rebuilt (whenHistory). */
  awaitsHistory(revision: number): boolean {
    return this.restoring !== null && revision < this.compactedRevision;
  }

  /** Resolves true once the window's rebuild has ended (restored or not), false when `timeoutMs` pass first. */
  whenHistory(timeoutMs: number): Promise<boolean> {
    return this.restoring ? this.restoring.wait(timeoutMs) : Promise.resolve(true);
  }

  whenSynced(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((r) => this.syncWaiters.push(r));
  }

  /** Resolves once `revision` is applied; rejects with 504 after `timeoutMs`. */
  waitFor(revision: number, timeoutMs: number): Promise<void> {
    if (revision <= this.revision && this.synced) return Promise.resolve();
    return this.waiters.wait(revision, timeoutMs, () => this.revision);
  }

  /**
   * Drops log events older than the window and raises compactedRevision. Forced (the log is over
   * its cap), the oldest events of all resources go as well, down to nine tenths of the cap: every
   * revision after the new start stays readable, and the next forced compaction is a tenth of the
   * cap away.
   */
  compact(force = false): void {
    // A window being put in place works against the logs as they stand; the next compaction comes soon.
    if (this.heldBack) return;
    const cutoff = this.now() - this.windowMs;
    const through = force ? oldestThrough(this.resources.values(), this.logSize - Math.floor(this.maxLogEvents * 0.9)) : 0;
    let dropped = 0;
    for (const st of this.resources.values()) {
      const n = st.dropOldest(cutoff, through);
      if (n === 0) continue;
      this.compactedRevision = Math.max(this.compactedRevision, st.droppedThrough);
      dropped += n;
    }
    this.logSize -= dropped;
    for (const [k, s] of this.snapshots) if (s.at < cutoff) this.snapshots.delete(k);
    if (dropped > 0) this.onCompacted?.(dropped);
  }

  get(resource: string, namespace: string | undefined, name: string): CachedObject | undefined {
    return this.resources.get(resource)?.objects.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Current objects of a resource in key order (namespace, then name). Do not mutate. */
  current(resource: string): CachedObject[] {
    return this.resources.get(resource)?.sorted() ?? [];
  }

  /** Whether a namespace holds any object of a namespaced resource. */
  holds(resource: string, namespace: string): boolean {
    const items = this.resources.get(resource)?.sorted();
    if (!items?.length) return false;
    const prefix = `${namespace}/`;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (items[mid]!.sortKey < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo < items.length && items[lo]!.sortKey.startsWith(prefix);
  }

  count(resource: string): number {
    return this.resources.get(resource)?.objects.size ?? 0;
  }

  /** Objects of a resource exactly as they were at `revision`, in key order. */
  snapshot(resource: string, revision: number): CachedObject[] {
    if (revision >= this.revision) return this.current(resource);
    if (revision < this.compactedRevision) {
      throw resourceExpired(`The resourceVersion for the provided list is too old: ${revision} (current window starts at ${this.compactedRevision})`);
    }
    const st = this.resources.get(resource);
    if (!st) return [];
    const memoKey = `${resource}@${revision}`;
    const memo = this.snapshots.get(memoKey);
    if (memo) return memo.items;
    const log = st.log;
    if (log.length === 0 || log[log.length - 1]!.revision <= revision) return st.sorted();
    const m = new Map(st.objects);
    for (let i = log.length - 1; i >= 0 && log[i]!.revision > revision; i--) {
      const ev = log[i]!;
      if (ev.prev) m.set(ev.prev.sortKey, ev.prev);
      else m.delete(ev.obj.sortKey);
    }
    const items = [...m.keys()].sort().map((k) => m.get(k)!);
    // Chunked lists read the same snapshot once per page; keep a few around.
    if (this.snapshots.size >= 16) this.snapshots.delete(this.snapshots.keys().next().value!);
    this.snapshots.set(memoKey, { at: this.now(), items });
    return items;
  }

  /**
   * Starts a watcher: sends the initial state (if any), replays logged changes after
   * `afterRevision`, then follows live changes. Too old a revision → an ERROR event with 410.
   */
  watch(resource: string, opts: WatchOptions): WatchHandle {
    const st = this.state(resource);
    const w = new Watcher(st, opts);
    if (this.failing) {
      w.fail(this.failing);
      return w;
    }
    if (opts.afterRevision < this.compactedRevision && !opts.initial) {
      w.expire(this.compactedRevision);
      return w;
    }
    // Registered from the start so that closeAll reaches a watcher still catching up.
    st.watchers.add(w);
    w.pump();
    return w;
  }

  /** Sends a BOOKMARK at the current revision to every watcher that asked for them and is behind. */
  sendBookmarks(): void {
    for (const st of this.resources.values()) {
      for (const w of st.watchers) if (w.live && w.lastBookmark < this.revision) w.bookmark(this.revision);
    }
  }

  /** Every resource the cache has seen, with its figures (for the metrics). */
  resourceStats(): ResourceStats[] {
    return [...this.resources].map(([key, st]) => st.stats(key));
  }

  watcherCount(): number {
    let n = 0;
    for (const st of this.resources.values()) n += st.watchers.size;
    return n;
  }

  /**
   * After the feed had to restart: applies the changes it missed from the bucket's change log, as
   * live changes (watchers go on without a gap), when they are exactly what happened — each one
   * replaces the state the cache holds for its object, and together they end at the bucket's state
   * (`replay`, every key's latest entry as of `through`). Otherwise applies nothing and answers
   * false: the caller falls back to `resync`. Returns the changes applied, in order.
   */
  catchUp(changes: LoggedChange[], replay: KvChange[], through: number): KvChange[] | null {
    this.release();
    const missed = changes.filter((c) => c.revision > this.revision);
    // Each object's revision as the missed changes leave it (0: absent), starting from the cache.
    const after = new Map<string, number>();
    const revisionOf = (key: string, ref: ObjectRef) => after.get(key) ?? this.get(resourceKey(ref.group, ref.resource), ref.namespace, ref.name)?.revision ?? 0;
    for (const c of missed) {
      let ref: ObjectRef;
      try {
        ref = decodeKey(c.key);
      } catch {
        return null;
      }
      const r = c.replaced;
      const held = revisionOf(c.key, ref);
      if (r === undefined || (r === 'none' ? held !== 0 : r.revision !== held)) return null;
      after.set(c.key, c.operation === 'PUT' ? c.revision : 0);
    }
    const latest = new Map(replay.map((e) => [e.key, e.operation === 'PUT' ? e.revision : 0]));
    for (const [key, revision] of after) if ((latest.get(key) ?? 0) !== revision) return null;
    for (const e of replay) {
      if (after.has(e.key)) continue;
      let ref: ObjectRef;
      try {
        ref = decodeKey(e.key);
      } catch {
        continue;
      }
      if (revisionOf(e.key, ref) !== (e.operation === 'PUT' ? e.revision : 0)) return null;
    }
    for (const st of this.resources.values()) {
      for (const o of st.objects.values()) {
        const key = encodeKey(o.ref);
        if (!after.has(key) && !latest.has(key)) return null;
      }
    }
    const applied = missed.map((c): KvChange => ({ key: c.key, revision: c.revision, operation: c.operation, value: c.value }));
    for (const c of applied) this.apply(c);
    if (through > this.revision) this.advance(through);
    return applied;
  }

  /**
   * After the feed had to restart (its consumer vanished, NATS restarted): `replay` holds every
   * key's latest entry as of `through`. Newer entries are changes made while the feed was down and
   * cached keys the replay lacks were deleted then. Their intermediate revisions are gone from the
   * stream (one entry per key), so when anything was missed the window restarts: watchers get 410
   * Expired (clients relist and watch again, as after any expiry) and reads of older revisions are
   * 410. When nothing changed, watchers go on as if the feed had never stopped. Returns the number
   * of changes that were missed.
   */
  resync(replay: KvChange[], through: number): number {
    this.release();
    const seen = new Set<string>();
    const missed: KvChange[] = [];
    // Older than the cache's revision yet not what the cache holds for its key: a change the feed
    // skipped while later ones arrived (a message lost in flight when a NATS node went away).
    const skipped: KvChange[] = [];
    for (const e of replay) {
      seen.add(e.key);
      if (e.revision > this.revision) missed.push(e);
      else {
        const held = this.heldRevision(e.key);
        if (held !== undefined && held !== (e.operation === 'PUT' ? e.revision : 0)) skipped.push(e);
      }
    }
    const gone: ObjectRef[] = [];
    for (const st of this.resources.values()) {
      for (const o of st.objects.values()) if (!seen.has(encodeKey(o.ref))) gone.push(o.ref);
    }
    if (missed.length === 0 && skipped.length === 0 && gone.length === 0) {
      if (through > this.revision) this.advance(through);
      return 0;
    }
    const at = Math.max(through, this.revision + 1, ...missed.map((e) => e.revision));
    for (const st of this.resources.values()) {
      for (const w of [...st.watchers]) w.expire(at);
    }
    // The window restarts here: a rebuild still going on has nothing left to restore.
    this.endRestore();
    for (const e of skipped) this.overwrite(e);
    missed.sort((a, b) => a.revision - b.revision);
    for (const e of missed) this.apply(e);
    for (const ref of gone) this.record(ref, at, null);
    for (const st of this.resources.values()) {
      this.logSize -= st.log.length;
      st.log.length = 0;
      st.droppedThrough = at;
    }
    this.snapshots.clear();
    this.initializations++;
    this.compactedRevision = at;
    this.advance(at);
    return missed.length + skipped.length + gone.length;
  }

  /** The revision the cache holds for a bucket key (0: no object); undefined for a key that names no object. */
  private heldRevision(key: string): number | undefined {
    let ref: ObjectRef;
    try {
      ref = decodeKey(key);
    } catch {
      return undefined;
    }
    return this.get(resourceKey(ref.group, ref.resource), ref.namespace, ref.name)?.revision ?? 0;
  }

  /** Sets a key to an entry older than the cache's revision (resync only: the window restarts after). */
  private overwrite(change: KvChange): void {
    let ref: ObjectRef;
    try {
      ref = decodeKey(change.key);
    } catch {
      return;
    }
    const obj = change.operation === 'PUT' && change.value ? parseLogged(ref, sortKeyOf(ref), change.value, change.revision) : undefined;
    this.record(ref, change.revision, obj ? obj.object : null);
  }

  /**
   * The cache has stopped following the store (its gateway lost NATS): every watch ends with an
   * ERROR event carrying `status` rather than going silent, and new ones are refused with it until
   * `followingAgain`. Their clients watch again, through another gateway or once this one is back;
   * the feed's resync expires whatever it missed meanwhile.
   */
  failWatches(status: Status): void {
    this.failing = status;
    for (const st of this.resources.values()) {
      for (const w of [...st.watchers]) w.fail(status);
    }
  }

  followingAgain(): void {
    this.failing = null;
  }

  /**
   * Ends every watch. With `finalBookmark` (a gateway shutting down), a caught-up watcher that asked
   * for bookmarks first gets one at the current revision, so its client resumes elsewhere from there.
   */
  closeAll(opts: { finalBookmark?: boolean } = {}): void {
    for (const st of this.resources.values()) {
      for (const w of [...st.watchers]) {
        if (opts.finalBookmark && w.live) w.bookmark(this.revision);
        w.stop();
        w.opts.sink.close();
      }
    }
  }
}

/**
 * What the cache tells of namespaces, for skipping admission phases (admission-match.ts). Only
 * once synced: before, every namespace reads as unknown (not active, holding anything).
 */
export function namespaceFacts(cache: WatchCache): NamespaceFacts {
  const namespaces = resourceKey('', 'namespaces');
  return {
    active(namespace) {
      if (!cache.synced) return false;
      const ns = cache.get(namespaces, undefined, namespace)?.object;
      return ns !== undefined && !ns.metadata.deletionTimestamp && (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';
    },
    holds: (namespace, group, resource) => !cache.synced || cache.holds(resourceKey(group, resource), namespace),
  };
}
