// Reading the untyped JSON of admitted objects: anything of the wrong shape reads as absent.

export type Json = Record<string, unknown>;

export const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/** The objects of a list (other items skipped). */
export const records = (v: unknown): Json[] => (Array.isArray(v) ? v.map(rec).filter((x): x is Json => x !== undefined) : []);

/** `parent[key]` as an object, created when absent. */
export function objectAt(parent: Json, key: string): Json {
  const held = rec(parent[key]);
  if (held) return held;
  const made: Json = {};
  parent[key] = made;
  return made;
}

/** `parent[key]` as a list, created when absent. */
export function listAt(parent: Json, key: string): unknown[] {
  const held = parent[key];
  if (Array.isArray(held)) return held;
  const made: unknown[] = [];
  parent[key] = made;
  return made;
}
