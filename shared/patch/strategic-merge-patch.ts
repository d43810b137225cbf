// Strategic merge patch, `application/strategic-merge-patch+json` (what kubectl apply, edit and
// patch send): a JSON merge patch whose lists merge according to the type's schema, plus
// directives: `$patch: replace|merge|delete` in maps and list items, `$retainKeys`,
// `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.
// Lists without a schema node merge like upstream merges unknown types: the patch replaces them.
// Work is metered (limits.ts): an honest merge visits each node of the object and the patch a few
// times, but list items repeating one merge key make it merge, copy and scan the same item again
// for each repeat, so the total is capped at a multiple of the inputs' size.

import { malformedPatch, strategicMergeTooExpensive, unprocessablePatch } from './errors.js';
import { cloneJson, getOwn, hasOwn, isJsonObject, preview, setOwn, type JsonObject } from './json-value.js';
import { STRATEGIC_MERGE_WORK_FACTOR, STRATEGIC_MERGE_WORK_FLOOR, WorkMeter, jsonWork } from './limits.js';
import { childSchema, itemSchema, listMergeKind, replacesMaps, resolvePatchSchema } from './patch-schema.js';
import type { JsonSchema } from '../api/types.js';

export const PatchDirective = {
  Key: '$patch',
  Replace: 'replace',
  Merge: 'merge',
  Delete: 'delete',
  RetainKeys: '$retainKeys',
  DeleteFromPrimitiveList: '$deleteFromPrimitiveList/',
  SetElementOrder: '$setElementOrder/',
} as const;

/** Marks a value the patch deleted (`$patch: delete`), which the caller drops from its parent. */
const DELETED: unique symbol = Symbol('deleted');
type Merged = unknown | typeof DELETED;

/** Per-field list directives gathered from the enclosing map. */
interface ListDirectives {
  order?: unknown[];
  deleteValues?: unknown[];
}

/**
 * Applies a strategic merge patch to `original` and returns the new object; inputs are not
 * changed. `schema` is the object's full schema (metadata is filled in when it lacks one).
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema?: JsonSchema): unknown {
  if (!isJsonObject(patch)) throw malformedPatch('a strategic merge patch must be a JSON object');
  const budget = STRATEGIC_MERGE_WORK_FACTOR * (jsonWork(original) + jsonWork(patch)) + STRATEGIC_MERGE_WORK_FLOOR;
  const m = new WorkMeter(budget, (_used, limit) => strategicMergeTooExpensive(limit));
  const merged = mergeMap(isJsonObject(original) ? original : undefined, patch, resolvePatchSchema(schema), '', m);
  // `$patch: delete` at the top clears the object, as upstream does.
  return merged === DELETED ? {} : merged;
}

function isDirectiveKey(key: string): boolean {
  return key === PatchDirective.Key || key === PatchDirective.RetainKeys || key.startsWith(PatchDirective.DeleteFromPrimitiveList) || key.startsWith(PatchDirective.SetElementOrder);
}

function fieldPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

function patchDirective(patch: JsonObject, path: string): string | undefined {
  if (!hasOwn(patch, PatchDirective.Key)) return undefined;
  const d = patch[PatchDirective.Key];
  if (d !== PatchDirective.Replace && d !== PatchDirective.Merge && d !== PatchDirective.Delete) {
    throw malformedPatch(`unknown patch directive ${preview(d)} in "$patch" at ${path || '<root>'} (expected replace, merge or delete)`);
  }
  return d;
}

function withoutDirective(patch: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(patch)) if (k !== PatchDirective.Key) setOwn(out, k, patch[k]);
  return out;
}

function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: JsonSchema | undefined, path: string, m: WorkMeter): Merged {
  const directive = patchDirective(patch, path);
  if (directive === PatchDirective.Delete) return DELETED;
  if (directive === PatchDirective.Replace) return mergeMap(undefined, withoutDirective(patch), schema, path, m);
  // The loops below visit every member of both maps.
  m.charge(1 + (original ? Object.keys(original).length : 0) + Object.keys(patch).length);

  const retain = retainKeys(patch, path);
  const listDirectives = new Map<string, ListDirectives>();
  for (const k of Object.keys(patch)) {
    let field: string | undefined;
    let kind: keyof ListDirectives | undefined;
    if (k.startsWith(PatchDirective.SetElementOrder)) {
      field = k.slice(PatchDirective.SetElementOrder.length);
      kind = 'order';
    } else if (k.startsWith(PatchDirective.DeleteFromPrimitiveList)) {
      field = k.slice(PatchDirective.DeleteFromPrimitiveList.length);
      kind = 'deleteValues';
    }
    if (field === undefined || kind === undefined) continue;
    const v = patch[k];
    if (!Array.isArray(v)) throw malformedPatch(`invalid patch: ${k} at ${path || '<root>'} must be a list`);
    const d = listDirectives.get(field) ?? {};
    d[kind] = v;
    listDirectives.set(field, d);
  }

  const out: JsonObject = {};
  const apply = (key: string, orig: unknown): void => {
    const patched = hasOwn(patch, key) && !isDirectiveKey(key);
    const directives = listDirectives.get(key);
    if (!patched && !directives) {
      if (orig !== undefined) setOwn(out, key, cloneJson(orig, m));
      return;
    }
    const pv = patched ? patch[key] : undefined;
    if (patched && pv === null) return;
    const v = mergeValue(orig, pv, childSchema(schema, key), fieldPath(path, key), directives, m);
    if (v !== DELETED && v !== undefined) setOwn(out, key, v);
  };
  if (original) for (const k of Object.keys(original)) apply(k, original[k]);
  for (const k of Object.keys(patch)) {
    if (isDirectiveKey(k) || (original && hasOwn(original, k))) continue;
    apply(k, undefined);
  }

  if (retain) {
    for (const k of Object.keys(out)) if (!retain.has(k)) delete out[k];
  }
  return out;
}

/**
 * `$retainKeys`: the map keeps only the listed members (how a union type such as a Deployment's
 * strategy drops the member of the previous variant). Every member the patch sets must be listed.
 */
