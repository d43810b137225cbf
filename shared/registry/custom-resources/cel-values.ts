// What a validation rule (`x-kubernetes-validations`) sees of a custom resource: the CEL shape of
// a structural schema node and the value a JSON value becomes under it, as upstream's schema/cel
// model types them. Integers are CEL ints (bigint), numbers doubles, `format: byte` strings bytes,
// `duration` durations, `date` and `date-time` timestamps; objects with properties are objects
// whose fields are the properties' escaped names; additionalProperties make maps; the root of a
// resource (and an embedded resource) shows apiVersion, kind, and of metadata only name and
// generateName. A field whose schema has no type (preserve-unknown-fields) is not visible, as upstream.

import { flag, isNode, itemSchema, own, schemaMap, strOf, type SchemaNode } from '../builtin/apiextensions/schema-props.js';

export type ScalarKind = 'int' | 'double' | 'string' | 'bool' | 'bytes' | 'duration' | 'timestamp' | 'int-or-string';

/** A node's CEL shape; `dyn` where the rule's type checking cannot know more. */
export type CelShape =
  { kind: 'scalar'; scalar: ScalarKind } | { kind: 'list'; items: CelShape } | { kind: 'map'; values: CelShape } | { kind: 'object'; fields: ReadonlyMap<string, ObjectField> } | { kind: 'dyn' };

export interface ObjectField {
  /** The property's own name (the JSON key). */
  name: string;
  shape: CelShape;
}

export const DYN: CelShape = { kind: 'dyn' };

// CEL's reserved words; a property so named is reached as `__name__` (upstream's escaping).
const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const ESCAPES: Readonly<Record<string, string>> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/** A property's name as a CEL field (`foo-bar` → `foo__dash__bar`), or undefined when it cannot be one. */
export function escapePropertyName(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  let ok = true;
  const escaped = name.replace(/__|[-./]|[^a-zA-Z0-9_]/g, (s) => {
    const e = ESCAPES[s];
    if (e === undefined) ok = false;
    return e ?? '';
  });
  return ok ? escaped : undefined;
}

const STRING: CelShape = { kind: 'scalar', scalar: 'string' };
const METADATA: CelShape = {
  kind: 'object',
  fields: new Map([
    ['name', { name: 'name', shape: STRING }],
    ['generateName', { name: 'generateName', shape: STRING }],
  ]),
};

function stringShape(s: SchemaNode): CelShape {
  switch (strOf(s, 'format')) {
    case 'byte':
      return { kind: 'scalar', scalar: 'bytes' };
    case 'duration':
      return { kind: 'scalar', scalar: 'duration' };
    case 'date':
    case 'date-time':
      return { kind: 'scalar', scalar: 'timestamp' };
    default:
      return STRING;
  }
}

function objectShape(s: SchemaNode, isResourceRoot: boolean): CelShape {
  const ap = own(s, 'additionalProperties');
  const props = schemaMap(s, 'properties');
  if (isNode(ap) && props.length === 0) return { kind: 'map', values: shapeOf(ap, flag(ap, 'x-kubernetes-embedded-resource')) };
  const fields = new Map<string, ObjectField>();
  if (isResourceRoot) {
    fields.set('apiVersion', { name: 'apiVersion', shape: STRING });
    fields.set('kind', { name: 'kind', shape: STRING });
    fields.set('metadata', { name: 'metadata', shape: METADATA });
  }
  for (const [name, p] of props) {
    if (isResourceRoot && fields.has(name)) continue;
    const escaped = escapePropertyName(name);
    const shape = shapeOf(p, flag(p, 'x-kubernetes-embedded-resource'));
    if (escaped !== undefined && !isHidden(p)) fields.set(escaped, { name, shape });
  }
  return { kind: 'object', fields };
}

/** A property without a type (and not int-or-string) is left out of what rules see. */
function isHidden(s: SchemaNode): boolean {
  return !strOf(s, 'type') && !flag(s, 'x-kubernetes-int-or-string');
}

