// Schema machinery behind the registry: a "shape" tree compiled once per served version drives
// unknown-field detection, pruning, schema defaults and the translation of ajv's JSON pointers into
// upstream field paths; a transformed copy of each schema is what ajv compiles; ajv's errors are
// mapped to FieldErrors worded like the upstream API server's.

import type { ErrorObject } from 'ajv';
import type { FieldError } from '../api/status.js';
import { duplicate, forbidden, invalidValue, required, tooLong, tooMany, unsupported } from '../api/field-errors.js';
import type { JsonSchema } from '../api/types.js';
import { cloneJson } from '../patch/json-value.js';

/**
 * What the walkers need to know about one schema node.
 *  - `object`: modelled properties; unknown keys are unknown fields unless `preserve` or `values`.
 *  - `array`: items share one shape.
 *  - `leaf`: a scalar (or int-or-string): nothing below it to check.
 *  - `any`: free-form (no model, or preserve-unknown-fields without properties): never pruned.
 */
export interface ShapeNode {
  kind: 'object' | 'array' | 'leaf' | 'any';
  props: Map<string, ShapeNode>;
  /** Shape of keys not in `props` (a map, or an object with typed extra keys). */
  values?: ShapeNode;
  items?: ShapeNode;
  /** `x-kubernetes-preserve-unknown-fields`: unknown keys at this level are kept and not reported. */
  preserve: boolean;
  /** `null` is a meaningful value here (otherwise a null is the same as absent and is pruned). */
  nullable: boolean;
  /** Schema `default`s of direct properties. */
  defaults: Array<[string, unknown]>;
  /** Whether any node below (or this one) has defaults, so defaulting can skip whole subtrees. */
  hasDefaults: boolean;
}

type Json = Record<string, unknown>;

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typesOf(s: JsonSchema): string[] {
  const t = s.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return [];
}

// allOf/anyOf/oneOf branches contribute properties to the node they sit on.
function branchesOf(s: JsonSchema): JsonSchema[] {
  const out: JsonSchema[] = [s];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) for (const b of list) if (isPlainObject(b)) out.push(...branchesOf(b));
  }
  return out;
}

const LEAF: ShapeNode = Object.freeze({
  kind: 'leaf',
  props: new Map(),
  preserve: false,
  nullable: false,
  defaults: [],
  hasDefaults: false,
}) as ShapeNode;

/** Compiles schemas into shape trees, sharing work between schema objects reused across types. */
export class ShapeCompiler {
  private readonly cache = new WeakMap<JsonSchema, ShapeNode>();

  compile(schema: JsonSchema): ShapeNode {
    const hit = this.cache.get(schema);
    if (hit) return hit;
    const node: ShapeNode = { kind: 'any', props: new Map(), preserve: false, nullable: false, defaults: [], hasDefaults: false };
    // Registered before recursing so a self-referencing schema terminates.
    this.cache.set(schema, node);
    this.fill(node, schema);
    return node;
  }