function retainKeys(patch: JsonObject, path: string): Set<string> | undefined {
  if (!hasOwn(patch, PatchDirective.RetainKeys)) return undefined;
  const list = patch[PatchDirective.RetainKeys];
  if (!Array.isArray(list) || !list.every((k) => typeof k === 'string')) {
    throw malformedPatch(`invalid patch: $retainKeys at ${path || '<root>'} must be a list of strings`);
  }
  const keys = new Set(list as string[]);
  for (const k of Object.keys(patch)) {
    if (isDirectiveKey(k) || patch[k] === null) continue;
    if (!keys.has(k)) throw unprocessablePatch(`the patch sets ${preview(fieldPath(path, k))}, which is not in its $retainKeys list ${preview(list)}`);
  }
  return keys;
}

/** Merges one member. `pv` is `undefined` when only list directives mention the member. */
function mergeValue(orig: unknown, pv: unknown, schema: JsonSchema | undefined, path: string, directives: ListDirectives | undefined, m: WorkMeter): Merged {
  if (pv === undefined) {
    return Array.isArray(orig) ? mergeList(orig, undefined, schema, path, directives, m) : cloneJson(orig, m);
  }
  if (isJsonObject(pv)) return mergeMap(isJsonObject(orig) && !replacesMaps(schema) ? orig : undefined, pv, schema, path, m);
  if (Array.isArray(pv)) return mergeList(Array.isArray(orig) ? orig : undefined, pv, schema, path, directives, m);
  return pv;
}

/** A list item that is nothing but a `$patch` directive applies to the whole list. */
function listDirective(patch: unknown[], path: string): { directive?: string; items: unknown[] } {
  let directive: string | undefined;
  const items: unknown[] = [];
  for (const item of patch) {
    if (isJsonObject(item) && hasOwn(item, PatchDirective.Key) && Object.keys(item).length === 1) {
      directive = patchDirective(item, path);
    } else {
      items.push(item);
    }
  }
  return { directive, items };
}

function mergeList(orig: unknown[] | undefined, patch: unknown[] | undefined, schema: JsonSchema | undefined, path: string, directives: ListDirectives | undefined, m: WorkMeter): Merged {
  const meta = listMergeKind(schema);
  const items = itemSchema(schema);
  m.charge(1 + (orig?.length ?? 0) + (patch?.length ?? 0) + (directives?.order?.length ?? 0) + (directives?.deleteValues?.length ?? 0));
  let patchItems = patch ?? [];
  if (patch) {
    const whole = listDirective(patch, path);
    if (whole.directive === PatchDirective.Delete) return DELETED;
    patchItems = whole.items;
    if (whole.directive === PatchDirective.Replace) return patchItems.map((item) => freshItem(item, items, path, m)).filter((v) => v !== DELETED);
  }

  if (meta.kind === 'replace') {
    // Upstream takes the patch's list as it is; with only directives the original list stays.
    if (patch) return cloneJson(patchItems, m);
    return cloneJson(removeValues(orig ?? [], directives?.deleteValues, m), m);
  }

  if (meta.kind === 'set') {
    if (patchItems.some((v) => typeof v === 'object' && v !== null)) return cloneJson(patchItems, m);
    const seen = new Set<string>();
    const merged: unknown[] = [];
    for (const v of [...removeValues(orig ?? [], directives?.deleteValues, m), ...patchItems]) {
      const k = scalarKey(v, m);
      if (seen.has(k)) continue;
      seen.add(k);
      merged.push(cloneJson(v, m));
    }
    const order = directives?.order;
    if (!order) return merged;
    if (order.some((v) => typeof v === 'object' && v !== null)) throw malformedPatch(`invalid patch: $setElementOrder for the list of values at ${path} must list values`);
    const key = (v: unknown): string => scalarKey(v, m);
    return applyElementOrder(merged, order.map(key), key, (orig ?? []).map(key));
  }

  return mergeKeyedList(orig ?? [], patchItems, meta.keys, items, path, directives?.order, m);
}

function freshItem(item: unknown, schema: JsonSchema | undefined, path: string, m: WorkMeter): Merged {
  return isJsonObject(item) ? mergeMap(undefined, item, schema, path, m) : cloneJson(item, m);
}

