// Reads strategic-merge metadata out of a type's JSON schema: which child schema a member or list
// item has, and how a list merges. Kept apart from the merge itself so the rules for finding
// markers (properties, items, additionalProperties, allOf/anyOf/oneOf branches, subtrees that
// preserve unknown fields) live in one place.

import { getOwn, isJsonObject } from './json-value.js';
import type { JsonSchema } from '../api/types.js';

/** How a list is combined with a patch's list. */
export type ListMergeKind =
  /** Items are objects matched by the values of `keys`. */
  | { kind: 'map'; keys: string[] }
  /** Items are scalars; the result is the de-duplicated union. */
  | { kind: 'set' }
  /** The patch's list replaces the original (RFC 7386 behaviour, and upstream's for unknown types). */
  | { kind: 'replace' };

const BRANCHES = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * ObjectMeta's strategic-merge markers (finalizers merge as a set, ownerReferences by uid). Used
 * when an object schema does not describe `metadata`, since registered versions describe only
 * the type's own fields and the registry adds metadata.
 */
export const OBJECT_META_PATCH_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
    ownerReferences: {
      type: 'array',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'x-kubernetes-list-type': 'atomic' },
  },
  'x-kubernetes-preserve-unknown-fields': true,
};

/** The schema a strategic merge of a whole object walks: the caller's, with metadata filled in. */
export function resolvePatchSchema(objectSchema: JsonSchema | undefined): JsonSchema | undefined {
  if (!objectSchema) return undefined;
  if (childSchema(objectSchema, 'metadata')) return objectSchema;
  const props = getOwn(objectSchema, 'properties');
  return { ...objectSchema, properties: { ...(isJsonObject(props) ? props : {}), metadata: OBJECT_META_PATCH_SCHEMA } };
}

/**
 * The schema of member `key` of an object described by `schema`; `undefined` when nothing
 * describes it (no schema, or a member only admitted by `x-kubernetes-preserve-unknown-fields`),
 * which makes everything below it merge like an unknown type.
 */
export function childSchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  if (!schema) return undefined;
  const props = getOwn(schema, 'properties');
  if (isJsonObject(props)) {
    const p = getOwn(props, key);
    if (isJsonObject(p)) return p;
  }
  for (const b of branches(schema)) {
    const found = childSchema(b, key);
    if (found) return found;
  }
  const extra = getOwn(schema, 'additionalProperties');
  return isJsonObject(extra) ? extra : undefined;
}

/** The schema of the items of a list described by `schema`. */
export function itemSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  const items = getOwn(schema, 'items');
  if (isJsonObject(items)) return items;
  for (const b of branches(schema)) {
    const found = itemSchema(b);
    if (found) return found;
  }
  return undefined;
}

/**
 * How the list described by `schema` merges. A declared patch merge key wins over list-map-keys
 * because that is what clients put in `$setElementOrder` and list items (upstream matches on it
 * alone); list-map-keys cover types that only declare the apply list type.
 */
export function listMergeKind(schema: JsonSchema | undefined): ListMergeKind {
  if (!schema) return { kind: 'replace' };
  const strategy = getOwn(schema, 'x-kubernetes-patch-strategy');
  const merge = typeof strategy === 'string' && strategy.split(',').some((s) => s.trim() === 'merge');
  const mergeKey = getOwn(schema, 'x-kubernetes-patch-merge-key');
  if (merge && typeof mergeKey === 'string' && mergeKey !== '') return { kind: 'map', keys: [mergeKey] };
  if (getOwn(schema, 'x-kubernetes-list-type') === 'map') {
    const keys = getOwn(schema, 'x-kubernetes-list-map-keys');
    if (Array.isArray(keys) && keys.length > 0 && keys.every((k) => typeof k === 'string')) return { kind: 'map', keys: keys as string[] };
  }
  if (merge) return { kind: 'set' };
  return { kind: 'replace' };
}

/** A map declared with patch strategy `replace` is replaced whole instead of merged. */
export function replacesMaps(schema: JsonSchema | undefined): boolean {
  const strategy = schema ? getOwn(schema, 'x-kubernetes-patch-strategy') : undefined;
  return typeof strategy === 'string' && strategy.split(',').some((s) => s.trim() === 'replace');
}

function branches(schema: JsonSchema): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const name of BRANCHES) {
    const list = getOwn(schema, name);
    if (Array.isArray(list)) for (const b of list) if (isJsonObject(b)) out.push(b);
  }
  return out;
}
