// One schema of a CustomResourceDefinition (`schema.openAPIV3Schema` of a version, or the one all
// versions share) checked as upstream checks it: the root restrictions a status subresource
// brings, structural-ness, defaults, the OpenAPI rules, and the selectable fields that point into it.

import type { FieldError } from '../../../api/status.js';
import { duplicate, forbidden, invalidValue, required, tooMany } from '../../../api/field-errors.js';
import { resolveFieldPath } from './field-path.js';
import { openAPISchemaErrors, type SchemaRuleOptions } from './openapi-rules.js';
import { defaultsErrors } from './schema-defaults.js';
import { flag, isNode, own, strOf, type SchemaNode } from './schema-props.js';
import { structuralInitError, validateStructural } from './structural-schema.js';
import { validationRuleErrors } from './validation-rule-errors.js';

export interface SchemaOptions extends SchemaRuleOptions {
  requireStructural: boolean;
  requirePrunedDefaults: boolean;
  /** Validation rules the stored definition already has: an update need not compile them again. */
  preexistingRules?: ReadonlySet<string>;
}

// JSONSchemaProps fields in Go's order, with their Go names: the status-root rule reports the first
// one set that is not allowed.
const ROOT_FIELDS: ReadonlyArray<[string, string]> = [
  ['id', 'ID'],
  ['$schema', 'Schema'],
  ['$ref', 'Ref'],
  ['description', 'Description'],
  ['type', 'Type'],
  ['format', 'Format'],
  ['title', 'Title'],
  ['default', 'Default'],
  ['maximum', 'Maximum'],
  ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'],
  ['exclusiveMinimum', 'ExclusiveMinimum'],
  ['maxLength', 'MaxLength'],
  ['minLength', 'MinLength'],
  ['pattern', 'Pattern'],
  ['maxItems', 'MaxItems'],
  ['minItems', 'MinItems'],
  ['uniqueItems', 'UniqueItems'],
  ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'],
  ['maxProperties', 'MaxProperties'],
  ['minProperties', 'MinProperties'],
  ['required', 'Required'],
  ['items', 'Items'],
  ['allOf', 'AllOf'],
  ['oneOf', 'OneOf'],
  ['anyOf', 'AnyOf'],
  ['not', 'Not'],
  ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'],
  ['patternProperties', 'PatternProperties'],
  ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'],
  ['definitions', 'Definitions'],
  ['externalDocs', 'ExternalDocs'],
  ['example', 'Example'],
  ['nullable', 'Nullable'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource'],
  ['x-kubernetes-int-or-string', 'XIntOrString'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys'],
  ['x-kubernetes-list-type', 'XListType'],
  ['x-kubernetes-map-type', 'XMapType'],
  ['x-kubernetes-validations', 'XValidations'],
];

const ALLOWED_AT_STATUS_ROOT = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];

/** With a status subresource the status schema is taken out as properties[status]: nothing at the root may constrain it. */
function statusRootErrors(schema: SchemaNode, path: string): FieldError[] {
  for (const [key, goName] of ROOT_FIELDS) {
    const v = own(schema, key);
    if (v === undefined || v === null || v === false || v === '') continue;
    if (goName === 'Type') {
      if (v === 'object') continue;
      return [invalidValue(`${path}.openAPIV3Schema.type`, v, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
    }
    if (!ALLOWED_AT_STATUS_ROOT.includes(goName))
      return [invalidValue(`${path}.openAPIV3Schema`, 'object', `only [${ALLOWED_AT_STATUS_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`)];
  }
  return [];
}

/**
 * The errors of one `{openAPIV3Schema}` block at `path` (`spec.validation` when every version has
 * the same schema, else `spec.versions[i].schema`, as upstream reports them).
 */
export function validateSchemaBlock(block: unknown, statusEnabled: boolean, opts: SchemaOptions, path: string): FieldError[] {
  const schema = isNode(block) ? own(block, 'openAPIV3Schema') : undefined;
  if (!isNode(schema)) return [];
  const root = `${path}.openAPIV3Schema`;
  const errs: FieldError[] = statusEnabled ? statusRootErrors(schema, path) : [];
  if (flag(schema, 'nullable')) errs.push(forbidden(`${root}.nullable`, 'nullable cannot be true at the root'));
  const initErrs: FieldError[] = [];
  if (opts.requireStructural) {
    const init = structuralInitError(schema);
    if (init) initErrs.push(invalidValue(root, '', init));
    else {
      const structural = validateStructural(schema, root);
      errs.push(...(structural.length ? structural : defaultsErrors(schema, root, opts.requirePrunedDefaults)));
    }
  }
  errs.push(...openAPISchemaErrors(schema, root, opts));
  // The rules' CEL is compiled against a schema without other errors (upstream skips it past them).
  if (errs.length === 0 && initErrs.length === 0) errs.push(...validationRuleErrors(schema, root, opts.preexistingRules));
  // Reading errors overlap the OpenAPI rules' errors; they only add something when those found nothing.
  return errs.length ? errs : initErrs;
}

const SELECTABLE_TYPES = ['string', 'boolean', 'integer'];
const MAX_SELECTABLE_FIELDS = 8;

function selectableFieldErrors(field: unknown, i: number, schema: SchemaNode, path: string, seen: Set<string>): FieldError[] {
  const at = `${path}[${i}].jsonPath`;
  const jsonPath = isNode(field) ? strOf(field, 'jsonPath') : '';
  if (!jsonPath) return [required(at, '')];
  const resolved = resolveFieldPath(jsonPath, schema, false);
  if (typeof resolved === 'string') return [invalidValue(at, jsonPath, `is an invalid path: ${resolved}`)];
  const errs: FieldError[] = [];
  if (resolved.segments[0] === 'metadata') errs.push(invalidValue(at, jsonPath, 'must not point to fields in metadata'));
  if (!SELECTABLE_TYPES.includes(strOf(resolved.schema, 'type')))
    errs.push(invalidValue(at, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
  const key = resolved.segments.join('.');
  if (seen.has(key)) errs.push(duplicate(at, jsonPath));
  seen.add(key);
  return errs;
}

/**
 * `selectableFields` at `path`, pointing into the schema of `block` (`schemaPath` names it);
 * `missingSchema` is upstream's message for fields without a schema to point into.
 */
export function validateSelectableFields(fields: unknown[], block: unknown, path: string, schemaPath: string, missingSchema: string): FieldError[] {
  if (fields.length === 0) return [];
  const schema = isNode(block) ? own(block, 'openAPIV3Schema') : undefined;
  if (!isNode(schema)) return [invalidValue(path, '', missingSchema)];
  const init = structuralInitError(schema);
  if (init) return [invalidValue(`${schemaPath}.openAPIV3Schema`, '', init)];
  const seen = new Set<string>();
  const errs = fields.flatMap((f, i) => selectableFieldErrors(f, i, schema, path, seen));
  if (seen.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(path, MAX_SELECTABLE_FIELDS));
  return errs;
}