/** Encoding costs about a node visit per 64 characters (the unit of limits.ts `jsonWork`). */
function scalarKey(v: unknown, m: WorkMeter): string {
  const s = JSON.stringify(v) ?? 'undefined';
  m.charge(1 + (s.length >> 6));
  return s;
}

function removeValues(list: unknown[], values: unknown[] | undefined, m: WorkMeter): unknown[] {
  if (!values || values.length === 0) return list;
  const drop = new Set(values.map((v) => scalarKey(v, m)));
  // Every copy goes: a set that somehow holds duplicates loses them all.
  return list.filter((v) => !drop.has(scalarKey(v, m)));
}

/** Identity of an item of a keyed list; `undefined` when the item carries none of the keys. */
function itemKey(item: unknown, keys: string[], m: WorkMeter): string | undefined {
  if (!isJsonObject(item)) return undefined;
  const values = keys.map((k) => getOwn(item, k));
  if (values.every((v) => v === undefined)) return undefined;
  return scalarKey(
    values.map((v) => (v === undefined ? null : v)),
    m,
  );
}

function mergeKeyedList(orig: unknown[], patch: unknown[], keys: string[], schema: JsonSchema | undefined, path: string, order: unknown[] | undefined, m: WorkMeter): unknown[] {
  const keyList = keys.join(', ');
  // Items the server holds are kept in place; a patch item updates the first item with its key.
  // Entries are indexed by key so a long list costs one pass, not one scan per patch item.
  type Entry = { key: string | undefined; value: unknown; deleted?: boolean };
  const entries: Entry[] = orig.map((v) => ({ key: itemKey(v, keys, m), value: cloneJson(v, m) }));
  const byKey = new Map<string, Entry[]>();
  const index = (e: Entry): void => {
    if (e.key === undefined) return;
    const list = byKey.get(e.key);
    if (list) list.push(e);
    else byKey.set(e.key, [e]);
  };
  entries.forEach(index);
  patch.forEach((item, i) => {
    if (!isJsonObject(item)) throw malformedPatch(`invalid patch: item ${i} of ${path} must be an object (the list is merged by ${keyList})`);
    const key = itemKey(item, keys, m);
    if (key === undefined) throw malformedPatch(`invalid patch: item ${i} of ${path} does not contain the merge key ${keyList}`);
    const matches = byKey.get(key);
    const existing = matches?.[0];
    const merged = mergeMap(isJsonObject(existing?.value) ? (existing.value as JsonObject) : undefined, item, schema, `${path}[${i}]`, m);
    if (merged === DELETED) {
      // Every item with the key goes, duplicates included.
      for (const e of matches ?? []) e.deleted = true;
      byKey.delete(key);
    } else if (existing) {
      existing.value = merged;
    } else {
      const e: Entry = { key, value: merged };
      entries.push(e);
      index(e);
    }
  });
  const values = entries.filter((e) => !e.deleted).map((e) => e.value);
  if (!order) return values;
  const orderKeys = order.map((o, i) => {
    const k = itemKey(o, keys, m);
    if (k === undefined) throw malformedPatch(`invalid patch: item ${i} of $setElementOrder/${path.split('.').pop()} must be an object with ${keyList}`);
    return k;
  });
  return applyElementOrder(
    values,
    orderKeys,
    (v) => itemKey(v, keys, m),
    orig.map((v) => itemKey(v, keys, m)),
  );
}

/**
 * Orders a merged list by `$setElementOrder`. Listed items follow the directive's order; items it
 * does not list (typically ones the server added) keep their position relative to the listed
 * items as it was in the original list, so a client that never saw them does not move them.
 */
function applyElementOrder(merged: unknown[], order: string[], keyOf: (v: unknown) => string | undefined, originalKeys: Array<string | undefined>): unknown[] {
  const orderIndex = new Map<string, number>();
  order.forEach((k, i) => {
    if (!orderIndex.has(k)) orderIndex.set(k, i);
  });
  const originalIndex = new Map<string, number>();
  originalKeys.forEach((k, i) => {
    if (k !== undefined && !originalIndex.has(k)) originalIndex.set(k, i);
  });
  const listed: Array<{ value: unknown; key: string; rank: number }> = [];
  const unlisted: Array<{ value: unknown; key: string | undefined }> = [];
  for (const value of merged) {
    const key = keyOf(value);
    const rank = key === undefined ? undefined : orderIndex.get(key);
    if (key !== undefined && rank !== undefined) listed.push({ value, key, rank });
    else unlisted.push({ value, key });
  }
  listed.sort((a, b) => a.rank - b.rank);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < listed.length && j < unlisted.length) {
    const a = originalIndex.get(listed[i]!.key);
    const b = unlisted[j]!.key === undefined ? undefined : originalIndex.get(unlisted[j]!.key!);
    if (a !== undefined && b !== undefined && b < a) out.push(unlisted[j++]!.value);
    else out.push(listed[i++]!.value);
  }
  while (i < listed.length) out.push(listed[i++]!.value);
  while (j < unlisted.length) out.push(unlisted[j++]!.value);
  return out;
}
