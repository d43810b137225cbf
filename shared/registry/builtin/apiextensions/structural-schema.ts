// Structural schemas (upstream's pkg/apiserver/schema): a schema every node of which says its type
// outside of value validations, so that pruning, defaulting and server-side apply know the shape
// of every field. The structural part is the root, `properties`, `items` and `additionalProperties`;
// `allOf`/`anyOf`/`oneOf`/`not` only validate values and may not widen that shape. Errors are
// upstream's wording and paths, sorted as upstream sorts them.

import { goRegexpProblem } from '../../../api/go-regexp.js';
import type { FieldError } from '../../../api/status.js';
import { fieldErrorMessage } from '../../../api/status.js';
import { forbidden, invalidValue, required } from '../../../api/field-errors.js';
import { flag, isNode, itemSchema, listOf, own, schemaList, schemaMap, strOf, type SchemaNode } from './schema-props.js';

type Level = 'root' | 'item' | 'field';

const UNSUPPORTED: ReadonlyArray<[string, string]> = [
  ['id', 'id'],
  ['$schema', 'schema'],
  ['$ref', '$ref'],
  ['patternProperties', 'patternProperties'],
  ['dependencies', 'dependencies'],
  ['additionalItems', 'additionalItems'],
  ['definitions', 'definitions'],
];

function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (isNode(v)) return Object.keys(v).length > 0;
  return true;
}

function unsupportedField(s: SchemaNode): string | undefined {
  for (const [key, name] of UNSUPPORTED) {
    const v = own(s, key);
    if (key === 'additionalItems' ? v !== undefined && v !== null : isSet(v)) return `OpenAPIV3Schema '${name}' is not supported`;
  }
  return undefined;
}

