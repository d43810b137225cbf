import type { JsonSchema } from '../../../api/types.js';
// Small builders for the JSON schemas of built-in types. Schemas are plain data; these helpers
// only keep hundreds of field declarations short and the x-kubernetes markers consistent.
// `described` (schema-docs) attaches field descriptions where a schema is defined.

export { described, docsOf, type FieldDocs } from '../../schema-docs.js';

export type Props = Record<string, JsonSchema>;

export const str: JsonSchema = { type: 'string' };
export const bool: JsonSchema = { type: 'boolean' };
export const int32: JsonSchema = { type: 'integer', format: 'int32' };
export const int64: JsonSchema = { type: 'integer', format: 'int64' };
export const num: JsonSchema = { type: 'number', format: 'double' };
/** metav1.Time and metav1.MicroTime: RFC 3339 strings. */
export const time: JsonSchema = { type: 'string', format: 'date-time' };
/** []byte fields travel as base64 strings in JSON. */
export const bytes: JsonSchema = { type: 'string', format: 'byte' };
export const strMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
export const bytesMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string', format: 'byte' } };
export const intOrString: JsonSchema = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
/** resource.Quantity: clients send "500m", "1Gi" or bare numbers. */
export const quantity: JsonSchema = {
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'number' }, { type: 'string', pattern: '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+|[numkMGTPE]|[KMGTPE]i)?$' }],
};
export const quantityMap: JsonSchema = { type: 'object', additionalProperties: quantity };
/** A value the API leaves free-form (runtime.RawExtension and the like). */
export const anyValue: JsonSchema = { 'x-kubernetes-preserve-unknown-fields': true };

export function strEnum(...values: string[]): JsonSchema {
  return { type: 'string', enum: values };
}

export function int32Range(minimum: number, maximum: number): JsonSchema {
  return { type: 'integer', format: 'int32', minimum, maximum };
}

/** A fully modelled object: unknown fields are flagged/pruned by the registry. */
export function obj(properties: Props, required?: string[], extra?: JsonSchema): JsonSchema {
  const s: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required?.length) s.required = required;
  return extra ? { ...s, ...extra } : s;
}

/** A partly modelled object: the listed fields are checked, anything else is kept as sent. */
export function partial(properties: Props, required?: string[]): JsonSchema {
  const s: JsonSchema = { type: 'object', properties, 'x-kubernetes-preserve-unknown-fields': true };
  if (required?.length) s.required = required;
  return s;
}

export function arr(items: JsonSchema, extra?: JsonSchema): JsonSchema {
  return { type: 'array', items, ...extra };
}

/** An atomic list (replaced as a whole by merges and apply). */
export function atomicList(items: JsonSchema): JsonSchema {
  return { type: 'array', items, 'x-kubernetes-list-type': 'atomic' };
}

/** A list of unique scalars. */
export function setList(items: JsonSchema): JsonSchema {
  return { type: 'array', items, 'x-kubernetes-list-type': 'set' };
}

/**
 * A list keyed by some of its items' fields: strategic merge patch merges by the first key and
 * server-side apply tracks items by all of them.
 */
export function mapList(items: JsonSchema, keys: string[], mergeKey = keys[0]!): JsonSchema {
  return {
    type: 'array',
    items,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': keys,
    'x-kubernetes-patch-merge-key': mergeKey,
    'x-kubernetes-patch-strategy': 'merge',
  };
}

/** A list with a strategic-merge key but no apply list type (as several core lists are). */
export function mergeList(items: JsonSchema, mergeKey: string): JsonSchema {
  return { type: 'array', items, 'x-kubernetes-patch-merge-key': mergeKey, 'x-kubernetes-patch-strategy': 'merge' };
}

/** Lists of strings merged by value under strategic merge patch (finalizers and the like). */
export function mergeSet(items: JsonSchema = str): JsonSchema {
  return { type: 'array', items, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' };
}

export function describe(s: JsonSchema, description: string): JsonSchema {
  return { ...s, description };
}
