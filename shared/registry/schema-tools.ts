// Schema machinery behind the registry: a "shape" tree compiled once per served version drives
// unknown-field detection, pruning, schema defaults and the translation of ajv's JSON pointers into
// upstream field paths; a transformed copy of each schema is what ajv compiles; ajv's errors are
// mapped to FieldErrors worded like the upstream API server's.
// The parts: schema-shape (the shape tree and its walkers), ajv-errors (ajv's errors as
// FieldErrors); this module builds the schemas ajv compiles.

import type { JsonSchema } from '../api/types.js';
import { isPlainObject, type Json } from './schema-shape.js';

export { ShapeCompiler, applySchemaDefaults, findUnknownFields, hasUnsetNulls, pointerToFieldPath, pruneUnknownFields, valueAtPointer, type ShapeNode } from './schema-shape.js';
export { dedupeFieldErrors, mapAjvErrors } from './ajv-errors.js';

// ---- the ajv side -------------------------------------------------------------------------------

const SUB_SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs'] as const;
const SUB_SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const SUB_SCHEMAS = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'] as const;

function addNullType(s: JsonSchema): void {
  if (typeof s.type === 'string') s.type = s.type === 'null' ? 'null' : [s.type, 'null'];
  else if (Array.isArray(s.type)) s.type = s.type.includes('null') ? s.type : [...s.type, 'null'];
  else {
    for (const key of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(s[key])) s[key] = [...(s[key] as unknown[]), { type: 'null' }];
    }
  }
  if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
}

function forEachSubSchema(schema: JsonSchema, fn: (sub: JsonSchema) => void): void {
  for (const [k, v] of Object.entries(schema)) {
    if ((SUB_SCHEMA_MAPS as readonly string[]).includes(k) && isPlainObject(v)) {
      for (const pv of Object.values(v)) if (isPlainObject(pv)) fn(pv);
    } else if (((SUB_SCHEMA_LISTS as readonly string[]).includes(k) || k === 'items') && Array.isArray(v)) {
      for (const b of v) if (isPlainObject(b)) fn(b);
    } else if ((SUB_SCHEMAS as readonly string[]).includes(k) && isPlainObject(v)) {
      fn(v);
    }
  }
}

function hasSubSchemas(schema: JsonSchema): boolean {
  let found = false;
  forEachSubSchema(schema, () => (found = true));
  return found;
}

/**
 * Builds the copies of schemas that ajv compiles. Sub-schemas shared between places (a pod spec
 * inside every workload, a container inside three lists, probes, selectors) are hoisted into
 * separately registered schemas reached by `$ref`, so ajv generates their code once instead of
 * once per occurrence: for the built-in types that is the difference between seconds and
 * milliseconds at boot. Other differences from the source, each for a reason:
 *  - `additionalProperties: false` is dropped: unknown fields are the business of fieldValidation
 *    (reported or pruned before validation), never a 422.
 *  - `nullable: true` becomes a `null` type, so only standard keywords reach ajv.
 *  - `x-kubernetes-int-or-string` without its own type/anyOf gets integer-or-string.
 *  - `default` is removed: ajv must not fill anything in.
 *  - `description` is removed: documentation (schema-docs) must cost validation nothing.
 *  - An `integer` without a format gets `int64` (what upstream decodes it into).
 */
export class AjvSchemaBuilder {
  private readonly ids = new WeakMap<JsonSchema, string>();
  private next = 0;

  constructor(private readonly idPrefix = 'registry:shared/') {}

  /**
   * Finds the sub-schemas the roots share and returns the new ones, ready for `ajv.addSchema`
   * (each with its `$id`). Call before `build` for these roots; may be called again with more.
   */
  share(roots: readonly JsonSchema[]): JsonSchema[] {
    // References from distinct parents: a node reached twice is worth compiling on its own.
    const refs = new Map<JsonSchema, number>();
    const visited = new Set<JsonSchema>();
    const visit = (node: JsonSchema): void => {
      if (visited.has(node)) return;
      visited.add(node);
      forEachSubSchema(node, (sub) => {
        refs.set(sub, (refs.get(sub) ?? 0) + 1);
        visit(sub);
      });
    };
    for (const r of roots) {
      refs.set(r, (refs.get(r) ?? 0) + 1);
      visit(r);
    }
    const fresh: JsonSchema[] = [];
    for (const [node, count] of refs) {
      if (count >= 2 && !this.ids.has(node) && hasSubSchemas(node)) {
        this.ids.set(node, `${this.idPrefix}${this.next++}`);
        fresh.push(node);
      }
    }
    return fresh.map((node) => ({ ...this.transform(node, true), $id: this.ids.get(node)! }));
  }

  /** The ajv copy of one root schema; sub-schemas not shared are inlined. */
  build(root: JsonSchema): JsonSchema {
    return this.transform(root, true);
  }

  private transform(schema: JsonSchema, definition: boolean): JsonSchema {
    const id = this.ids.get(schema);
    if (id !== undefined && !definition) return { $ref: id };
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'default' || k === 'nullable' || k === 'example' || k === '$id' || k === 'description') continue;
      if (k === 'additionalProperties' && v === false) continue;
      if ((SUB_SCHEMA_MAPS as readonly string[]).includes(k) && isPlainObject(v)) {
        const mapped: Json = {};
        for (const [pk, pv] of Object.entries(v)) if (isPlainObject(pv)) mapped[pk] = this.transform(pv, false);
        out[k] = mapped;
      } else if (((SUB_SCHEMA_LISTS as readonly string[]).includes(k) || k === 'items') && Array.isArray(v)) {
        out[k] = v.map((b) => (isPlainObject(b) ? this.transform(b, false) : b));
      } else if ((SUB_SCHEMAS as readonly string[]).includes(k) && isPlainObject(v)) {
        out[k] = this.transform(v, false);
      } else {
        out[k] = v;
      }
    }
    if (schema['x-kubernetes-int-or-string'] === true && out.type === undefined && out.anyOf === undefined && out.oneOf === undefined) {
      out.anyOf = [{ type: 'integer' }, { type: 'string' }];
    }
    // An integer without a format is an int64 upstream; ajv's plain `integer` would take 2^60.
    if (out.type === 'integer' && out.format === undefined) out.format = 'int64';
    if (schema.nullable === true) addNullType(out);
    return out;
  }
}
