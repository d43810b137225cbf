// Validation of CustomResourceDefinitions as apiextensions.k8s.io/v1 has it. Upstream validates the
// internal form, into which v1's per-version schema, subresources, printer columns and selectable
// fields are hoisted to spec.validation, spec.subresources, spec.additionalPrinterColumns and
// spec.selectableFields when every version has the same; clients see errors at those paths, so
// they are reported there here too. On update some rules relax for what is already stored
// (upstream ratchets them), and names become fixed once the definition is established.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { immutable, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { isDNS1123Subdomain } from '../../../api/validation.js';
import { jsonEqual } from '../../../patch/json-value.js';
import { dns1035Error, validateNames } from './crd-names.js';
import {
  asJson,
  hasRecognizedReviewVersionOrEmpty,
  validateApproval,
  validateColumn,
  validateConversion,
  validateDeprecationWarning,
  validateStoredVersions,
  validateSubresources,
} from './crd-parts.js';
import { mapListKeysMapSetErrors, OPENAPI_V3_TYPES } from './openapi-rules.js';
import { hasUnprunedDefaults } from './schema-defaults.js';
import { hasDefault, isNode, itemSchema, own, schemaHas, strOf, type SchemaNode } from './schema-props.js';
import { isStructural } from './structural-schema.js';
import { ruleExpressions } from './validation-rule-errors.js';
import { validateSchemaBlock, validateSelectableFields, type SchemaOptions } from './version-schema.js';

type Json = Record<string, unknown>;

/** Whether a group is one the server serves built in (either spelling); a definition may not claim it. */
export type BuiltinGroupCheck = (group: string) => boolean;

export interface CrdOptions {
  schema: SchemaOptions;
  requireOpenAPISchema: boolean;
  requireRecognizedConversionReviewVersion: boolean;
  /** Scope and kind fixed (the definition is established). */
  requireImmutableNames: boolean;
}

const CREATE_OPTIONS: CrdOptions = {
  schema: { allowDefaults: true, requireValidPropertyType: true, requireStructural: true, requirePrunedDefaults: true, requireAtomicSetType: true, requireMapListKeysMapSetValidation: true },
  requireOpenAPISchema: true,
  requireRecognizedConversionReviewVersion: true,
  requireImmutableNames: false,
};

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function specOf(o: ApiObject): Json {
  return asJson(o.spec) ?? {};
}

function versionsOf(spec: Json): Json[] {
  return Array.isArray(spec.versions) ? spec.versions.map((v) => asJson(v) ?? {}) : [];
}

function schemasOf(spec: Json): SchemaNode[] {
  return versionsOf(spec)
    .map((v) => own(asJson(v.schema) ?? {}, 'openAPIV3Schema'))
    .filter(isNode);
}

// What upstream's conversion compares: an absent list and an empty one are the same.
function perVersion(v: Json, key: string): unknown {
  const x = v[key];
  if (x === null || (Array.isArray(x) && x.length === 0)) return undefined;
  return x;
}

/** A per-version field all versions share (validated once at `spec.<key>`), or undefined when they differ. */
function shared(versions: Json[], key: string): { value: unknown } | undefined {
  if (versions.length === 0) return undefined;
  const first = perVersion(versions[0]!, key);
  return versions.every((v) => jsonEqual(perVersion(v, key), first)) ? { value: first } : undefined;
}

function hasStatus(sub: unknown): boolean {
  return asJson(asJson(sub)?.status) !== undefined;
}

function validateGroup(group: string, isBuiltinGroup: BuiltinGroupCheck): FieldError[] {
  if (!group) return [required('spec.group')];
  const problems = isDNS1123Subdomain(group, 'spec.group');
  if (problems.length) return [invalidValue('spec.group', group, problems.map((e) => e.detail).join(','))];
  if (group.split('.').length < 2) return [invalidValue('spec.group', group, 'should be a domain with at least one dot')];
  if (isBuiltinGroup(group)) return [invalidValue('spec.group', group, 'must not be a group the server serves built in')];
  return [];
}

