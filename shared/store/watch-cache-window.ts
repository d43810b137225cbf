// The watch cache's window rebuilt from the bucket's change log (change-log.ts): the changes of the
// window, each with the state it replaced so reads can roll back through it, and the revision
// before which nothing can be reconstructed. A gateway serves while it is rebuilt (watch-cache.ts
// `restoreHistory`), so the rebuild works against the state the cache held at the revision it
// loaded (`rollBack`), whatever has changed since. Logged objects are kept as their bytes and
// parsed only when read (logged-object.ts); changes older than what the window keeps are not
// turned into events at all.

import type { ObjectRef } from '../api/types.js';
import type { CachedObject } from '../codec/cached-object.js';
import { resourceKey } from '../api/resource-key.js';
import type { LoggedChange } from './change-log.js';
import { decodeKey, encodeKey } from './key-codec.js';
import { sortKeyOf, type ResourceState } from './watch-cache-resource.js';
import type { ChangeEvent } from './watch-cache-watcher.js';
import { DeletedObject, LoggedObject, looksLikeObject } from './logged-object.js';

export interface RebuildInput {
  /** The logged writes up to `through`, in revision order. */
  changes: LoggedChange[];
  /** The revision the cache loaded the bucket at. */
  through: number;
  /** The delete markers of the initial load, by bucket key. */
  markers: Map<string, number>;
  /** What the cache held at `through`, by bucket key (rollBack). */
  held: Map<string, CachedObject>;
  /** Keys whose first change the cache applied after `through` is a creation (rollBack). */
  added: Map<string, AddedSince>;
  /** Logged writes after `through` (what they replaced). */
  following: LoggedChange[];
  /** Changes at or before this revision are not kept (older than the window, or beyond its size). */
  keepAfter: number;
  /** Gets (or makes) a resource's state. */
  stateOf(resource: string): ResourceState;
}

export interface RebuiltWindow {
  /** Where history starts: changes at or before it cannot be rolled back. */
  start: number;
  /** The changes after `start` as the cache's events, in revision order, each with its resource's state. */
  events: Array<{ st: ResourceState; ev: ChangeEvent }>;
}

/** The object a bucket key names, and its resource's state. */
interface Named {
  ref: ObjectRef;
  sortKey: string;
  st: ResourceState;
}

function nameOf(key: string, stateOf: (resource: string) => ResourceState): Named | null {
  let ref: ObjectRef;
  try {
    ref = decodeKey(key);
  } catch {
    return null;
  }
  return { ref, sortKey: sortKeyOf(ref), st: stateOf(resourceKey(ref.group, ref.resource)) };
}

/** A change the cache applied after `through` as a creation: where it is in its resource's log. */
export interface AddedSince {
  st: ResourceState;
  index: number;
}

/** A key's last logged write so far, and the object it left (made when first needed; null: none). */
interface Latest {
  change: LoggedChange;
  obj?: CachedObject | null;
}

/** A window being rebuilt while the cache serves: the revision it is rebuilt up to, the load's delete markers, and the reads waiting for it. */
export class PendingWindow {
  private readonly waiters: Array<() => void> = [];

  constructor(
    readonly through: number,
    readonly markers: Map<string, number>,
  ) {}

  /** Resolves true once the rebuild has ended (restored or not), false when `timeoutMs` pass first. */
  wait(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(done), 1);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(done);
    });
  }

  end(): void {
    for (const f of this.waiters.splice(0)) f();
  }
}

/** How long a step of the rebuild runs before the event loop gets a turn (requests, changes arriving). */
const SLICE_MS = 20;

/**
 * The turns a long step gives back to the event loop: `due` looks at the clock every 1,024 calls
 * and says when `sliceMs` have passed since the last turn; `yield` gives one.
 */
class Slices {
  private calls = 0;
  private since = performance.now();
  /** The longest a step ran without a turn (GC pauses within it included). */
  longestMs = 0;

  constructor(private readonly sliceMs: number) {}

  due(): boolean {
    return (++this.calls & 1023) === 0 && performance.now() - this.since >= this.sliceMs;
  }

