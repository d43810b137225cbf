// The rules every node of a CustomResourceDefinition's OpenAPI v3 schema must follow beyond being
// structural (upstream's ValidateCustomResourceDefinitionOpenAPISchema): the JSON-Schema features
// the server does not support, where defaults may stand, and the x-kubernetes-* extensions
// (list and map types, map keys, validation rules). CEL rules are checked for form here; their
// expressions are compiled by validation-rule-errors.ts.

import type { FieldError } from '../../../api/status.js';
import { forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { resolveFieldPath } from './field-path.js';
import { flag, hasDefault, isNode, itemSchema, listOf, own, property, schemaList, schemaMap, stringsOf, strOf, type SchemaNode } from './schema-props.js';
import { structuralInitError } from './structural-schema.js';

export const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const VALIDATION_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** Which rules apply (some are relaxed on update for schemas stored before they existed). */
export interface SchemaRuleOptions {
  allowDefaults: boolean;
  requireValidPropertyType: boolean;
  requireAtomicSetType: boolean;
  requireMapListKeysMapSetValidation: boolean;
}

/** What a node's position means for it (upstream's specStandardValidator). */
interface Position {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

function withForbiddenDefaults(p: Position, reason: string): Position {
  return { ...p, allowDefaults: false, disallowDefaultsReason: reason };
}

const NOT_SUPPORTED: ReadonlyArray<[string, (v: unknown) => boolean]> = [
  ['id', (v) => typeof v === 'string' && v !== ''],
  ['additionalItems', (v) => v !== undefined && v !== null],
  ['patternProperties', (v) => isNode(v) && Object.keys(v).length > 0],
  ['definitions', (v) => isNode(v) && Object.keys(v).length > 0],
  ['dependencies', (v) => isNode(v)],
  ['$ref', (v) => typeof v === 'string'],
];

function standardRules(s: SchemaNode, path: string, pos: Position, opts: SchemaRuleOptions, out: FieldError[]): void {
  const type = strOf(s, 'type');
  if (opts.requireValidPropertyType && type && !OPENAPI_V3_TYPES.includes(type)) out.push(unsupported(`${path}.type`, type, OPENAPI_V3_TYPES));
  if (hasDefault(s) && !pos.allowDefaults) out.push(forbidden(`${path}.default`, pos.disallowDefaultsReason ? `must not be set ${pos.disallowDefaultsReason}` : 'must not be set'));
  for (const [key, isSet] of NOT_SUPPORTED) if (isSet(own(s, key))) out.push(forbidden(`${path}.${key}`, `${key} is not supported`));
  if (type === 'null') out.push(forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(own(s, 'items')) && listOf(s, 'items').length > 0) out.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (pos.insideResourceMeta && flag(s, 'x-kubernetes-embedded-resource')) out.push(forbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
}

function typeMustBe(s: SchemaNode, path: string, want: string, why: string, out: FieldError[]): void {
  const type = strOf(s, 'type');
  if (type === want) return;
  out.push(type ? invalidValue(`${path}.type`, type, why) : required(`${path}.type`, why));
}

function listAndMapTypeRules(s: SchemaNode, path: string, opts: SchemaRuleOptions, out: FieldError[]): void {
  const mapType = own(s, 'x-kubernetes-map-type');
  if (typeof mapType === 'string') {
    typeMustBe(s, path, 'object', 'must be object if x-kubernetes-map-type is specified', out);
    if (mapType !== 'atomic' && mapType !== 'granular') out.push(unsupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  const listType = own(s, 'x-kubernetes-list-type');
  const items = itemSchema(s);
  if (typeof listType === 'string' && strOf(s, 'type') !== 'array') typeMustBe(s, path, 'array', 'must be array if x-kubernetes-list-type is specified', out);
  else if (opts.requireAtomicSetType && listType === 'set' && items) {
    const itemType = strOf(items, 'type');
    const why = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    const itemList = own(items, 'x-kubernetes-list-type');
    if (itemType === 'array' && typeof itemList === 'string' && itemList !== 'atomic') out.push(invalidValue(`${path}.items.x-kubernetes-list-type`, itemList, why));
    if (itemType === 'object' && own(items, 'x-kubernetes-map-type') !== 'atomic') out.push(invalidValue(`${path}.items.x-kubernetes-map-type`, itemList, why));
  }
  if (typeof listType === 'string' && !['atomic', 'set', 'map'].includes(listType)) out.push(unsupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  const keys = stringsOf(s, 'x-kubernetes-list-map-keys');
  if (keys.length > 0) {
    if (typeof listType !== 'string') out.push(required(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') out.push(invalidValue(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') mapListRules(s, path, keys, out);
}

function mapListRules(s: SchemaNode, path: string, keys: string[], out: FieldError[]): void {
  const rawItems = own(s, 'items');
  if (keys.length === 0) out.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  if (rawItems === undefined || rawItems === null) out.push(required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
  if (Array.isArray(rawItems)) out.push(invalidValue(`${path}.items`, 'array', 'must only have a single schema if x-kubernetes-list-type is map'));
  const items = itemSchema(s);
  if (!items) return;
  const itemType = strOf(items, 'type');
  if (itemType !== 'object') {
    out.push(invalidValue(`${path}.items.type`, itemType, "must be object if parent array's x-kubernetes-list-type is map"));
    return;
  }
  const seen = new Set<string>();
  for (const k of keys) {
    const p = property(items, k);
    if (!p) out.push(invalidValue(`${path}.x-kubernetes-list-map-keys`, keys, 'entries must all be names of item properties'));
    else if (['array', 'object'].includes(strOf(p, 'type')))
      out.push(invalidValue(`${path}.items.properties[${k}].type`, itemType, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
    if (seen.has(k)) out.push(invalidValue(`${path}.x-kubernetes-list-map-keys`, keys, 'must not contain duplicate entries'));
    seen.add(k);
  }
}

/** Set and map lists: items never null, map keys always present (upstream's validateMapListKeysMapSet). */
export function mapListKeysMapSetErrors(s: SchemaNode, path: string): FieldError[] {
  const items = itemSchema(s);
  const listType = own(s, 'x-kubernetes-list-type');
  if (!items || (listType !== 'set' && listType !== 'map')) return [];
  const out: FieldError[] = [];
  if (flag(items, 'nullable')) out.push(forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType !== 'map') return out;
  const requiredKeys = new Set(stringsOf(items, 'required'));
  for (const k of stringsOf(s, 'x-kubernetes-list-map-keys')) {
    const p = property(items, k);
    if (!p) continue;
    if (!requiredKeys.has(k) && !hasDefault(p))
      out.push(required(`${path}.items.properties[${k}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
    if (flag(p, 'nullable')) out.push(forbidden(`${path}.items.properties[${k}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
  }
  return out;
}

const hasNewlines = (s: string) => /[\n\r]/.test(s);

function fieldPathValid(s: SchemaNode, fieldPath: string): boolean {
  if (structuralInitError(s)) return true;
  return typeof resolveFieldPath(fieldPath, s) !== 'string';
}

/** The form of `x-kubernetes-validations` rules (their CEL is compiled in validation-rule-errors.ts). */
function validationRules(s: SchemaNode, path: string, out: FieldError[]): void {
  listOf(s, 'x-kubernetes-validations').forEach((raw, i) => {
    if (!isNode(raw)) return;
    const p = `${path}.x-kubernetes-validations[${i}]`;
    const rule = strOf(raw, 'rule').trim();
    const message = strOf(raw, 'message');
    if (!rule) out.push(required(`${p}.rule`, 'rule is not specified'));
    else if (message && !message.trim()) out.push(invalidValue(`${p}.message`, message, 'message must be non-empty if specified'));
    else if (hasNewlines(message.trim())) out.push(invalidValue(`${p}.message`, message, 'message must not contain line breaks'));
    else if (hasNewlines(rule) && !message.trim()) out.push(required(`${p}.message`, 'message must be specified if rule contains line breaks'));
    const messageExpression = strOf(raw, 'messageExpression');
    if (messageExpression && !messageExpression.trim()) out.push(required(`${p}.messageExpression`, 'messageExpression must be non-empty if specified'));
    const reason = own(raw, 'reason');
    if (typeof reason === 'string' && !VALIDATION_REASONS.includes(reason)) out.push(unsupported(`${p}.reason`, reason, VALIDATION_REASONS));
    const fieldPath = strOf(raw, 'fieldPath');
    if (fieldPath && !fieldPath.trim()) out.push(invalidValue(`${p}.fieldPath`, fieldPath, 'fieldPath must be non-empty if specified'));
    if (hasNewlines(fieldPath)) out.push(invalidValue(`${p}.fieldPath`, fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath && !fieldPathValid(s, fieldPath)) out.push(invalidValue(`${p}.fieldPath`, fieldPath, 'fieldPath must be a valid path'));
  });
}

function nodeRules(s: SchemaNode, path: string, opts: SchemaRuleOptions, out: FieldError[]): void {
  if (own(s, 'x-kubernetes-preserve-unknown-fields') === false) out.push(invalidValue(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  listAndMapTypeRules(s, path, opts, out);
  if (opts.requireMapListKeysMapSetValidation) out.push(...mapListKeysMapSetErrors(s, path));
  validationRules(s, path, out);
}

function childRules(s: SchemaNode, path: string, pos: Position, isRoot: boolean, opts: SchemaRuleOptions, out: FieldError[]): void {
  const ap = own(s, 'additionalProperties');
  if (ap !== undefined && ap !== null) {
    if (schemaMap(s, 'properties').length > 0 && ap !== true) out.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    const sub = pos.insideResourceMeta ? withForbiddenDefaults(pos, 'inside additionalProperties applying to object metadata') : pos;
    if (isNode(ap)) walk(ap, `${path}.additionalProperties`, sub, false, opts, out);
  }
  for (const [k, p] of schemaMap(s, 'properties')) {
    let sub = pos;
    if ((isRoot || flag(s, 'x-kubernetes-embedded-resource')) && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${k}`);
    }
    walk(p, `${path}.properties[${k}]`, sub, false, opts, out);
  }
  const not = own(s, 'not');
  if (isNode(not)) walk(not, `${path}.not`, pos, false, opts, out);
  for (const key of ['allOf', 'oneOf', 'anyOf']) schemaList(s, key).forEach((b, i) => walk(b, `${path}.${key}[${i}]`, pos, false, opts, out));
  for (const [k, d] of schemaMap(s, 'definitions')) walk(d, `${path}.definitions[${k}]`, pos, false, opts, out);
  const items = own(s, 'items');
  if (isNode(items)) walk(items, `${path}.items`, pos, false, opts, out);
  else if (Array.isArray(items)) items.forEach((b, i) => isNode(b) && walk(b, `${path}.items[${i}]`, pos, false, opts, out));
  for (const [k, d] of schemaMap(s, 'dependencies')) walk(d, `${path}.dependencies[${k}]`, pos, false, opts, out);
}

function walk(s: SchemaNode, path: string, pos: Position, isRoot: boolean, opts: SchemaRuleOptions, out: FieldError[]): void {
  standardRules(s, path, pos, opts, out);
  if (flag(s, 'uniqueItems')) out.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  childRules(s, path, pos, isRoot, opts, out);
  nodeRules(s, path, opts, out);
}

/** The OpenAPI rules of a whole schema, `path` naming its root (`spec.validation.openAPIV3Schema`). */
export function openAPISchemaErrors(root: SchemaNode, path: string, opts: SchemaRuleOptions): FieldError[] {
  const out: FieldError[] = [];
  walk(root, path, { allowDefaults: opts.allowDefaults, disallowDefaultsReason: '', insideResourceMeta: false }, true, opts, out);
  return out;
}
