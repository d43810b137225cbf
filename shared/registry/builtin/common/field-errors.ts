// Object walking and field-selector helpers used by the built-in types' strategies. FieldError
// constructors live in shared/api/field-errors.ts, name rules in shared/api/validation.ts.

import { at } from '../../../api/object-path.js';
import type { FieldError } from '../../../api/status.js';
import { duplicate } from '../../../api/field-errors.js';

export type Json = Record<string, unknown>;

export { at };

/** The fields of an ObjectReference that event field selectors expose. */
export const OBJECT_REF_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const;

/** Field-selector getters reading each dotted path as a string ('' when absent, as upstream). */
export function pathSelectors(...paths: string[]): Record<string, (o: unknown) => string> {
  return Object.fromEntries(
    paths.map((p) => [
      p,
      (o: unknown) => {
        const v = at(o, p);
        return v === undefined || v === null ? '' : String(v);
      },
    ]),
  );
}

export function asObject(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Returns the object at `key`, creating it when absent. */
export function ensureObject(parent: Json, key: string): Json {
  const v = asObject(parent[key]);
  if (v) return v;
  const fresh: Json = {};
  parent[key] = fresh;
  return fresh;
}

export function setDefault(target: Json, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

/** Reports every item equal to an earlier one as `field[i]: Duplicate value`. */
export function duplicates(field: string, values: unknown[]): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  values.forEach((v, i) => {
    const k = JSON.stringify(v);
    if (seen.has(k)) errs.push(duplicate(`${field}[${i}]`, v));
    seen.add(k);
  });
  return errs;
}
