// Strategic merge patch, `application/strategic-merge-patch+json` (what kubectl apply, edit and
// patch send): a JSON merge patch whose lists merge according to the type's schema, plus
// directives: `$patch: replace|merge|delete` in maps and list items, `$retainKeys`,
// `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.
// Lists without a schema node merge like upstream merges unknown types: the patch replaces them.

import type { JsonSchema } from '../registry/types.js';
import { malformedPatch, unprocessablePatch } from './errors.js';
import { cloneJson, getOwn, hasOwn, isJsonObject, preview, setOwn, type JsonObject } from './json-value.js';
import { childSchema, itemSchema, listMergeKind, replacesMaps, resolvePatchSchema } from './patch-schema.js';

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
  const merged = mergeMap(isJsonObject(original) ? original : undefined, patch, resolvePatchSchema(schema), '');
  // `$patch: delete` at the top clears the object, as upstream does.
  return merged === DELETED ? {} : merged;
}

function isDirectiveKey(key: string): boolean {
  return (
    key === PatchDirective.Key ||
    key === PatchDirective.RetainKeys ||
    key.startsWith(PatchDirective.DeleteFromPrimitiveList) ||
    key.startsWith(PatchDirective.SetElementOrder)
  );
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

function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: JsonSchema | undefined, path: string): Merged {
  const directive = patchDirective(patch, path);
  if (directive === PatchDirective.Delete) return DELETED;
  if (directive === PatchDirective.Replace) return mergeMap(undefined, withoutDirective(patch), schema, path);

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
      if (orig !== undefined) setOwn(out, key, cloneJson(orig));
      return;
    }
    const pv = patched ? patch[key] : undefined;
    if (patched && pv === null) return;
    const v = mergeValue(orig, pv, childSchema(schema, key), fieldPath(path, key), directives);
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
function mergeValue(orig: unknown, pv: unknown, schema: JsonSchema | undefined, path: string, directives: ListDirectives | undefined): Merged {
  if (pv === undefined) {
    return Array.isArray(orig) ? mergeList(orig, undefined, schema, path, directives) : cloneJson(orig);
  }
  if (isJsonObject(pv)) return mergeMap(isJsonObject(orig) && !replacesMaps(schema) ? orig : undefined, pv, schema, path);
  if (Array.isArray(pv)) return mergeList(Array.isArray(orig) ? orig : undefined, pv, schema, path, directives);
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

function mergeList(orig: unknown[] | undefined, patch: unknown[] | undefined, schema: JsonSchema | undefined, path: string, directives: ListDirectives | undefined): Merged {
  const meta = listMergeKind(schema);
  const items = itemSchema(schema);
  let patchItems = patch ?? [];
  if (patch) {
    const whole = listDirective(patch, path);
    if (whole.directive === PatchDirective.Delete) return DELETED;
    patchItems = whole.items;
    if (whole.directive === PatchDirective.Replace) return patchItems.map((item) => freshItem(item, items, path)).filter((v) => v !== DELETED);
  }

  if (meta.kind === 'replace') {
    // Upstream takes the patch's list as it is; with only directives the original list stays.
    if (patch) return cloneJson(patchItems);
    return cloneJson(removeValues(orig ?? [], directives?.deleteValues));
  }

  if (meta.kind === 'set') {
    if (patchItems.some((v) => typeof v === 'object' && v !== null)) return cloneJson(patchItems);
    const seen = new Set<string>();
    const merged: unknown[] = [];
    for (const v of [...removeValues(orig ?? [], directives?.deleteValues), ...patchItems]) {
      const k = scalarKey(v);
      if (seen.has(k)) continue;
      seen.add(k);
      merged.push(cloneJson(v));
    }
    const order = directives?.order;
    if (!order) return merged;
    if (order.some((v) => typeof v === 'object' && v !== null)) throw malformedPatch(`invalid patch: $setElementOrder for the list of values at ${path} must list values`);
    return applyElementOrder(merged, order.map(scalarKey), scalarKey, (orig ?? []).map(scalarKey));
  }

  return mergeKeyedList(orig ?? [], patchItems, meta.keys, items, path, directives?.order);
}

function freshItem(item: unknown, schema: JsonSchema | undefined, path: string): Merged {
  return isJsonObject(item) ? mergeMap(undefined, item, schema, path) : cloneJson(item);
}

function scalarKey(v: unknown): string {
  return JSON.stringify(v) ?? 'undefined';
}

function removeValues(list: unknown[], values: unknown[] | undefined): unknown[] {
  if (!values || values.length === 0) return list;
  const drop = new Set(values.map(scalarKey));
  // Every copy goes: a set that somehow holds duplicates loses them all.
  return list.filter((v) => !drop.has(scalarKey(v)));
}

/** Identity of an item of a keyed list; `undefined` when the item carries none of the keys. */
function itemKey(item: unknown, keys: string[]): string | undefined {
  if (!isJsonObject(item)) return undefined;
  const values = keys.map((k) => getOwn(item, k));
  if (values.every((v) => v === undefined)) return undefined;
  return JSON.stringify(values.map((v) => (v === undefined ? null : v)));
}

function mergeKeyedList(orig: unknown[], patch: unknown[], keys: string[], schema: JsonSchema | undefined, path: string, order: unknown[] | undefined): unknown[] {
  const keyList = keys.join(', ');
  // Items the server holds are kept in place; a patch item updates the first item with its key.
  // Entries are indexed by key so a long list costs one pass, not one scan per patch item.
  type Entry = { key: string | undefined; value: unknown; deleted?: boolean };
  const entries: Entry[] = orig.map((v) => ({ key: itemKey(v, keys), value: cloneJson(v) }));
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
    const key = itemKey(item, keys);
    if (key === undefined) throw malformedPatch(`invalid patch: item ${i} of ${path} does not contain the merge key ${keyList}`);
    const matches = byKey.get(key);
    const existing = matches?.[0];
    const merged = mergeMap(isJsonObject(existing?.value) ? (existing.value as JsonObject) : undefined, item, schema, `${path}[${i}]`);
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
    const k = itemKey(o, keys);
    if (k === undefined) throw malformedPatch(`invalid patch: item ${i} of $setElementOrder/${path.split('.').pop()} must be an object with ${keyList}`);
    return k;
  });
  return applyElementOrder(values, orderKeys, (v) => itemKey(v, keys), orig.map((v) => itemKey(v, keys)));
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
