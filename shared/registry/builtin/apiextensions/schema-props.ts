// JSONSchemaProps, the schema language of a CustomResourceDefinition, as the JSON a client sends.
// The type schema keeps `openAPIV3Schema` free-form (the language is recursive), so this module
// is what decoding is upstream: the JSON types of its fields (a wrong one is refused, as Go's
// decoder would), the unknown fields and nulls it drops, and the walk over every sub-schema that
// the rules elsewhere use. Sub-schema paths are upstream's (`properties[spec].items`).

import type { FieldError } from '../../../api/status.js';
import { invalidValue } from '../../../api/field-errors.js';

export type SchemaNode = Record<string, unknown>;

export function isNode(v: unknown): v is SchemaNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A member the node itself has (client-chosen keys such as `constructor` stay plain data). */
export function own(o: SchemaNode, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

export function strOf(s: SchemaNode, key: string): string {
  const v = own(s, key);
  return typeof v === 'string' ? v : '';
}

export function flag(s: SchemaNode, key: string): boolean {
  return own(s, key) === true;
}

export function listOf(s: SchemaNode, key: string): unknown[] {
  const v = own(s, key);
  return Array.isArray(v) ? v : [];
}

export function stringsOf(s: SchemaNode, key: string): string[] {
  return listOf(s, key).filter((x): x is string => typeof x === 'string');
}

/** Properties (or another map of schemas) in the order the client wrote them. */
export function schemaMap(s: SchemaNode, key: string): Array<[string, SchemaNode]> {
  const v = own(s, key);
  return isNode(v) ? Object.entries(v).filter((e): e is [string, SchemaNode] => isNode(e[1])) : [];
}

export function schemaList(s: SchemaNode, key: string): SchemaNode[] {
  return listOf(s, key).filter(isNode);
}

/** The schema `items` holds, when it holds one schema (not a list). */
export function itemSchema(s: SchemaNode): SchemaNode | undefined {
  const v = own(s, 'items');
  return isNode(v) ? v : undefined;
}

export function propertyNames(s: SchemaNode): Set<string> {
  return new Set(schemaMap(s, 'properties').map(([k]) => k));
}

export function property(s: SchemaNode, key: string): SchemaNode | undefined {
  const props = own(s, 'properties');
  const v = isNode(props) ? own(props, key) : undefined;
  return isNode(v) ? v : undefined;
}

export function hasDefault(s: SchemaNode): boolean {
  return own(s, 'default') !== undefined && own(s, 'default') !== null;
}

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'any' | 'strings' | 'anys' | 'schema' | 'schemas' | 'schemaMap' | 'schemaOrBool' | 'schemaOrArray' | 'dependencies' | 'docs' | 'rules';

// Every field JSONSchemaProps has, and the JSON its Go type decodes from.
const FIELDS: Readonly<Record<string, Kind>> = {
  id: 'string',
  $schema: 'string',
  $ref: 'string',
  description: 'string',
  type: 'string',
  format: 'string',
  title: 'string',
  default: 'any',
  maximum: 'number',
  exclusiveMaximum: 'boolean',
  minimum: 'number',
  exclusiveMinimum: 'boolean',
  maxLength: 'integer',
  minLength: 'integer',
  pattern: 'string',
  maxItems: 'integer',
  minItems: 'integer',
  uniqueItems: 'boolean',
  multipleOf: 'number',
  enum: 'anys',
  maxProperties: 'integer',
  minProperties: 'integer',
  required: 'strings',
  items: 'schemaOrArray',
  allOf: 'schemas',
  oneOf: 'schemas',
  anyOf: 'schemas',
  not: 'schema',
  properties: 'schemaMap',
  additionalProperties: 'schemaOrBool',
  patternProperties: 'schemaMap',
  dependencies: 'dependencies',
  additionalItems: 'schemaOrBool',
  definitions: 'schemaMap',
  externalDocs: 'docs',
  example: 'any',
  nullable: 'boolean',
  'x-kubernetes-preserve-unknown-fields': 'boolean',
  'x-kubernetes-embedded-resource': 'boolean',
  'x-kubernetes-int-or-string': 'boolean',
  'x-kubernetes-list-map-keys': 'strings',
  'x-kubernetes-list-type': 'string',
  'x-kubernetes-map-type': 'string',
  'x-kubernetes-validations': 'rules',
};

const RULE_FIELDS: Readonly<Record<string, 'string' | 'boolean'>> = {
  rule: 'string',
  message: 'string',
  messageExpression: 'string',
  reason: 'string',
  fieldPath: 'string',
  optionalOldSelf: 'boolean',
};
const DOCS_FIELDS: Readonly<Record<string, 'string'>> = { description: 'string', url: 'string' };

/** Calls `fn` with every direct sub-schema of `s` and its path. */
export function forEachSubSchema(s: SchemaNode, path: string, fn: (sub: SchemaNode, subPath: string) => void): void {
  for (const key of ['allOf', 'oneOf', 'anyOf']) schemaList(s, key).forEach((b, i) => fn(b, `${path}.${key}[${i}]`));
  for (const key of ['not', 'additionalProperties', 'additionalItems']) {
    const v = own(s, key);
    if (isNode(v)) fn(v, `${path}.${key}`);
  }
  for (const key of ['properties', 'patternProperties', 'definitions']) for (const [k, v] of schemaMap(s, key)) fn(v, `${path}.${key}[${k}]`);
  const items = own(s, 'items');
  if (isNode(items)) fn(items, `${path}.items`);
  else if (Array.isArray(items)) items.forEach((b, i) => isNode(b) && fn(b, `${path}.items[${i}]`));
  for (const [k, v] of schemaMap(s, 'dependencies')) fn(v, `${path}.dependencies[${k}]`);
}

/** Whether `pred` holds for `s` or any schema below it (upstream's SchemaHas). */
export function schemaHas(s: SchemaNode | undefined, pred: (n: SchemaNode) => boolean): boolean {
  if (!s) return false;
  if (pred(s)) return true;
  let found = false;
  forEachSubSchema(s, '', (sub) => {
    if (!found && schemaHas(sub, pred)) found = true;
  });
  return found;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v;
}

function shown(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? jsonType(v) : v;
}

function mismatch(path: string, v: unknown, want: string): FieldError {
  return invalidValue(path, shown(v), `must be of type ${want}`);
}

function checkFlat(o: SchemaNode, path: string, fields: Readonly<Record<string, 'string' | 'boolean'>>, out: FieldError[]): void {
  for (const [k, v] of Object.entries(o)) {
    const want = Object.hasOwn(fields, k) ? fields[k] : undefined;
    if (want && v !== null && typeof v !== want) out.push(mismatch(`${path}.${k}`, v, want));
  }
}

function checkField(kind: Kind, v: unknown, path: string, out: FieldError[]): void {
  switch (kind) {
    case 'string':
    case 'boolean':
      if (typeof v !== kind) out.push(mismatch(path, v, kind));
      return;
    case 'number':
      if (typeof v !== 'number') out.push(mismatch(path, v, 'number'));
      return;
    case 'integer':
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) out.push(mismatch(path, v, 'integer'));
      return;
    case 'any':
      return;
    case 'strings':
    case 'anys':
      if (!Array.isArray(v)) out.push(mismatch(path, v, 'array'));
      else if (kind === 'strings') v.forEach((x, i) => typeof x !== 'string' && out.push(mismatch(`${path}[${i}]`, x, 'string')));
      return;
    case 'schema':
      if (isNode(v)) checkSchemaShape(v, path, out);
      else out.push(mismatch(path, v, 'object'));
      return;
    case 'schemas':
      if (Array.isArray(v)) v.forEach((b, i) => checkField('schema', b, `${path}[${i}]`, out));
      else out.push(mismatch(path, v, 'array'));
      return;
    case 'schemaMap':
      if (isNode(v)) for (const [k, b] of Object.entries(v)) checkField('schema', b, `${path}[${k}]`, out);
      else out.push(mismatch(path, v, 'object'));
      return;
    case 'schemaOrBool':
      if (typeof v !== 'boolean') checkField('schema', v, path, out);
      return;
    case 'schemaOrArray':
      if (Array.isArray(v)) checkField('schemas', v, path, out);
      else checkField('schema', v, path, out);
      return;
    case 'dependencies':
      if (!isNode(v)) out.push(mismatch(path, v, 'object'));
      else for (const [k, d] of Object.entries(v)) Array.isArray(d) ? checkField('strings', d, `${path}[${k}]`, out) : checkField('schema', d, `${path}[${k}]`, out);
      return;
    case 'docs':
      if (isNode(v)) checkFlat(v, path, DOCS_FIELDS, out);
      else out.push(mismatch(path, v, 'object'));
      return;
    case 'rules':
      if (!Array.isArray(v)) out.push(mismatch(path, v, 'array'));
      else v.forEach((r, i) => (isNode(r) ? checkFlat(r, `${path}[${i}]`, RULE_FIELDS, out) : out.push(mismatch(`${path}[${i}]`, r, 'object'))));
      return;
  }
}