  async yield(): Promise<void> {
    this.end();
    await new Promise((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }

  /** The step running now ends (its time counts toward `longestMs`). */
  end(): void {
    this.longestMs = Math.max(this.longestMs, performance.now() - this.since);
  }
}

/** How the cache takes part in a rebuild. */
export interface RestoreControl {
  /** Whether the rebuild is still wanted (the window was not restarted nor compacted past `through`, nor the hold let go). */
  wanted(): boolean;
  /** From now until the rebuild ends, changes that arrive are held back, not applied: the cache stands still. */
  hold(): void;
  /** How long each step runs before the event loop gets a turn (default 20 ms). */
  sliceMs?: number;
}

/**
 * Rebuilds the window up to `through` and puts it in front of each resource's log; history then
 * starts at `start`. Every step yields to the event loop every `sliceMs`, so the gateway serves
 * meanwhile (a million logged changes take seconds to walk, and checking them against 100,000
 * objects a few hundred milliseconds). The walk over the log and the read of the cache's objects
 * go on while the cache takes changes; what follows works against the cache's logs as they stand,
 * so the cache holds the changes that arrive from then on until the rebuild ends (reads that need
 * them wait; the others are served). Resolves undefined, changing nothing, when the rebuild is no
 * longer wanted.
 */
export async function restoreWindow(
  resources: Map<string, ResourceState>,
  input: Omit<RebuildInput, 'held' | 'added'>,
  control: RestoreControl,
): Promise<{ start: number; restored: number; longestStepMs: number } | undefined> {
  const slices = new Slices(control.sliceMs ?? SLICE_MS);
  const walked = await walkLog(input, slices);
  if (!control.wanted()) return undefined;
  const current = await currentObjects(resources.values(), slices);
  if (!control.wanted()) return undefined;
  control.hold();
  const { start, events } = await finishWindow(walked, { ...input, ...rollBack(current, resources.values(), input.through) }, slices);
  const byResource = await groupByResource(events, slices);
  if (!control.wanted()) return undefined;
  for (const [st, evs] of byResource) st.log = evs.concat(st.log);
  for (const st of resources.values()) st.droppedThrough = start;
  slices.end();
  return { start, restored: events.length, longestStepMs: slices.longestMs };
}

/**
 * Each resource's rebuilt events, to go in front of the changes it logged since the load. Watchers
 * hold positions by revision: events before theirs change nothing for them.
 */
async function groupByResource(events: Array<{ st: ResourceState; ev: ChangeEvent }>, slices: Slices): Promise<Map<ResourceState, ChangeEvent[]>> {
  const byResource = new Map<ResourceState, ChangeEvent[]>();
  for (const { st, ev } of events) {
    if (slices.due()) await slices.yield();
    let evs = byResource.get(st);
    if (!evs) byResource.set(st, (evs = []));
    evs.push(ev);
  }
  return byResource;
}

/**
 * The revision at or before which logged changes are not kept: those older than the window
 * (logged before `cutoffAt`) and all but the last `budget` (the room left in the cache's log).
 */
export function keptAfter(changes: LoggedChange[], cutoffAt: number, budget: number): number {
  let after = changes.length > budget ? changes[changes.length - budget - 1]!.revision : 0;
  for (const c of changes) if (c.at < cutoffAt && c.revision > after) after = c.revision;
  return after;
}

/**
 * Every object the cache holds, by bucket key, read while it goes on taking changes: an object
 * changed after it was read, or created or deleted meanwhile, has an event after `through` in its
 * resource's log, and `rollBack` then sets its state from the log whatever was read here.
 */
async function currentObjects(resources: Iterable<ResourceState>, slices: Slices): Promise<Map<string, CachedObject>> {
  const held = new Map<string, CachedObject>();
  for (const st of resources) {
    for (const o of st.objects.values()) {
      if (slices.due()) await slices.yield();
      held.set(encodeKey(o.ref), o);
    }
  }
  return held;
}

/**
 * The objects the cache held at `through` (`held` is turned into them): the current ones rolled
 * back through the changes each resource logged since, and which keys were created since. Reads
 * the logs as they stand: the cache must not take changes until the window is in.
 */
function rollBack(held: Map<string, CachedObject>, resources: Iterable<ResourceState>, through: number): { held: Map<string, CachedObject>; added: Map<string, AddedSince> } {
  const added = new Map<string, AddedSince>();
  for (const st of resources) {
    for (let i = st.log.length - 1; i >= 0 && st.log[i]!.revision > through; i--) {
      const ev = st.log[i]!;
      const key = encodeKey(ev.obj.ref);
      added.delete(key);
      if (ev.prev) held.set(key, ev.prev);
      else {
        held.delete(key);
        added.set(key, { st, index: i });
      }
    }
  }
  return { held, added };
}

/** What the walk over the log found: where history can start so far, each key's last write, the kept changes as events. */
interface Walked {
  first: number;
  start: number;
  latest: Map<string, Latest>;
  events: Array<{ st: ResourceState; ev: ChangeEvent }>;
  /** Each key's last event, by index in `events`. */
  lastEvent: Map<string, number>;
}

/**
 * A change's previous state is the key's previous logged write when the change names it, the
 * object the change carries, or nothing for a create; a change whose previous state is none of
 * these cannot be rolled back, so history starts at it. Reads only the log (and makes resource
 * states), so it may take its time.
 */
async function walkLog({ changes, keepAfter, stateOf }: Pick<RebuildInput, 'changes' | 'keepAfter' | 'stateOf'>, slices: Slices): Promise<Walked> {
  const first = changes[0]!.revision;
  const w: Walked = { first, start: Math.max(first - 1, keepAfter), latest: new Map(), events: [], lastEvent: new Map() };
  // Each key decoded once (it is written many times): its object's name and resource state, null for a key that names no object.
  const names = new Map<string, Named | null>();
  for (const c of changes) {
    if (slices.due()) await slices.yield();
    const before = w.latest.get(c.key);
    const now: Latest = { change: c };
    w.latest.set(c.key, now);
    // Older than the window: only what it leaves matters (the previous state of a later change).
    if (c.revision <= keepAfter) continue;
    let name = names.get(c.key);
    if (name === undefined) names.set(c.key, (name = nameOf(c.key, stateOf)));
    const ev = name && eventOf(c, name, before, now);
    if (!name || ev === undefined) continue;
    if (ev === null) {
      w.start = Math.max(w.start, c.revision);
      continue;
    }
    w.lastEvent.set(c.key, w.events.length);
    w.events.push({ st: name.st, ev });
  }
  return w;
}

/** The log's last write of each key must be what the cache held at `through`, or nothing of it is trusted. */
async function finishWindow(w: Walked, input: RebuildInput, slices: Slices): Promise<RebuiltWindow> {
  let start = w.start;
  await checkAgainstHeld(input, w.latest, w.first, (revision) => (start = Math.max(start, revision)), slices);
  await useHeld(w.events, w.lastEvent, input.held, w.latest, slices);
  const events: RebuiltWindow['events'] = [];
  for (const e of w.events) {
    if (slices.due()) await slices.yield();
    if (e.ev.revision > start) events.push(e);
  }
  return { start, events };
}

/** The event of a kept change: null when its previous state is unknown, undefined when readers see no change (a delete of nothing). */
function eventOf(c: LoggedChange, { ref, sortKey }: Named, before: Latest | undefined, now: Latest): ChangeEvent | null | undefined {
  // The previous state; null while unknown.
  let prev: CachedObject | undefined | null = null;
  const r = c.replaced;
  if (r === 'none') prev = undefined;
  else if (r === undefined) prev = before === undefined ? null : (objectOf(before, ref, sortKey) ?? undefined);
  else if (r.revision === before?.change.revision) prev = objectOf(before, ref, sortKey);
  else if (r.json !== undefined && looksLikeObject(r.json)) prev = new LoggedObject(ref, sortKey, r.revision, r.json);
  const obj = objectOf(now, ref, sortKey);
  if (c.operation === 'PUT' && !obj) return null;
  if (prev === null) return null;
  if (obj) return { revision: c.revision, type: prev ? 'MODIFIED' : 'ADDED', obj, prev, at: c.at };
  // A delete of what did not exist changes nothing a reader sees.
  if (!prev) return undefined;
  return { revision: c.revision, type: 'DELETED', obj: new DeletedObject(prev, c.revision), prev, at: c.at };
}

/** The object a logged write left (one instance per write, shared by the events that name it); null for a delete or bytes that are no object. */
function objectOf(l: Latest, ref: ObjectRef, sortKey: string): CachedObject | null {
  if (l.obj !== undefined) return l.obj;
  const c = l.change;
  return (l.obj = c.operation === 'PUT' && looksLikeObject(c.value) ? new LoggedObject(ref, sortKey, c.revision, c.value) : null);
}

/**
 * An object the log has at `through` that the cache's load missed: its write was superseded, just
 * before the load's consumer began, by one the cache then applied after `through` as a creation.
 * When the log says that later write replaced the log's last one, the log's object is the state at
 * `through`, and the later write becomes the modification it was. Returns whether it did.
 */
function adopt({ held, added }: RebuildInput, following: Map<number, LoggedChange>, key: string, l: Latest): boolean {
  const a = added.get(key);
  const ev = a && a.st.log[a.index];
  const next = ev && following.get(ev.revision);
  if (!a || !ev || next?.key !== key || typeof next.replaced !== 'object' || next.replaced.revision !== l.change.revision) return false;
  const prev = objectOf(l, ev.obj.ref, ev.obj.sortKey)!;
  held.set(key, prev);
  a.st.log[a.index] = { revision: ev.revision, type: 'MODIFIED', obj: ev.obj, prev, at: ev.at };
  return true;
}

/** Whether a bucket key names an object (no writer of ours makes others; the cache ignores them). */
function namesObject(key: string): boolean {
  try {
    decodeKey(key);
    return true;
  } catch {
    return false;
  }
}

/** Whether a key's last logged write left an object. */
function leftObject(l: Latest): boolean {
  return l.obj !== undefined ? l.obj !== null : l.change.operation === 'PUT' && looksLikeObject(l.change.value);
}

/**
 * The log must end where the bucket was at `through`. A write it lacks (its entry still on the
 * way, or lost) leaves the object known only from the bucket's revision of it on.
 */
async function checkAgainstHeld(input: RebuildInput, latest: Map<string, Latest>, first: number, known: (revision: number) => void, slices: Slices): Promise<void> {
  const { held, markers, through } = input;
  for (const [key, o] of held) {
    if (slices.due()) await slices.yield();
    const l = latest.get(key);
    if (l === undefined ? o.revision >= first : l.change.revision !== o.revision || !leftObject(l)) known(o.revision);
  }
  const following = new Map(input.following.map((c) => [c.revision, c]));
  for (const [key, l] of latest) {
    if (slices.due()) await slices.yield();
    if (leftObject(l) && !held.has(key) && namesObject(key) && !adopt(input, following, key, l)) known(markers.get(key) ?? through);
  }
  for (const [key, revision] of markers) {
    if (slices.due()) await slices.yield();
    if (revision >= first && latest.get(key)?.change.revision !== revision) known(revision);
  }
}

/** The object the cache holds replaces the log's copy of the same revision (one copy in memory, already parsed). */
async function useHeld(
  events: Array<{ st: ResourceState; ev: ChangeEvent }>,
  lastEvent: Map<string, number>,
  held: Map<string, CachedObject>,
  latest: Map<string, Latest>,
  slices: Slices,
): Promise<void> {
  for (const [key, i] of lastEvent) {
    if (slices.due()) await slices.yield();
    const { st, ev } = events[i]!;
    const now = held.get(key);
    if (ev.type !== 'DELETED' && now?.revision === ev.revision && latest.get(key)?.change.revision === ev.revision) events[i] = { st, ev: { ...ev, obj: now } };
  }
}
