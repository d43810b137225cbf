// A CustomResourceDefinition version's `selectableFields` as field selectors: each `jsonPath`
// (`.spec.color`) becomes the selector key without its leading dot (`spec.color`), read from an
// object as upstream reads it — a string as it is, an integer or boolean as its text, anything
// absent (or of another type) as "". Validation already made each path a plain dotted path to a
// string, integer or boolean field outside metadata, so reading needs no JSONPath engine.

import type { ApiObject } from '../../api/types.js';

/** A field selector key and how to read its value from an object. */
export type FieldGetters = Record<string, (obj: ApiObject) => string>;

/** The string a field selector compares with the value at `segments`. */
export function selectableValue(obj: unknown, segments: readonly string[]): string {
  let node: unknown = obj;
  for (const s of segments) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, s)) return '';
    node = (node as Record<string, unknown>)[s];
  }
  if (typeof node === 'string') return node;
  if (typeof node === 'boolean') return node ? 'true' : 'false';
  if (typeof node === 'number' && Number.isInteger(node)) return String(node);
  return '';
}

/** The field selector key of a selectable field's path (`.spec.color` → `spec.color`). */
export function selectableFieldKey(jsonPath: string): string {
  return jsonPath.startsWith('.') ? jsonPath.slice(1) : jsonPath;
}

/**
 * The getters of a version's selectable fields, in the order declared; an empty set for a version
 * without any (so it refuses every key beyond metadata.name and metadata.namespace).
 */
export function selectableFieldGetters(fields: ReadonlyArray<{ jsonPath?: unknown }> | undefined): FieldGetters {
  const getters: FieldGetters = {};
  for (const f of fields ?? []) {
    if (typeof f.jsonPath !== 'string' || f.jsonPath === '') continue;
    const key = selectableFieldKey(f.jsonPath);
    const segments = key.split('.');
    getters[key] = (obj) => selectableValue(obj, segments);
  }
  return getters;
}
