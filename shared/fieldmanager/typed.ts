// Objects seen through their schema as server-side apply sees them: which paths an object sets, the
// value at a path, merging an applied configuration into the live object, and removing a path.
// Topology comes from the schema markers: a list is a map keyed by `x-kubernetes-list-map-keys`
// (or its patch merge key), a set (`list-type: set`, or a merge strategy on scalars) or atomic;
// `x-kubernetes-map-type: atomic` makes a struct or map one value; int-or-string is a scalar.
// Without a schema, objects are structs and lists are atomic.

import type { JsonSchema } from '../api/types.js';
import { childSchema, itemSchema, listMergeKind } from '../patch/patch-schema.js';
import { jsonEqual } from '../patch/json-value.js';
import { FieldSet, type Path, type PathElement } from './fieldset.js';

type Json = unknown;
type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function atomic(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  return schema['x-kubernetes-map-type'] === 'atomic' || schema['x-kubernetes-int-or-string'] === true;
}

type ListKind = { kind: 'atomic' } | { kind: 'set' } | { kind: 'map'; keys: string[] };

function listKind(schema: JsonSchema | undefined, items: readonly unknown[]): ListKind {
  if (schema?.['x-kubernetes-list-type'] === 'atomic') return { kind: 'atomic' };
  const m = listMergeKind(schema);
  if (m.kind === 'map') return items.every(isObject) ? m : { kind: 'atomic' };
  if (m.kind === 'set' || schema?.['x-kubernetes-list-type'] === 'set') return items.every((i) => !isObject(i) && !Array.isArray(i)) ? { kind: 'set' } : { kind: 'atomic' };
  return { kind: 'atomic' };
}

/** A struct has declared properties; a map only `additionalProperties`. Map entries are members themselves. */
function isMapType(schema: JsonSchema | undefined): boolean {
  return !!schema && !schema.properties && isObject(schema.additionalProperties);
}

function keyElement(item: JsonObject, keys: string[]): PathElement {
  const k: JsonObject = {};
  for (const name of keys) if (item[name] !== undefined) k[name] = item[name];
  return `k:${JSON.stringify(k)}`;
}

function itemElement(item: Json, kind: ListKind, index: number): PathElement {
  if (kind.kind === 'map') return keyElement(item as JsonObject, kind.keys);
  if (kind.kind === 'set') return `v:${JSON.stringify(item)}`;
  return `i:${index}`;
}

/** Paths a walk never reports (identity and server-written metadata, never owned); the path given is the walk's own, read it but do not keep it. */
export type Ignore = (path: Path) => boolean;

/**
 * The paths `value` sets: leaves, atomic values, empty containers, list items and map entries.
 * With `maps`, also the paths of the granular maps it holds, there: an update records a map that
 * appears or goes as a change itself, as upstream's does (the `.` of `f:data` after a create).
 */
export function toFieldSet(value: Json, schema: JsonSchema | undefined, ignore: Ignore = () => false, maps?: FieldSet): FieldSet {
  const set = new FieldSet();
  // One path, extended and cut back as the walk goes (every user of it reads it at once).
  const path: PathElement[] = [];
  const walk = (v: Json, s: JsonSchema | undefined, node: FieldSet) => {
    if (ignore(path)) return;
    if (isObject(v) && !atomic(s)) {
      const keys = Object.keys(v);
      if (keys.length === 0) node.member = true;
      const map = isMapType(s);
      if (map) maps?.insert(path);
      for (const k of keys) {
        const child = v[k];
        const e = `f:${k}`;
        path.push(e);
        if (!ignore(path)) {
          const n = node.child(e);
          if (map || child === null) n.member = true;
          if (child !== null) walk(child, childSchema(s, k), n);
        }
        path.pop();
      }
      return;
    }
    if (Array.isArray(v)) {
      const kind = listKind(s, v);
      if (kind.kind === 'atomic' || v.length === 0) {
        node.member = true;
        return;
      }
      const items = itemSchema(s);
      v.forEach((item, i) => {
        const e = itemElement(item, kind, i);
        const n = node.child(e);
        n.member = true;
        if (kind.kind !== 'map') return;
        path.push(e);
        walk(item, items, n);
        path.pop();
      });
      return;
    }
    node.member = true;
  };
  walk(value, schema, set);
  set.member = false;
  return set;
}

function findItem(list: unknown[], e: PathElement): number {
  const body = e.slice(2);
  switch (e[0]) {
    case 'k': {
      const keys = JSON.parse(body) as JsonObject;
      return list.findIndex((item) => isObject(item) && Object.entries(keys).every(([k, v]) => jsonEqual(item[k], v)));
    }
    case 'v': {
      const want = JSON.parse(body);
      return list.findIndex((item) => jsonEqual(item, want));
    }
    default:
      return Number(body) < list.length ? Number(body) : -1;
  }
}

/** The value one element below `v` (a field, map entry or list item), undefined when `v` has nothing there. */
export function valueBelow(v: Json, e: PathElement): Json {
  if (e.startsWith('f:')) {
    const name = e.slice(2);
    return isObject(v) && Object.hasOwn(v, name) ? v[name] : undefined;
  }
  if (!Array.isArray(v)) return undefined;
  const i = findItem(v, e);
  return i < 0 ? undefined : v[i];
}

/** The value at `path`, undefined when the object has nothing there. */
export function valueAt(value: Json, path: Path): Json {
  let v: Json = value;
  for (const e of path) {
    if (v === undefined) return undefined;
    v = valueBelow(v, e);
  }
  return v;
}

/** Removes what is at `path` (a field, a map entry, a list item); true when something was there. */
export function removeAt(value: Json, path: Path): boolean {
  if (path.length === 0) return false;
  const parent = valueAt(value, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (last.startsWith('f:')) {
    if (!isObject(parent) || !Object.hasOwn(parent, last.slice(2))) return false;
    delete parent[last.slice(2)];
    return true;
  }
  if (!Array.isArray(parent)) return false;
  const i = findItem(parent, last);
  if (i < 0) return false;
  parent.splice(i, 1);
  return true;
}

/**
 * The live object with an applied configuration merged in: fields the configuration sets take its
 * values, keyed list items merge by key (new ones appended), sets gain the applied values, atomic
 * values are replaced whole. A null in the configuration removes the field.
 */
export function merge(live: Json, applied: Json, schema: JsonSchema | undefined): Json {
  if (applied === undefined) return live;
  if (isObject(applied) && !atomic(schema)) {
    const out: JsonObject = isObject(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) delete out[k];
      else out[k] = merge(out[k], v, childSchema(schema, k));
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const kind = listKind(schema, [...applied, ...live]);
    if (kind.kind === 'set') return [...live, ...applied.filter((a) => !live.some((l) => jsonEqual(l, a)))];
    if (kind.kind === 'map') {
      const items = itemSchema(schema);
      const out = [...live];
      for (const a of applied) {
        const i = findItem(out, keyElement(a as JsonObject, kind.keys));
        if (i >= 0) out[i] = merge(out[i], a, items);
        else out.push(a);
      }
      return out;
    }
  }
  return applied;
}
