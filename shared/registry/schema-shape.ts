// The "shape" tree of a schema, compiled once per served version: what the walkers over a decoded
// object need to find unknown fields, prune them, apply schema defaults, spot nulls that mean
// unset, and turn ajv's JSON pointers into upstream field paths.

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

export type Json = Record<string, unknown>;

export function isPlainObject(v: unknown): v is Json {
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