/** Fields holding JSON of another type than JSONSchemaProps gives them (upstream refuses these while decoding). */
export function checkSchemaShape(s: SchemaNode, path: string, out: FieldError[] = []): FieldError[] {
  for (const [k, v] of Object.entries(s)) {
    const kind = Object.hasOwn(FIELDS, k) ? FIELDS[k] : undefined;
    if (kind && v !== null && v !== undefined) checkField(kind, v, `${path}.${k}`, out);
  }
  return out;
}

function pruneFlat(o: SchemaNode, fields: Readonly<Record<string, unknown>>): void {
  for (const k of Object.keys(o)) if (!Object.hasOwn(fields, k) || o[k] === null) delete o[k];
}

/**
 * Drops, in place, what decoding into JSONSchemaProps would drop: unknown fields and nulls (a
 * null pointer field is unset). Values of `default`, `example` and `enum` are data and stay whole.
 */
export function pruneSchemaProps(s: SchemaNode): void {
  pruneFlat(s, FIELDS);
  const docs = own(s, 'externalDocs');
  if (isNode(docs)) pruneFlat(docs, DOCS_FIELDS);
  for (const r of listOf(s, 'x-kubernetes-validations')) if (isNode(r)) pruneFlat(r, RULE_FIELDS);
  forEachSubSchema(s, '', (sub) => pruneSchemaProps(sub));
}
