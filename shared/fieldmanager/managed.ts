// Field ownership in `metadata.managedFields`, as kube-apiserver keeps it: every write records which
// manager set which fields (operation Update), server-side apply records the applied configuration
// (operation Apply), merges it into the live object, fails on conflicts with other managers unless
// forced, and deletes fields the applier stopped applying that nobody else owns.

import { badRequest, failure, StatusReason } from '../api/status.js';
import type { ApiObject, JsonSchema } from '../api/types.js';
import { cloneJson, jsonEqual } from '../patch/json-value.js';
import { FieldSet, pathString, type Path } from './fieldset.js';
import { merge, removeAt, toFieldSet, valueAt, valueBelow, type Ignore } from './typed.js';

export const Operation = { Apply: 'Apply', Update: 'Update' } as const;
export type Operation = (typeof Operation)[keyof typeof Operation];

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

interface Entry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time: string;
  subresource: string;
  set: FieldSet;
}

/** Who writes: the manager's name, the subresource, the served apiVersion, the time to record. */
export interface Writer {
  manager: string;
  subresource: string;
  apiVersion: string;
  now: string;
}

/** Identity and server-written metadata: never owned by anyone. */
const UNOWNED_META = new Set([
  'name',
  'namespace',
  'generateName',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
  'managedFields',
]);

/**
 * The paths a write to `subresource` may own: a status write owns only `status`; a write to the
 * main resource of a type with a status subresource never owns `status`.
 */
export function ownable(subresource: string, hasStatus: boolean): Ignore {
  return (path: Path) => {
    if (path.length === 0) return false;
    const top = path[0]!;
    if (top === 'f:apiVersion' || top === 'f:kind') return true;
    if (top === 'f:metadata' && path.length === 2 && UNOWNED_META.has(path[1]!.slice(2))) return true;
    if (subresource === 'status') return top !== 'f:status';
    return hasStatus && top === 'f:status';
  };
}

/** The manager of a write that names none: the user agent up to its first '/' (upstream's rule). */
export function defaultManager(userAgent: string | undefined): string {
  const ua = userAgent ?? '';
  const slash = ua.indexOf('/');
  const name = (slash < 0 ? ua : ua.slice(0, slash)).trim();
  return name.length > 128 ? name.slice(0, 128) : name || 'unknown';
}

function readEntries(list: unknown): Entry[] | null {
  if (!Array.isArray(list)) return null;
  const out: Entry[] = [];
  for (const raw of list as ManagedFieldsEntry[]) {
    if (!raw || typeof raw !== 'object') return null;
    if (raw.operation !== Operation.Apply && raw.operation !== Operation.Update) return null;
    if (raw.fieldsType !== undefined && raw.fieldsType !== 'FieldsV1') return null;
    out.push({
      manager: raw.manager ?? '',
      operation: raw.operation,
      apiVersion: raw.apiVersion ?? '',
      time: raw.time ?? '',
      subresource: raw.subresource ?? '',
      set: FieldSet.fromFieldsV1(raw.fieldsV1),
    });
  }
  return out;
}

function writeEntries(entries: Entry[]): ManagedFieldsEntry[] {
  return entries
    .filter((e) => !e.set.isEmpty())
    .map((e) => {
      const out: ManagedFieldsEntry = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
      if (e.time) out.time = e.time;
      out.fieldsType = 'FieldsV1';
      out.fieldsV1 = e.set.toFieldsV1();
      if (e.subresource) out.subresource = e.subresource;
      return out;
    });
}

function setManaged(obj: ApiObject, entries: Entry[]): void {
  const list = writeEntries(entries);
  if (list.length) obj.metadata.managedFields = list;
  else delete obj.metadata.managedFields;
}

const same = (e: Entry, w: Writer, op: Operation) => e.manager === w.manager && e.operation === op && e.subresource === w.subresource;

function isLeaf(set: FieldSet, path: Path): boolean {
  let n: FieldSet | undefined = set;
  for (const e of path) n = n?.children.get(e);
  return !!n && n.children.size === 0;
}

/** Whether the set holds `path` or anything below it. */
function reaches(set: FieldSet, path: Path): boolean {
  let n: FieldSet | undefined = set;
  for (const e of path) n = n?.children.get(e);
  return !!n && !n.isEmpty();
}