  private fill(node: ShapeNode, schema: JsonSchema): void {
    const branches = branchesOf(schema);
    const types = new Set(branches.flatMap(typesOf));
    node.nullable = schema.nullable === true || types.has('null');
    node.preserve = branches.some((b) => b['x-kubernetes-preserve-unknown-fields'] === true);

    if (schema['x-kubernetes-int-or-string'] === true) {
      node.kind = 'leaf';
      return;
    }

    const propSchemas = new Map<string, JsonSchema[]>();
    let additional: JsonSchema | boolean | undefined;
    let items: JsonSchema | undefined;
    for (const b of branches) {
      if (isPlainObject(b.properties)) {
        for (const [k, v] of Object.entries(b.properties)) {
          if (!isPlainObject(v)) continue;
          const list = propSchemas.get(k) ?? [];
          list.push(v);
          propSchemas.set(k, list);
        }
      }
      const ap = b.additionalProperties;
      if (isPlainObject(ap)) additional = ap;
      else if (typeof ap === 'boolean' && additional === undefined) additional = ap;
      if (isPlainObject(b.items) && items === undefined) items = b.items;
    }

    const embedded = branches.some((b) => b['x-kubernetes-embedded-resource'] === true);
    const looksObject = types.has('object') || propSchemas.size > 0 || additional !== undefined || embedded;
    const looksArray = types.has('array') || items !== undefined;

    if (looksObject && !looksArray) {
      if (propSchemas.size === 0 && (additional === undefined || additional === true) && !embedded) {
        // Nothing modelled: treat as free-form rather than as an object that must be empty, so a
        // loosely declared field can never lose data to pruning.
        node.kind = 'any';
        node.preserve = true;
        return;
      }
      node.kind = 'object';
      if (additional === true) node.preserve = true;
      else if (isPlainObject(additional)) node.values = this.compile(additional);
      if (embedded) {
        // An embedded object carries its own apiVersion/kind/metadata even if undeclared.
        for (const k of ['apiVersion', 'kind']) if (!propSchemas.has(k)) node.props.set(k, LEAF);
        if (!propSchemas.has('metadata')) node.props.set('metadata', ANY);
      }
      for (const [k, list] of propSchemas) {
        const child = list.length === 1 ? this.compile(list[0]!) : this.compile({ allOf: list });
        node.props.set(k, child);
        const dflt = list.find((s) => s.default !== undefined)?.default;
        if (dflt !== undefined) node.defaults.push([k, dflt]);
      }
      node.hasDefaults = node.defaults.length > 0 || [...node.props.values()].some((c) => c.hasDefaults) || Boolean(node.values?.hasDefaults);
      return;
    }
    if (looksArray && !looksObject) {
      node.kind = 'array';
      node.items = items ? this.compile(items) : ANY;
      node.hasDefaults = node.items.hasDefaults;
      return;
    }
    if (looksArray || types.size > 0 || schema.enum !== undefined || schema.format !== undefined) {
      // Either a scalar, or a union of object and array that we cannot walk safely.
      node.kind = types.size > 0 && [...types].every((t) => t !== 'object' && t !== 'array') ? 'leaf' : 'any';
      if (node.kind === 'any') node.preserve = true;
      return;
    }
    node.kind = 'any';
    node.preserve = true;
  }
}

const ANY: ShapeNode = Object.freeze({
  kind: 'any',
  props: new Map(),
  preserve: true,
  nullable: true,
  defaults: [],
  hasDefaults: false,
}) as ShapeNode;

function keySegment(k: string): string {
  return `[${k}]`;
}

/** Paths of fields in `value` that the shape does not model, as `.spec.foo` / `.spec.items[0].bar`. */
export function findUnknownFields(shape: ShapeNode, value: unknown, path = '', out: string[] = []): string[] {
  if (shape.kind === 'object' && isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const child = shape.props.get(k);
      if (child) findUnknownFields(child, v, `${path}.${k}`, out);
      else if (shape.values) findUnknownFields(shape.values, v, `${path}${keySegment(k)}`, out);
      else if (!shape.preserve) out.push(`${path}.${k}`);
    }
  } else if (shape.kind === 'array' && Array.isArray(value) && shape.items) {
    const items = shape.items;
    value.forEach((v, i) => findUnknownFields(items, v, `${path}[${i}]`, out));
  }
  return out;
}

/**
 * Drops, in place, fields the shape does not model, and nulls where null only means "unset"
 * (Go clients send `null` for empty optional fields). Modelled data is never touched.
 */
export function pruneUnknownFields(shape: ShapeNode, value: unknown): void {
  if (shape.kind === 'object' && isPlainObject(value)) {
    for (const k of Object.keys(value)) {
      const v = value[k];
      const child = shape.props.get(k) ?? shape.values;
      if (child) {
        if (v === null && !child.nullable) delete value[k];
        else pruneUnknownFields(child, v);
      } else if (!shape.preserve) {
        delete value[k];
      }
    }
  } else if (shape.kind === 'array' && Array.isArray(value) && shape.items) {
    for (const v of value) pruneUnknownFields(shape.items, v);
  }
}