function validateColumns(columns: unknown, path: string): FieldError[] {
  return (Array.isArray(columns) ? columns : []).flatMap((c, i) => validateColumn(asJson(c) ?? {}, `${path}[${i}]`));
}

interface Hoisted {
  schema?: { value: unknown };
  subresources?: { value: unknown };
  columns?: { value: unknown };
  selectableFields?: { value: unknown };
}

function validateVersion(v: Json, i: number, hoisted: Hoisted, opts: CrdOptions): FieldError[] {
  const path = `spec.versions[${i}]`;
  const errs: FieldError[] = [...dns1035Error(`${path}.name`, str(v.name))];
  errs.push(...validateDeprecationWarning(v, `${path}.deprecationWarning`));
  if (!hoisted.schema) errs.push(...validateSchemaBlock(v.schema, hasStatus(v.subresources), opts.schema, `${path}.schema`));
  if (!hoisted.subresources) errs.push(...validateSubresources(v.subresources, `${path}.subresources`));
  if (!hoisted.columns) errs.push(...validateColumns(v.additionalPrinterColumns, `${path}.additionalPrinterColumns`));
  if (!hoisted.selectableFields) {
    const fields = Array.isArray(v.selectableFields) ? v.selectableFields : [];
    const block = hoisted.schema ? undefined : v.schema;
    errs.push(...validateSelectableFields(fields, block, `${path}.selectableFields`, `${path}.schema`, 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
  }
  return errs;
}

function validateVersions(versions: Json[], hoisted: Hoisted, opts: CrdOptions): FieldError[] {
  const errs = versions.flatMap((v, i) => validateVersion(v, i, hoisted, opts));
  const names = versions.map((v) => str(v.name));
  if (new Set(names).size !== names.length) errs.push(invalidValue('spec.versions', undefined, 'must contain unique version names'));
  if (versions.filter((v) => v.storage === true).length !== 1) errs.push(invalidValue('spec.versions', undefined, 'must have exactly one version marked as storage version'));
  // The internal form's spec.version is the first version's name, and is checked again there.
  if (names[0]) errs.push(...dns1035Error('spec.version', names[0]));
  return errs;
}

function schemaRequirements(spec: Json, versions: Json[], opts: CrdOptions): FieldError[] {
  const missing = versions.flatMap((v, i) => (isNode(own(asJson(v.schema) ?? {}, 'openAPIV3Schema')) ? [] : [{ v, i }]));
  if (opts.requireOpenAPISchema) return missing.map(({ i }) => required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
  if (spec.preserveUnknownFields === true) return [];
  return missing.filter(({ v }) => v.served === true).map(({ i }) => required(`spec.versions[${i}].schema.openAPIV3Schema`, 'because otherwise all fields are pruned'));
}

function hasKubernetesExtensions(s: SchemaNode): boolean {
  return schemaHas(
    s,
    (n) =>
      ['x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'].some((k) => own(n, k) === true) ||
      own(n, 'x-kubernetes-preserve-unknown-fields') !== undefined ||
      ['x-kubernetes-list-map-keys', 'x-kubernetes-validations'].some((k) => Array.isArray(own(n, k)) && (own(n, k) as unknown[]).length > 0) ||
      typeof own(n, 'x-kubernetes-list-type') === 'string',
  );
}

function validateSpec(spec: Json, opts: CrdOptions, isBuiltinGroup: BuiltinGroupCheck): FieldError[] {
  const errs = validateGroup(str(spec.group), isBuiltinGroup);
  const scope = str(spec.scope);
  if (!scope) errs.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(unsupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  const preserve = spec.preserveUnknownFields === true;
  const versions = versionsOf(spec);
  const schemas = schemasOf(spec);
  let requireStructural = opts.schema.requireStructural || !preserve;
  errs.push(...schemaRequirements(spec, versions, opts));
  if (opts.schema.allowDefaults && schemas.some((s) => schemaHas(s, hasDefault))) {
    requireStructural = true;
    if (preserve) errs.push(invalidValue('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }
  if (schemas.some(hasKubernetesExtensions)) requireStructural = true;
  const o: CrdOptions = { ...opts, schema: { ...opts.schema, requireStructural } };
  const hoisted: Hoisted = {
    schema: shared(versions, 'schema'),
    subresources: shared(versions, 'subresources'),
    columns: shared(versions, 'additionalPrinterColumns'),
    selectableFields: shared(versions, 'selectableFields'),
  };
  errs.push(...validateVersions(versions, hoisted, o));
  const names = asJson(spec.names) ?? {};
  for (const k of ['plural', 'singular', 'kind', 'listKind']) if (!str(names[k])) errs.push(required(`spec.names.${k}`));
  errs.push(...validateNames(names, 'spec.names'));
  errs.push(...validateHoisted(versions, hoisted, o));
  const conversion = asJson(spec.conversion);
  if (conversion && str(conversion.strategy) !== 'None' && preserve) errs.push(invalidValue('spec.conversion.strategy', conversion.strategy, 'must be None if spec.preserveUnknownFields is true'));
  errs.push(...validateConversion(spec.conversion, opts.requireRecognizedConversionReviewVersion));
  return errs;
}

function validateHoisted(versions: Json[], hoisted: Hoisted, opts: CrdOptions): FieldError[] {
  const anyStatus = versions.some((v) => hasStatus(v.subresources));
  const errs: FieldError[] = [];
  if (hoisted.schema) errs.push(...validateSchemaBlock(hoisted.schema.value, anyStatus, opts.schema, 'spec.validation'));
  if (hoisted.subresources) errs.push(...validateSubresources(hoisted.subresources.value, 'spec.subresources'));
  if (hoisted.columns) errs.push(...validateColumns(hoisted.columns.value, 'spec.additionalPrinterColumns'));
  const fields = hoisted.selectableFields?.value;
  if (Array.isArray(fields)) {
    const why = 'selectableFields may only be set when validations.schema is included';
    // Selectable fields shared by all versions point into the shared schema, and need one.
    const block = hoisted.schema?.value;
    errs.push(...(block === undefined ? [invalidValue('spec.selectableFields', '', why)] : validateSelectableFields(fields, block, 'spec.selectableFields', 'spec.schema', why)));
  }
  return errs;
}

function statusOf(o: ApiObject): Json {
  return asJson(o.status) ?? {};
}

function annotationsOf(o: ApiObject): Record<string, unknown> {
  return (o.metadata?.annotations as Record<string, unknown> | undefined) ?? {};
}

function validateStatusParts(o: ApiObject): FieldError[] {
  const status = statusOf(o);
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  return [...validateNames(asJson(status.acceptedNames) ?? {}, 'status.acceptedNames'), ...validateStoredVersions(stored, versionsOf(specOf(o)))];
}

function validatePreserveUnknownFields(o: ApiObject, old?: ApiObject): FieldError[] {
  if (old && specOf(old).preserveUnknownFields === true) return [];
  if (specOf(o).preserveUnknownFields !== true) return [];
  return [invalidValue('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

function validateMetadataName(o: ApiObject): FieldError[] {
  const spec = specOf(o);
  const name = o.metadata?.name ?? '';
  const want = `${str(asJson(spec.names)?.plural)}.${str(spec.group)}`;
  return name && name !== want ? [invalidValue('metadata.name', name, 'must be spec.names.plural+"."+spec.group')] : [];
}

/** The create rules (the ones of every create of a CustomResourceDefinition). */
export function validateCustomResourceDefinition(o: ApiObject, isBuiltinGroup: BuiltinGroupCheck): FieldError[] {
  const spec = specOf(o);
  return [
    ...validateMetadataName(o),
    ...validateSpec(spec, CREATE_OPTIONS, isBuiltinGroup),
    ...validateStatusParts(o),
    ...validateApproval(str(spec.group), annotationsOf(o)),
    ...validatePreserveUnknownFields(o),
  ];
}

function established(o: ApiObject): boolean {
  const conditions = Array.isArray(statusOf(o).conditions) ? (statusOf(o).conditions as unknown[]) : [];
  return conditions.some((c) => asJson(c)?.type === 'Established' && asJson(c)?.status === 'True');
}

/** The rules stored definitions already break are not imposed on their updates (upstream ratchets them). */
function updateOptions(old: ApiObject): CrdOptions {
  const spec = specOf(old);
  const schemas = schemasOf(spec);
  const some = (pred: (s: SchemaNode) => boolean) => schemas.some((s) => schemaHas(s, pred));
  const conversion = asJson(spec.conversion);
  const reviewVersions = asJson(conversion?.webhook)?.conversionReviewVersions;
  const nonAtomicSet = (s: SchemaNode) => {
    const items = own(s, 'x-kubernetes-list-type') === 'set' ? itemSchema(s) : undefined;
    if (!items) return false;
    if (strOf(items, 'type') === 'array') return typeof own(items, 'x-kubernetes-list-type') === 'string' && own(items, 'x-kubernetes-list-type') !== 'atomic';
    return strOf(items, 'type') === 'object' && own(items, 'x-kubernetes-map-type') !== 'atomic';
  };
  return {
    schema: {
      allowDefaults: true,
      requireValidPropertyType: !some((s) => strOf(s, 'type') !== '' && !OPENAPI_V3_TYPES.includes(strOf(s, 'type'))),
      requireStructural: schemas.every(isStructural),
      requirePrunedDefaults: !schemas.some((s) => isStructural(s) && hasUnprunedDefaults(s)),
      requireAtomicSetType: !some(nonAtomicSet),
      requireMapListKeysMapSetValidation: !some((s) => mapListKeysMapSetErrors(s, '').length > 0),
      preexistingRules: new Set(schemas.flatMap(ruleExpressions)),
    },
    requireOpenAPISchema: versionsOf(spec).every((v) => isNode(own(asJson(v.schema) ?? {}, 'openAPIV3Schema'))),
    requireRecognizedConversionReviewVersion: !conversion || hasRecognizedReviewVersionOrEmpty(Array.isArray(reviewVersions) ? reviewVersions : []),
    requireImmutableNames: established(old),
  };
}

function immutability(spec: Json, oldSpec: Json, opts: CrdOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = asJson(spec.names) ?? {};
  const oldNames = asJson(oldSpec.names) ?? {};
  // Scope and kind are part of how objects are stored and served once the definition is established.
  if (opts.requireImmutableNames) {
    if (spec.scope !== oldSpec.scope) errs.push(immutable('spec.scope', spec.scope));
    if (names.kind !== oldNames.kind) errs.push(immutable('spec.names.kind', names.kind));
  }
  // Group and plural make the object's name, which never changes.
  if (spec.group !== oldSpec.group) errs.push(immutable('spec.group', spec.group));
  if (names.plural !== oldNames.plural) errs.push(immutable('spec.names.plural', names.plural));
  return errs;
}

/** The update rules of the main resource. */
export function validateCustomResourceDefinitionUpdate(o: ApiObject, old: ApiObject, isBuiltinGroup: BuiltinGroupCheck): FieldError[] {
  const opts = updateOptions(old);
  const spec = specOf(o);
  return [
    ...validateSpec(spec, opts, isBuiltinGroup),
    ...immutability(spec, specOf(old), opts),
    ...validateStatusParts(o),
    ...validateApproval(str(spec.group), annotationsOf(o), annotationsOf(old)),
    ...validatePreserveUnknownFields(o, old),
  ];
}

/** Updates through /status: only the accepted names are checked. */
export function validateCustomResourceDefinitionStatus(o: ApiObject): FieldError[] {
  return validateNames(asJson(statusOf(o).acceptedNames) ?? {}, 'status.acceptedNames');
}