/**
 * The members of `set` (paths of `next`) that `prev` lacks, and with `compare` also the leaves
 * whose value in `next` differs from `prev`'s: the tree and both objects walked together, one
 * step per level, as looking each member up from the root would find them. Undefined when none.
 */
function changedFields(set: FieldSet, prev: unknown, next: unknown, compare: boolean): FieldSet | undefined {
  let out: FieldSet | undefined;
  if (set.member && (prev === undefined || (compare && set.children.size === 0 && !jsonEqual(prev, next)))) {
    out = new FieldSet();
    out.member = true;
  }
  for (const [e, c] of set.children) {
    const sub = changedFields(c, prev === undefined ? undefined : valueBelow(prev, e), compare ? valueBelow(next, e) : undefined, compare);
    if (sub) (out ??= new FieldSet()).children.set(e, sub);
  }
  return out;
}

/** A single `{}` entry asks to clear managedFields (spec rule 8). */
function isReset(list: unknown): boolean {
  return Array.isArray(list) && list.length === 1 && jsonEqual(list[0], {});
}

/**
 * Records an Update by `w` of `prev` (null for a create) into `next`: the fields it added or
 * changed become its own and leave every other manager; fields it removed leave everyone. A write
 * that changes nothing leaves managedFields as they were, so a no-op stays a no-op. A write whose
 * managedFields is `[{}]` clears them first (rule 8): afterwards the writer owns only what it
 * changed, so a write that changes nothing else leaves no managedFields at all (as upstream).
 */
export function recordUpdate(prev: ApiObject | null, next: ApiObject, schema: JsonSchema | undefined, w: Writer, ignore: Ignore): void {
  const incoming = next.metadata.managedFields;
  const prevList = prev?.metadata.managedFields;
  const reset = isReset(incoming);
  // An absent or empty list keeps what was there; a valid list replaces it; [{}] clears it.
  let base: Entry[];
  if (reset) base = [];
  else if (!Array.isArray(incoming) || incoming.length === 0) base = readEntries(prevList) ?? [];
  else base = readEntries(incoming) ?? readEntries(prevList) ?? [];

  const newMaps = new FieldSet();
  const oldMaps = new FieldSet();
  const newSet = toFieldSet(next, schema, ignore, newMaps);
  const oldSet = prev ? toFieldSet(prev, schema, ignore, oldMaps) : new FieldSet();
  const changed = changedFields(newSet, prev ?? undefined, next, true) ?? new FieldSet();
  const appeared = changedFields(newMaps, prev ?? undefined, undefined, false);
  if (appeared) changed.insertAll(appeared);
  const removed = oldSet.difference(newSet).union(oldMaps.difference(newMaps));
  const entries = base.map((e) => ({ ...e, set: e.set.difference(changed).difference(removed) }));
  if (!changed.isEmpty()) {
    const mine = entries.find((e) => same(e, w, Operation.Update));
    if (mine) {
      mine.set = mine.set.union(changed);
      mine.time = w.now;
      mine.apiVersion = w.apiVersion;
    } else {
      entries.push({ manager: w.manager, operation: Operation.Update, apiVersion: w.apiVersion, time: w.now, subresource: w.subresource, set: changed });
    }
  }
  setManaged(next, entries);
  if (prev && !reset && jsonEqual(next.metadata.managedFields, prevList)) {
    if (prevList === undefined) delete next.metadata.managedFields;
    else next.metadata.managedFields = prevList;
  }
}

export interface ApplyConflict {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource: string;
  path: Path;
}

/** How upstream names a manager in a conflict: an Update names its version, an Apply does not. */
function managerText(c: ApplyConflict): string {
  let text = JSON.stringify(c.manager);
  if (c.subresource) text += ` with subresource ${JSON.stringify(c.subresource)}`;
  return c.operation === Operation.Update ? `${text} using ${c.apiVersion}` : text;
}

/**
 * 409 in upstream's words: `Apply failed with 1 conflict: conflict with "m" using apps/v1: .spec.replicas`,
 * or, for several, `Apply failed with 2 conflicts: conflicts with "a":\n- .spec.replicas\n…` by manager.
 */