const shapes = new WeakMap<SchemaNode, { plain?: CelShape; root?: CelShape }>();

/** The shape of schema node `s`; `isResourceRoot` for the root of a resource or an embedded one. */
export function shapeOf(s: SchemaNode, isResourceRoot = false): CelShape {
  let memo = shapes.get(s);
  if (!memo) shapes.set(s, (memo = {}));
  const key = isResourceRoot ? 'root' : 'plain';
  return (memo[key] ??= computeShape(s, isResourceRoot));
}

function computeShape(s: SchemaNode, isResourceRoot: boolean): CelShape {
  if (flag(s, 'x-kubernetes-int-or-string')) return { kind: 'scalar', scalar: 'int-or-string' };
  switch (strOf(s, 'type')) {
    case 'integer':
      return { kind: 'scalar', scalar: 'int' };
    case 'number':
      return { kind: 'scalar', scalar: 'double' };
    case 'boolean':
      return { kind: 'scalar', scalar: 'bool' };
    case 'string':
      return stringShape(s);
    case 'array': {
      const items = itemSchema(s);
      return { kind: 'list', items: items ? shapeOf(items, flag(items, 'x-kubernetes-embedded-resource')) : DYN };
    }
    case 'object':
      return objectShape(s, isResourceRoot);
    default:
      return DYN;
  }
}

/** How a shape is named in messages (`list(int)`, `map(string, string)`). */
export function shapeName(shape: CelShape): string {
  switch (shape.kind) {
    case 'scalar':
      return shape.scalar === 'int-or-string' ? 'dyn' : shape.scalar;
    case 'list':
      return `list(${shapeName(shape.items)})`;
    case 'map':
      return `map(string, ${shapeName(shape.values)})`;
    case 'object':
      return 'object';
    case 'dyn':
      return 'dyn';
  }
}

/** Parses the strings a scalar shape reads as something else (durations, timestamps); undefined when it cannot. */
export type ScalarParser = (kind: 'duration' | 'timestamp', text: string) => unknown;

/**
 * The CEL input a JSON value becomes under `shape`. Objects and lists are converted once per
 * call of the caller's `memo` (rules on nested nodes share their parents' conversion).
 */
export class CelValueConverter {
  private readonly memo = new Map<object, Map<CelShape, unknown>>();

  constructor(private readonly parseScalar: ScalarParser) {}

  convert(v: unknown, shape: CelShape): unknown {
    if (v === null || v === undefined) return null;
    if (typeof v !== 'object') return this.scalar(v, shape);
    let byShape = this.memo.get(v);
    if (!byShape) this.memo.set(v, (byShape = new Map()));
    if (byShape.has(shape)) return byShape.get(shape);
    const out = Array.isArray(v) ? this.list(v, shape) : this.object(v as Record<string, unknown>, shape);
    byShape.set(shape, out);
    return out;
  }

  private list(v: unknown[], shape: CelShape): unknown {
    const items = shape.kind === 'list' ? shape.items : DYN;
    return v.map((x) => this.convert(x, items));
  }

  private object(v: Record<string, unknown>, shape: CelShape): unknown {
    const out = new Map<string, unknown>();
    if (shape.kind === 'object') {
      for (const [field, { name, shape: sub }] of shape.fields) if (Object.hasOwn(v, name)) out.set(field, this.convert(v[name], sub));
    } else {
      const values = shape.kind === 'map' ? shape.values : DYN;
      for (const [k, x] of Object.entries(v)) out.set(k, this.convert(x, values));
    }
    return out;
  }

  private scalar(v: unknown, shape: CelShape): unknown {
    const kind = shape.kind === 'scalar' ? shape.scalar : 'dyn';
    if (typeof v === 'number') return kind === 'double' || !Number.isInteger(v) ? v : BigInt(v);
    if (typeof v !== 'string') return v;
    if (kind === 'bytes') return decodeBase64(v) ?? v;
    if (kind === 'duration' || kind === 'timestamp') return this.parseScalar(kind, v) ?? v;
    return v;
  }
}

function decodeBase64(v: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(v), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