/** Fills schema `default`s of absent properties, in place, at every level present in `value`. */
export function applySchemaDefaults(shape: ShapeNode, value: unknown): void {
  if (!shape.hasDefaults) return;
  if (shape.kind === 'object' && isPlainObject(value)) {
    for (const [k, d] of shape.defaults) {
      if (value[k] === undefined || value[k] === null) value[k] = cloneJson(d);
    }
    for (const [k, v] of Object.entries(value)) {
      const child = shape.props.get(k) ?? shape.values;
      if (child) applySchemaDefaults(child, v);
    }
  } else if (shape.kind === 'array' && Array.isArray(value) && shape.items) {
    for (const v of value) applySchemaDefaults(shape.items, v);
  }
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `/spec/containers/0/image` → `spec.containers[0].image`; map keys become `[key]`. */
export function pointerToFieldPath(shape: ShapeNode | undefined, pointer: string, extra?: string): string {
  let node = shape;
  let out = '';
  const segs = decodePointer(pointer);
  if (extra !== undefined) segs.push(extra);
  for (const seg of segs) {
    if (node?.kind === 'array') {
      out += `[${seg}]`;
      node = node.items;
    } else if (node?.kind === 'object' && node.props.has(seg)) {
      out += `.${seg}`;
      node = node.props.get(seg);
    } else if (node?.kind === 'object' && node.values) {
      out += keySegment(seg);
      node = node.values;
    } else if (/^\d+$/.test(seg) && node === undefined) {
      out += `[${seg}]`;
    } else {
      out += `.${seg}`;
      node = undefined;
    }
  }
  return out.startsWith('.') ? out.slice(1) : out;
}

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
      if (k === 'default' || k === 'nullable' || k === 'example' || k === '$id') continue;
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

/** Whether `value` holds a null where the schema gives null no meaning (Go decoding: unset). */
export function hasUnsetNulls(shape: ShapeNode, value: unknown): boolean {
  if (shape.kind === 'object' && isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const child = shape.props.get(k) ?? shape.values;
      if (!child) continue;
      if (v === null ? !child.nullable : hasUnsetNulls(child, v)) return true;
    }
  } else if (shape.kind === 'array' && Array.isArray(value) && shape.items) {
    for (const v of value) if (hasUnsetNulls(shape.items, v)) return true;
  }
  return false;
}

/** The value at a JSON pointer (ajv's instancePath) inside `root`. */
export function valueAtPointer(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const seg of decodePointer(pointer)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[seg];
  }
  return cur;
}

function describeTypes(t: unknown): string {
  const list = (Array.isArray(t) ? t : [t]).filter((x) => x !== 'null').map(String);
  return list.join(' or ');
}

function reportable(v: unknown): unknown {
  return v !== null && typeof v === 'object' ? undefined : v;
}

// Objects and arrays would flood the message; their JSON type says enough.
function jsonTypeOrValue(v: unknown): unknown {
  if (Array.isArray(v)) return 'array';
  if (v !== null && typeof v === 'object') return 'object';
  return v;
}

const INTEGER_FORMATS: ReadonlyMap<string, string> = new Map([
  ['int32', `must be an integer between ${-(2 ** 31)} and ${2 ** 31 - 1} (format int32)`],
  ['int64', `must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (format int64; larger integers cannot be represented exactly)`],
]);

/** One ajv error (not an anyOf/oneOf umbrella) as a FieldError. */
function mapOne(e: ErrorObject, shape: ShapeNode, root: unknown): FieldError | undefined {
  const p = e.params as Record<string, unknown>;
  const field = pointerToFieldPath(shape, e.instancePath);
  const data = valueAtPointer(root, e.instancePath);
  switch (e.keyword) {
    case 'required':
      return required(pointerToFieldPath(shape, e.instancePath, String(p.missingProperty)));
    case 'type':
      return invalidValue(field, jsonTypeOrValue(data), `must be of type ${describeTypes(p.type)}`);
    case 'enum':
      return unsupported(field, data, p.allowedValues as unknown[]);
    case 'const':
      return unsupported(field, data, [p.allowedValue]);
    case 'format':
      return invalidValue(field, reportable(data), INTEGER_FORMATS.get(String(p.format)) ?? `must be of format ${String(p.format)}`);
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const words: Record<string, string> = {
        minimum: 'greater than or equal to',
        exclusiveMinimum: 'greater than',
        maximum: 'less than or equal to',
        exclusiveMaximum: 'less than',
      };
      return invalidValue(field, data, `must be ${words[e.keyword]} ${String(p.limit)}`);
    }
    case 'multipleOf':
      return invalidValue(field, data, `must be a multiple of ${String(p.multipleOf)}`);
    case 'minLength':
      return invalidValue(field, data, `must be at least ${String(p.limit)} characters long`);
    case 'maxLength':
      return tooLong(field, Number(p.limit), 'characters');
    case 'minItems':
      return invalidValue(field, undefined, `must have at least ${String(p.limit)} items`);
    case 'maxItems':
      return tooMany(field, Number(p.limit), 'items');
    case 'minProperties':
      return invalidValue(field, undefined, `must have at least ${String(p.limit)} properties`);
    case 'maxProperties':
      return tooMany(field, Number(p.limit), 'properties');
    case 'pattern':
      return invalidValue(field, data, `should match '${String(p.pattern)}'`);
    case 'uniqueItems': {
      const idx = Math.max(Number(p.i), Number(p.j));
      const item = Array.isArray(data) ? data[idx] : undefined;
      return duplicate(`${field}[${idx}]`, item);
    }
    case 'additionalProperties':
      return forbidden(pointerToFieldPath(shape, e.instancePath, String(p.additionalProperty)), 'field not declared in schema');
    case 'if':
      // The failing then/else branch reports the real problem.
      return undefined;
    default:
      return invalidValue(field, reportable(data), e.message ?? 'is invalid');
  }
}

