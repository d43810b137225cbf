// The watch cache's window rebuilt at start-up from the bucket's change log (change-log.ts): the
// changes of the window, each with the state it replaced so reads can roll back through it, and
// the revision before which nothing can be reconstructed.

import type { ApiObject, ObjectRef } from '../api/types.js';
import type { CachedObject } from '../codec/cached-object.js';
import { resourceKey } from '../api/resource-key.js';
import type { LoggedChange } from './change-log.js';
import { decodeKey } from './key-codec.js';
import { parseLogged, sortKeyOf, type ResourceState } from './watch-cache-resource.js';
import type { ChangeEvent } from './watch-cache-watcher.js';

export interface RebuiltWindow {
  /** Where history starts: changes at or before it cannot be rolled back. */
  start: number;
  /** The logged changes as the cache's events, in revision order, each with its resource's state. */
  events: Array<{ st: ResourceState; ev: ChangeEvent }>;
  /** What the cache holds now, by resource and sort key. */
  held: Map<string, CachedObject>;
}

/**
 * A change's previous state is the key's previous logged write when the change names it, the
 * object the change carries, or nothing for a create; a change whose previous state is none of
 * these cannot be rolled back, so history starts at it. The log's last write of each key must be
 * what the cache holds (`resources`, at `through`), or nothing of it is trusted. `markers` are the
 * delete markers of the initial load; `stateOf` gets (or makes) a resource's state.
 */
export function rebuildWindow(
  changes: LoggedChange[],
  through: number,
  markers: Map<string, number>,
  resources: Map<string, ResourceState>,
  stateOf: (resource: string) => ResourceState,
): RebuiltWindow {
  const first = changes[0]!.revision;
  let start = first - 1;
  const known = (revision: number) => (start = Math.max(start, revision));
  // Per object (resource and sort key): its state after the last logged write, and that write.
  const latest = new Map<string, CachedObject | null>();
  const latestRevision = new Map<string, number>();
  const events: Array<{ st: ResourceState; ev: ChangeEvent }> = [];
  for (const c of changes) {
    let ref: ObjectRef;
    try {
      ref = decodeKey(c.key);
    } catch {
      continue;
    }
    const resource = resourceKey(ref.group, ref.resource);
    const sortKey = sortKeyOf(ref);
    const id = `${resource}\0${sortKey}`;
    const before = latestRevision.get(id);
    // The previous state; null while unknown.
    let prev: CachedObject | undefined | null = null;
    const r = c.replaced;
    if (r === 'none') prev = undefined;
    else if (r === undefined) prev = before === undefined ? null : (latest.get(id) ?? undefined);
    else if (r.revision === before) prev = latest.get(id) ?? null;
    else if (r.json !== undefined) prev = parseLogged(ref, sortKey, r.json, r.revision);
    let obj: CachedObject | null = null;
    if (c.operation === 'PUT') {
      obj = parseLogged(ref, sortKey, c.value, c.revision);
      if (!obj) prev = null;
    }
    latest.set(id, obj);
    latestRevision.set(id, c.revision);
    // Nothing before a change of unknown previous state can be reconstructed.
    if (prev === null) {
      known(c.revision);
      continue;
    }
    const st = stateOf(resource);
    if (obj) events.push({ st, ev: { revision: c.revision, type: prev ? 'MODIFIED' : 'ADDED', obj, prev, at: c.at } });
    else if (prev) {
      const last: ApiObject = { ...prev.object, metadata: { ...prev.object.metadata, resourceVersion: String(c.revision) } };
      events.push({ st, ev: { revision: c.revision, type: 'DELETED', obj: { ref, sortKey, object: last, revision: c.revision }, prev, at: c.at } });
    }
  }
  // The log must end where the bucket is. A write it lacks (its entry still on the way, or
  // lost) leaves the object known only from the bucket's revision of it on.
  const held = new Map<string, CachedObject>();
  for (const [resource, st] of resources) {
    for (const o of st.objects.values()) {
      const id = `${resource}\0${o.sortKey}`;
      held.set(id, o);
      const logged = latestRevision.get(id);
      if (logged === undefined ? o.revision >= first : logged !== o.revision || !latest.get(id)) known(o.revision);
    }
  }
  for (const [id, obj] of latest) if (obj && !held.has(id)) known(markers.get(id) ?? through);
  for (const [id, revision] of markers) if (revision >= first && latestRevision.get(id) !== revision) known(revision);
  return { start, events, held };
}
