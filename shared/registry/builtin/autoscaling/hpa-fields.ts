// What every HPA conversion writes and reads: objects in the field order Go writes them, and the
// JSON the round-trip annotations hold.

import { asObject, type Json } from '../common/field-errors.js';

/** An object with the defined entries only, in the order given (the order Go writes them). */
export function fields(entries: Array<[string, unknown]>): Json {
  const out: Json = {};
  for (const [k, v] of entries) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON list of objects from an annotation; undefined when malformed (upstream ignores those). */
export function parseObjectList(text: unknown): Json[] | undefined {
  const v = parseJson(text);
  return Array.isArray(v) && v.every((x) => asObject(x)) ? (v as Json[]) : undefined;
}