/**
 * ajv errors (compiled with `allErrors`) for the value `root` as FieldErrors. A failed anyOf/oneOf is
 * reported through the branch that matched the value's type when there is one (e.g. a quantity
 * string that fails its pattern), otherwise as one "must be of type X or Y" error.
 */
export function mapAjvErrors(errors: readonly ErrorObject[], shape: ShapeNode, root: unknown): FieldError[] {
  if (errors.length === 0) return [];
  const umbrellas = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  // Schema paths restart inside a `$ref`d schema, so the instance path must agree as well.
  const inUmbrella = (e: ErrorObject, u: ErrorObject) =>
    e !== u && e.schemaPath.startsWith(`${u.schemaPath}/`) && (e.instancePath === u.instancePath || e.instancePath.startsWith(`${u.instancePath}/`));
  // Outermost umbrellas own their branches; nested ones are resolved by the recursive call.
  const outer = umbrellas.filter((u) => !umbrellas.some((o) => inUmbrella(u, o)));
  const owned = new Set<ErrorObject>();
  const resolved = new Map<ErrorObject, FieldError[]>();
  for (const u of outer) {
    const branch = errors.filter((e) => inUmbrella(e, u));
    branch.forEach((e) => owned.add(e));
    resolved.set(u, resolveUmbrella(u, branch, shape, root));
  }
  const out: FieldError[] = [];
  // Keep ajv's order (it follows the schema's property order, so metadata comes first).
  for (const e of errors) {
    const r = resolved.get(e);
    if (r) out.push(...r);
    else if (!owned.has(e) && e.keyword !== 'anyOf' && e.keyword !== 'oneOf') {
      const fe = mapOne(e, shape, root);
      if (fe) out.push(fe);
    }
  }
  return out;
}

function resolveUmbrella(u: ErrorObject, branch: ErrorObject[], shape: ShapeNode, root: unknown): FieldError[] {
  const field = pointerToFieldPath(shape, u.instancePath);
  const data = valueAtPointer(root, u.instancePath);
  if (u.keyword === 'oneOf' && branch.length === 0) {
    return [invalidValue(field, jsonTypeOrValue(data), 'must match exactly one schema')];
  }
  const typeMisses = branch.filter((e) => e.keyword === 'type' && e.instancePath === u.instancePath);
  const specific = branch.filter((e) => !typeMisses.includes(e));
  if (specific.length > 0) return mapAjvErrors(specific, shape, root);
  const types = typeMisses.flatMap((e) => {
    const t = (e.params as { type?: unknown }).type;
    return Array.isArray(t) ? t : [t];
  });
  return [invalidValue(field, jsonTypeOrValue(data), `must be of type ${describeTypes([...new Set(types)])}`)];
}

/** Removes repeated reports of the same problem (schema and type rules often agree). */
export function dedupeFieldErrors(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const key = `${e.type}\u0000${e.field}\u0000${JSON.stringify(e.value ?? null)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
