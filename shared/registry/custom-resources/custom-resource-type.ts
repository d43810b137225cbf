// A CustomResourceDefinition as the registry's ResourceType: what the server serves for it once it
// is Established. Pure: the definition is already valid (its own strategy checked it when it was
// written); this only reads it. The served names are the accepted ones (status.acceptedNames),
// as upstream serves them, so a name another definition holds is never served twice.

import type { ApiObject, JsonSchema } from '../../api/types.js';
import type { TableColumn } from '../../api/table-column.js';
import { objectMetaSchema } from '../object-meta.js';
import { DEFAULT_VERBS, type ResourceType, type Subresources, type VersionDef } from '../types.js';
import { compileJsonPath, type JsonPath } from './json-path.js';
import { since } from '../builtin/common/columns.js';
import { RuleValidator } from './validation-rules.js';
import { selectableFieldGetters } from './selectable-fields.js';

interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

interface CrdColumn {
  name: string;
  type: TableColumn['type'];
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JsonSchema };
  subresources?: { status?: object; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
  additionalPrinterColumns?: CrdColumn[];
  selectableFields?: Array<{ jsonPath: string }>;
}

interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
}

/** Whether the definition's Established condition is True: only then are its resources served. */
export function isEstablished(crd: ApiObject): boolean {
  const conditions = (crd.status as { conditions?: Array<{ type?: string; status?: string }> } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

export interface CustomResourceOptions {
  /**
   * Evaluate the schemas' `x-kubernetes-validations` rules on writes (the
   * CustomResourceValidationExpressions gate); they are compiled here, once per definition revision.
   */
  validationRules?: boolean;
}

/** The type the definition defines, with its accepted names (its spec's names before any are accepted). */
export function customResourceType(crd: ApiObject, opts: CustomResourceOptions = {}): ResourceType {
  const spec = crd.spec as unknown as CrdSpec;
  const accepted = (crd.status as { acceptedNames?: CrdNames } | undefined)?.acceptedNames;
  const names = accepted?.plural && accepted.kind ? accepted : spec.names;
  const storage = spec.versions.find((v) => v.storage) ?? spec.versions[0]!;
  const kind = names.kind;
  const type: ResourceType = {
    group: spec.group,
    kind,
    listKind: names.listKind || `${kind}List`,
    plural: names.plural,
    singular: names.singular || kind.toLowerCase(),
    scope: spec.scope,
    unstructured: true,
    ...(names.shortNames?.length ? { shortNames: [...names.shortNames] } : {}),
    ...(names.categories?.length ? { categories: [...names.categories] } : {}),
    storageVersion: storage.name,
    // Subresources and columns are each version's own, as upstream serves them: a request takes
    // those of the version it comes through. The type declares none.
    versions: spec.versions.map((v) => versionDef(spec.group, kind, v)),
  };
  if (opts.validationRules) withValidationRules(type, spec);
  // A definition being deleted is still served, so that its objects can be listed and deleted,
  // but takes no new ones (upstream answers 405 too).
  if (crd.metadata.deletionTimestamp) type.verbs = DEFAULT_VERBS.filter((v) => v !== 'create');
  return type;
}

function versionDef(group: string, kind: string, v: CrdVersion): VersionDef {
  // An empty set, not an absent one, for a version without subresources: it must not fall back to the type's.
  const def: VersionDef = {
    name: v.name,
    schema: customResourceBody(v.schema?.openAPIV3Schema),
    subresources: subresourcesOf(v),
    columns: printerColumns(v.additionalPrinterColumns),
    // Read from the stored object: with conversion None it differs from this version's only in apiVersion.
    fieldSelectors: selectableFieldGetters(v.selectableFields),
  };
  if (!v.served) def.served = false;
  if (v.deprecated) def.deprecation = { since: '', warning: v.deprecationWarning ?? `${group}/${v.name} ${kind} is deprecated` };
  return def;
}

/**
 * Each version's rules check writes through it: creates by the version's `validate`, updates (the
 * main resource, /status and /scale alike, as upstream) by the strategy, which takes the rules of
 * the version the object is in when it is checked (its apiVersion).
 */
function withValidationRules(type: ResourceType, spec: CrdSpec): void {
  const validators = new Map<string, RuleValidator>();
  for (const v of spec.versions) {
    const validator = RuleValidator.of(v.schema?.openAPIV3Schema);
    const def = type.versions.find((d) => d.name === v.name);
    if (!validator || !def) continue;
    validators.set(v.name, validator);
    def.validate = (obj) => validator.validate(obj);
  }
  if (validators.size === 0) return;
  type.strategy = {
    validateUpdate: (obj, old) => {
      const version = typeof obj.apiVersion === 'string' ? obj.apiVersion.slice(obj.apiVersion.indexOf('/') + 1) : '';
      return validators.get(version)?.validate(obj, old) ?? [];
    },
  };
}

function subresourcesOf(v: CrdVersion): Subresources {
  const s = v.subresources;
  if (!s?.status && !s?.scale) return {};
  return {
    ...(s.status ? { status: true } : {}),
    ...(s.scale
      ? {
          scale: { specReplicasPath: s.scale.specReplicasPath, statusReplicasPath: s.scale.statusReplicasPath, ...(s.scale.labelSelectorPath ? { labelSelectorPath: s.scale.labelSelectorPath } : {}) },
        }
      : {}),
  };
}

/**
 * Upstream's columns after Name: the version's, or Age alone when it names none. A column whose
 * JSONPath the server cannot read ends the list there (validation only asks for a path starting
 * with `.`): upstream's table convertor serves the columns before it, and so does this one.
 */
export function printerColumns(columns: CrdColumn[] | undefined): TableColumn[] {
  const list = columns?.length
    ? columns
    : [{ name: 'Age', type: 'date' as const, jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' }];
  const out: TableColumn[] = [];
  for (const c of list) {
    const path = readablePath(c.jsonPath);
    if (!path) break;
    out.push({
      name: c.name,
      type: c.type,
      ...(c.format ? { format: c.format } : {}),
      // Upstream describes a column that has no description by its path.
      description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      ...(c.priority ? { priority: c.priority } : {}),
      cell: (obj: ApiObject) => cellValue(c.type, path(obj)[0]),
    });
  }
  return out;
}

function readablePath(jsonPath: string): JsonPath | undefined {
  try {
    return compileJsonPath(jsonPath);
  } catch {
    return undefined;
  }
}

/** One cell as upstream's table convertor fills it: the first match, null when it has none or its type does not fit. */
function cellValue(type: TableColumn['type'], value: unknown): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      // As upstream: an age ("5m"), `<unknown>` for an empty timestamp, `<invalid>` for one that is not RFC 3339.
      if (typeof value !== 'string') return null;
      return value === '' ? '<unknown>' : Number.isNaN(Date.parse(value)) ? '<invalid>' : since(value);
    default:
      return null;
  }
}

/**
 * The registry's body schema (everything but apiVersion, kind and metadata, which it adds) from a
 * version's openAPIV3Schema. A structural schema prunes what it does not name, so a root without
 * properties keeps nothing but the object's identity — unlike a built-in body that models nothing.
 * Embedded resources carry their own apiVersion, kind and ObjectMeta.
 */
export function customResourceBody(openAPIV3Schema: JsonSchema | undefined): JsonSchema {
  const root = embedResources(structuredClone(openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }));
  const props = { ...((root.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  delete props.apiVersion;
  delete props.kind;
  delete props.metadata;
  return { ...root, properties: props };
}

function embedResources(node: JsonSchema): JsonSchema {
  for (const key of ['properties', 'patternProperties'] as const) {
    const map = node[key] as Record<string, JsonSchema> | undefined;
    if (map) for (const k of Object.keys(map)) map[k] = embedResources(map[k]!);
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    const sub = node[key];
    if (sub && typeof sub === 'object' && !Array.isArray(sub)) node[key] = embedResources(sub as JsonSchema);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[key] as JsonSchema[] | undefined;
    if (Array.isArray(list)) node[key] = list.map(embedResources);
  }
  if (node['x-kubernetes-embedded-resource'] === true && node['x-kubernetes-preserve-unknown-fields'] !== true) {
    node.properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMetaSchema, ...((node.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  }
  return node;
}
