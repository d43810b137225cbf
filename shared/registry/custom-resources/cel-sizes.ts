// How large the values a validation rule reads can be, as upstream's CEL model of a structural
// schema bounds them for the static cost estimate: each node's most elements (a list's maxItems, a
// map's maxProperties, a string's maxLength in bytes — four per character), and where the schema
// sets no bound, as many as fit in the largest request (3 MiB) given the smallest each element can
// be serialized as. Nodes a rule cannot see (no type, preserve-unknown-fields) have no size.

import { flag, hasDefault, isNode, itemSchema, own, schemaMap, stringsOf, strOf, type SchemaNode } from '../builtin/apiextensions/schema-props.js';
import { escapePropertyName } from './cel-values.js';

/** Upstream's bound on a request body, which bounds every unbounded list, map and string. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** A schema node's bounds: `maxElements` is the size CEL's `size()` would give at most. */
export interface SizeNode {
  maxElements: number;
  /** The fewest bytes a value of this node serializes to in JSON. */
  minSerializedSize: number;
  /** Object properties by their CEL (escaped) names. */
  fields?: ReadonlyMap<string, SizeNode>;
  /** A list's items or a map's values. */
  elem?: SizeNode;
  /** A map's keys. */
  key?: SizeNode;
}

// The shortest JSON of each kind of value: `""`, `true`, `0`, and for formatted strings RFC 3339's.
const MIN_STRING = 2;
const MIN_BOOL = 4;
const MIN_NUMBER = 1;
const UNBOUNDED_STRING = MAX_REQUEST_BYTES - 2;
/** Map keys are plain strings of no declared bound (upstream's shared string type, whose bound is 0). */
const MAP_KEY: SizeNode = { maxElements: 0, minSerializedSize: MIN_STRING };
const FORMATTED: Readonly<Record<string, SizeNode>> = {
  duration: { maxElements: 32, minSerializedSize: 3 },
  date: { maxElements: 12, minSerializedSize: 12 },
  'date-time': { maxElements: 32, minSerializedSize: 21 },
};

function bound(s: SchemaNode, key: string): number | undefined {
  const v = own(s, key);
  return typeof v === 'number' ? Math.max(0, Math.floor(v)) : undefined;
}

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

/** How many times data of `minSize` bytes could appear in one request (for a rule under unbounded lists or maps). */
export function maxCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_BYTES / (minSize + 1));
}

/** The factor by which a node multiplies how often its children can occur; undefined when it sets no bound. */
export function elementsFactor(s: SchemaNode): number | undefined {
  switch (strOf(s, 'type')) {
    case 'object': {
      const ap = own(s, 'additionalProperties');
      return ap === undefined || ap === false ? 1 : bound(s, 'maxProperties');
    }
    case 'array':
      return bound(s, 'maxItems');
    default:
      return 1;
  }
}

/** A resource's root always shows apiVersion, kind, metadata.name and metadata.generateName (as plain strings unless the schema says so). */
function withTypeAndObjectMeta(s: SchemaNode): SchemaNode {
  const props = isNode(own(s, 'properties')) ? (own(s, 'properties') as SchemaNode) : {};
  const typeOf = (o: unknown, k: string) => (isNode(o) && isNode(own(o, k)) ? strOf(own(o, k) as SchemaNode, 'type') : '');
  const meta = own(props, 'metadata');
  const metaProps = isNode(meta) ? own(meta, 'properties') : undefined;
  const complete =
    typeOf(props, 'kind') === 'string' &&
    typeOf(props, 'apiVersion') === 'string' &&
    typeOf(props, 'metadata') === 'object' &&
    typeOf(metaProps, 'name') === 'string' &&
    typeOf(metaProps, 'generateName') === 'string';
  if (complete) return s;
  const str = { type: 'string' };
  const metadata = { type: 'object', properties: { name: str, generateName: str } };
  return { ...s, properties: { ...props, kind: str, apiVersion: str, metadata } };
}

function stringNode(s: SchemaNode): SizeNode {
  const format = strOf(s, 'format');
  const formatted = FORMATTED[format];
  if (formatted) return formatted;
  const maxLength = bound(s, 'maxLength');
  // maxLength counts characters; a character may take four bytes (bytes are counted as they are).
  if (format === 'byte') return { maxElements: maxLength ?? UNBOUNDED_STRING, minSerializedSize: MIN_STRING };
  return { maxElements: maxLength === undefined ? UNBOUNDED_STRING : maxLength * 4, minSerializedSize: MIN_STRING };
}

function objectNode(s: SchemaNode): SizeNode | undefined {
  const ap = own(s, 'additionalProperties');
  if (isNode(ap)) {
    const values = sizeNodeOf(ap, flag(ap, 'x-kubernetes-embedded-resource'));
    if (!values) return undefined;
    // A key-value pair is at least `"":` and a comma around the value.
    const maxProps = bound(s, 'maxProperties') ?? Math.floor((MAX_REQUEST_BYTES - 2) / (values.minSerializedSize + 6));
    return { maxElements: maxProps, minSerializedSize: 2, elem: values, key: MAP_KEY };
  }
  const required = new Set(stringsOf(s, 'required'));
  const fields = new Map<string, SizeNode>();
  let minSize = 2;
  for (const [name, p] of schemaMap(s, 'properties')) {
    const field = sizeNodeOf(p, flag(p, 'x-kubernetes-embedded-resource'));
    if (!field) continue;
    const escaped = escapePropertyName(name);
    if (escaped !== undefined) fields.set(escaped, field);
    // A required property the server does not default is always serialized: `"name":value,`.
    if (required.has(name) && !hasDefault(p)) minSize += utf8Length(name) + field.minSerializedSize + 4;
  }
  return { maxElements: 0, minSerializedSize: minSize, fields };
}

/** The bounds of schema node `s` (`isResourceRoot` for a resource's root or an embedded one); undefined where rules cannot see it. */
export function sizeNodeOf(s: SchemaNode, isResourceRoot = false): SizeNode | undefined {
  if (flag(s, 'x-kubernetes-int-or-string')) return { maxElements: UNBOUNDED_STRING, minSerializedSize: 1 };
  const node = isResourceRoot ? withTypeAndObjectMeta(s) : s;
  switch (strOf(node, 'type')) {
    case 'array': {
      const items = itemSchema(node);
      const elem = items && sizeNodeOf(items, flag(items, 'x-kubernetes-embedded-resource'));
      if (!elem) return undefined;
      return { maxElements: bound(node, 'maxItems') ?? Math.floor((MAX_REQUEST_BYTES - 2) / (elem.minSerializedSize + 1)), minSerializedSize: 2, elem };
    }
    case 'object':
      return objectNode(node);
    case 'string':
      return stringNode(node);
    case 'boolean':
      return { maxElements: 0, minSerializedSize: MIN_BOOL };
    case 'number':
    case 'integer':
      return { maxElements: 0, minSerializedSize: MIN_NUMBER };
    default:
      return undefined;
  }
}

/** The most elements of the node a path reaches from `root` (a variable, then field names, `@items`, `@keys`, `@values`). */
export function maxSizeAt(root: SizeNode, path: readonly string[]): number | undefined {
  if (path.length === 0) return undefined;
  let node: SizeNode | undefined = root;
  for (const step of path.slice(1)) {
    if (step === '@items' || step === '@values') node = node.elem;
    else if (step === '@keys') node = node.key;
    else node = node.fields?.get(step);
    if (!node) return undefined;
  }
  return node.maxElements;
}