/** Why the schema cannot be read as a structural schema at all (upstream's NewStructural), in upstream's order. */
export function structuralInitError(s: SchemaNode): string | undefined {
  const unsupported = unsupportedField(s);
  if (unsupported) return unsupported;
  for (const junctor of [own(s, 'not'), ...schemaList(s, 'allOf'), ...schemaList(s, 'anyOf'), ...schemaList(s, 'oneOf')]) {
    const err = isNode(junctor) ? structuralInitError(junctor) : undefined;
    if (err) return err;
  }
  if (own(s, 'x-kubernetes-preserve-unknown-fields') === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  if (Array.isArray(own(s, 'items')) && listOf(s, 'items').length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const children = [itemSchema(s), ...schemaMap(s, 'properties').map(([, v]) => v), own(s, 'additionalProperties')];
  for (const child of children) {
    const err = isNode(child) ? structuralInitError(child) : undefined;
    if (err) return err;
  }
  return undefined;
}

/** A junctor branch of exactly `{type: <t>}` (zero-valued fields aside), as the int-or-string patterns need. */
function onlyType(b: unknown, type: string): boolean {
  if (!isNode(b) || own(b, 'type') !== type) return false;
  return Object.entries(b).every(([k, v]) => k === 'type' || v === false || v === '' || v === null);
}

function isIntOrStringAnyOf(s: SchemaNode): boolean {
  const anyOf = listOf(s, 'anyOf');
  return anyOf.length === 2 && onlyType(anyOf[0], 'integer') && onlyType(anyOf[1], 'string');
}

function isIntOrStringAllOf(s: SchemaNode): boolean {
  const first = listOf(s, 'allOf')[0];
  return isNode(first) && isIntOrStringAnyOf(first);
}

/** The value validation of one node: its junctors and its pattern. */
function valueValidation(v: SchemaNode, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, out: FieldError[]): void {
  if (!skipAnyOf) schemaList(v, 'anyOf').forEach((b, i) => nestedValueValidation(b, false, lvl, `${path}.anyOf[${i}]`, out));
  schemaList(v, 'allOf').forEach((b, i) => nestedValueValidation(b, skipFirstAllOfAnyOf && i === 0, lvl, `${path}.allOf[${i}]`, out));
  schemaList(v, 'oneOf').forEach((b, i) => nestedValueValidation(b, false, lvl, `${path}.oneOf[${i}]`, out));
  const not = own(v, 'not');
  if (isNode(not)) nestedValueValidation(not, false, lvl, `${path}.not`, out);
  const pattern = strOf(v, 'pattern');
  const problem = pattern ? goRegexpProblem(pattern) : undefined;
  if (problem) out.push(invalidValue(`${path}.pattern`, pattern, `must be a valid regular expression, but isn't: ${problem}`));
}

const NESTED_FORBIDDEN: ReadonlyArray<[string, string]> = [
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', 'must be undefined to be structural'],
  ['x-kubernetes-validations', 'must be empty to be structural'],
];

function nestedFieldSet(v: SchemaNode, key: string): boolean {
  const x = own(v, key);
  if (x === undefined || x === null || x === false || x === '') return false;
  return !(Array.isArray(x) && x.length === 0 && key !== 'x-kubernetes-list-type');
}

/** A value validation below a junctor: it may constrain values, never declare types or shape. */
function nestedValueValidation(v: SchemaNode, skipAnyOf: boolean, lvl: Level, path: string, out: FieldError[]): void {
  valueValidation(v, skipAnyOf, false, lvl, path, out);
  const items = itemSchema(v);
  if (items) nestedValueValidation(items, false, lvl, `${path}.items`, out);
  for (const [k, p] of schemaMap(v, 'properties')) nestedValueValidation(p, false, 'field', `${path}.properties[${k}]`, out);
  if (strOf(v, 'type')) out.push(forbidden(`${path}.type`, 'must be empty to be structural'));
  const ap = own(v, 'additionalProperties');
  if (ap === true || isNode(ap)) out.push(forbidden(`${path}.additionalProperties`, 'must be undefined to be structural'));
  for (const [key, why] of NESTED_FORBIDDEN) if (nestedFieldSet(v, key)) out.push(forbidden(`${path}.${key}`, why));
  if (schemaMap(v, 'properties').some(([k]) => k === 'metadata')) out.push(forbidden(`${path}.properties[metadata]`, 'must not be specified in a nested context'));
}

// What may be said of `metadata` at the root besides its type: nothing but constraints on name and generateName.
function metadataIsOnlyNameRules(m: SchemaNode): boolean {
  for (const [k, v] of Object.entries(m)) {
    if (k === 'type' || k === 'default' || v === false || v === '' || v === null) continue;
    if (k === 'properties' && isNode(v)) {
      const keys = Object.keys(v);
      if (keys.every((p) => p === 'name' || p === 'generateName')) continue;
    }
    if ((k === 'enum' || k === 'allOf' || k === 'anyOf' || k === 'oneOf') && Array.isArray(v) && v.length === 0) continue;
    return false;
  }
  return true;
}

function metadataInvariants(m: SchemaNode, checkMetadata: boolean, lvl: Level, path: string, out: FieldError[]): void {
  if (checkMetadata && strOf(m, 'type') !== 'object') out.push(invalidValue(`${path}.type`, strOf(m, 'type'), 'must be object'));
  if (lvl === 'root' && !metadataIsOnlyNameRules(m)) out.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
}

const EMPTY_TYPE: Readonly<Record<Level, string>> = {
  root: 'must not be empty at the root',
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

function typeInvariants(s: SchemaNode, lvl: Level, path: string, out: FieldError[]): void {
  const type = strOf(s, 'type');
  const embedded = flag(s, 'x-kubernetes-embedded-resource');
  if (embedded && type !== 'object') {
    out.push(
      type ? invalidValue(`${path}.type`, type, 'must be object if x-kubernetes-embedded-resource is true') : required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'),
    );
  } else if (!type && !flag(s, 'x-kubernetes-int-or-string') && !flag(s, 'x-kubernetes-preserve-unknown-fields')) {
    out.push(required(`${path}.type`, EMPTY_TYPE[lvl]));
  }
  if (embedded && own(s, 'additionalProperties') !== undefined) out.push(forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && type && type !== 'object') out.push(invalidValue(`${path}.type`, type, 'must be object at the root'));
}

function invariants(s: SchemaNode, lvl: Level, path: string, out: FieldError[]): void {
  const items = itemSchema(s);
  if (strOf(s, 'type') === 'array' && !items) out.push(required(`${path}.items`, 'must be specified'));
  if (items) invariants(items, 'item', `${path}.items`, out);
  for (const [k, p] of schemaMap(s, 'properties')) invariants(p, 'field', `${path}.properties[${k}]`, out);
  const ap = own(s, 'additionalProperties');
  if (ap !== undefined) {
    if (lvl === 'root') out.push(forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (isNode(ap)) invariants(ap, 'field', `${path}.additionalProperties`, out);
  }
  const intOrString = flag(s, 'x-kubernetes-int-or-string');
  if (intOrString && flag(s, 'x-kubernetes-preserve-unknown-fields'))
    out.push(invalidValue(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && flag(s, 'x-kubernetes-embedded-resource')) out.push(invalidValue(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  valueValidation(s, isIntOrStringAnyOf(s), isIntOrStringAllOf(s), lvl, path, out);
  typeInvariants(s, lvl, path, out);
  const checkMetadata = lvl === 'root' || flag(s, 'x-kubernetes-embedded-resource');
  if (checkMetadata) {
    for (const k of ['kind', 'apiVersion']) {
      const p = schemaMap(s, 'properties').find(([name]) => name === k)?.[1];
      if (p && strOf(p, 'type') !== 'string') out.push(invalidValue(`${path}.properties[${k}].type`, strOf(p, 'type'), 'must be string'));
    }
  }
  const metadata = schemaMap(s, 'properties').find(([name]) => name === 'metadata')?.[1];
  if (metadata) metadataInvariants(metadata, checkMetadata, lvl, `${path}.properties[metadata]`, out);
  if (flag(s, 'x-kubernetes-embedded-resource') && !flag(s, 'x-kubernetes-preserve-unknown-fields') && schemaMap(s, 'properties').length === 0) {
    out.push(required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** Every value validation must apply to a field the structural part declares. */
function completeness(v: SchemaNode, s: SchemaNode | undefined, sPath: string, vPath: string, out: FieldError[]): void {
  if (!s) {
    out.push(required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  const not = own(v, 'not');
  if (isNode(not)) nestedCompleteness(not, s, sPath, `${vPath}.not`, out);
  for (const key of ['allOf', 'anyOf', 'oneOf']) schemaList(v, key).forEach((b, i) => nestedCompleteness(b, s, sPath, `${vPath}.${key}[${i}]`, out));
}

function nestedCompleteness(v: SchemaNode, s: SchemaNode | undefined, sPath: string, vPath: string, out: FieldError[]): void {
  if (!s) {
    out.push(required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  completeness(v, s, sPath, vPath, out);
  const items = itemSchema(v);
  if (items) nestedCompleteness(items, itemSchema(s), `${sPath}.items`, `${vPath}.items`, out);
  const declared = new Map(schemaMap(s, 'properties'));
  for (const [k, p] of schemaMap(v, 'properties')) {
    const sp = declared.get(k);
    if (sp) nestedCompleteness(p, sp, `${sPath}.properties[${k}]`, `${vPath}.properties[${k}]`, out);
    else out.push(required(`${sPath}.properties[${k}]`, `because it is defined in ${vPath}.properties[${k}]`));
  }
}

/** The structural-schema errors of a schema that NewStructural could read, sorted as upstream does. */
export function validateStructural(s: SchemaNode, path: string): FieldError[] {
  const out: FieldError[] = [];
  invariants(s, 'root', path, out);
  completeness(s, s, path, path, out);
  const key = (e: FieldError) => fieldErrorMessage(e);
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Whether a schema is structural (readable and free of structural errors). */
export function isStructural(s: SchemaNode): boolean {
  return structuralInitError(s) === undefined && validateStructural(s, '').length === 0;
}