export function conflictError(conflicts: ApplyConflict[], kind: string, name: string, group: string): Error {
  const n = conflicts.length;
  let message: string;
  if (n === 1) message = `Apply failed with 1 conflict: conflict with ${managerText(conflicts[0]!)}: ${pathString(conflicts[0]!.path)}`;
  else {
    const byManager = new Map<string, ApplyConflict[]>();
    for (const c of conflicts) {
      const who = managerText(c);
      byManager.set(who, [...(byManager.get(who) ?? []), c]);
    }
    const lines = [...byManager].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).flatMap(([who, cs]) => [`conflicts with ${who}:`, ...cs.map((c) => `- ${pathString(c.path)}`)]);
    message = `Apply failed with ${n} conflicts: ${lines.join('\n')}`;
  }
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${managerText(c)}`, field: pathString(c.path) }));
  return failure(409, StatusReason.Conflict, message, { name, group, kind, causes });
}

/**
 * Server-side apply of `applied` by `w` onto `live` (null when the object does not exist yet):
 * the merged object with managedFields updated. Conflicts with other managers over values that
 * differ fail with 409 unless `force`, which takes the fields over. Conflicts over `allowed` paths
 * (last-applied.ts) are taken over too, as if forced, when they are the only ones; otherwise the
 * 409 names only the others, as upstream's.
 */
export function apply(
  live: ApiObject | null,
  applied: ApiObject,
  schema: JsonSchema | undefined,
  w: Writer,
  force: boolean,
  ignore: Ignore,
  describe: { kind: string; group: string },
  allowed?: FieldSet,
): ApiObject {
  if (applied.metadata?.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
  const appliedSet = toFieldSet(applied, schema, ignore);
  const entries = readEntries(live?.metadata.managedFields) ?? [];
  const conflicts: ApplyConflict[] = [];
  for (const e of entries) {
    // The applier's own Apply entry; its Update entries are other managers, as upstream keys them.
    if (same(e, w, Operation.Apply)) continue;
    for (const p of e.set.intersection(appliedSet).paths()) {
      if (!isLeaf(appliedSet, p)) continue;
      const current = valueAt(live, p);
      if (current !== undefined && !jsonEqual(current, valueAt(applied, p)))
        conflicts.push({ manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, subresource: e.subresource, path: p });
    }
  }
  const blocking = allowed ? conflicts.filter((c) => !allowed.has(c.path)) : conflicts;
  if (blocking.length && !force) throw conflictError(blocking, describe.kind, applied.metadata.name ?? '', describe.group);
  if (conflicts.length) {
    for (const e of entries) {
      if (same(e, w, Operation.Apply)) continue;
      for (const c of conflicts) if (c.manager === e.manager && c.operation === e.operation && c.subresource === e.subresource) e.set = e.set.difference(single(c.path));
    }
  }

  const base = live ? cloneJson(live) : ({ metadata: {} } as ApiObject);
  delete base.metadata.managedFields;
  const merged = merge(base, applied, schema) as ApiObject;
  let mine = entries.find((e) => same(e, w, Operation.Apply));
  // Fields this manager applied before and applies no more go, unless someone else owns them.
  if (mine) {
    const others = entries.filter((e) => e !== mine).reduce((acc, e) => acc.union(e.set), new FieldSet());
    // A map or item still applied or owned below (its `.` dropped, say) stays, as upstream adds back what is owned.
    for (const p of mine.set.difference(appliedSet).paths()) if (!reaches(others, p) && !reaches(appliedSet, p)) removeAt(merged, p);
  } else {
    mine = { manager: w.manager, operation: Operation.Apply, apiVersion: w.apiVersion, time: w.now, subresource: w.subresource, set: appliedSet };
    entries.push(mine);
  }
  mine.set = appliedSet;
  mine.apiVersion = w.apiVersion;
  // A no-op apply changes nothing, not even its entry's time, so the store writes nothing (as upstream).
  if (live && mine.time) {
    setManaged(merged, entries);
    if (jsonEqual(merged, live)) return merged;
  }
  mine.time = w.now;
  setManaged(merged, entries);
  return merged;
}

function single(path: Path): FieldSet {
  const s = new FieldSet();
  s.insert(path);
  return s;
}
