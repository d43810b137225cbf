// OpenAPI documents built from the registry: swagger 2.0 (`/openapi/v2`), the OpenAPI v3 root
// (`/openapi/v3`) and one v3 document per group version (`/openapi/v3/apis/<g>/<v>`). kubectl reads
// them for `explain`, client-side validation and to learn whether the server supports server-side
// field validation (a `fieldValidation` query parameter on the PATCH operation of a kind), so the
// vendor extensions and parameter placement follow upstream exactly. Pure: built once at boot.

import { CORE_VERSION, resourceVerbs, serializeDocument, subresourcesOf } from './discovery.js';
import type { DiscoverySource, GroupVersionKindRef, SerializedDocument, ServedResource } from './discovery.js';
import { listMetaSchema, managedFieldsEntrySchema, objectMetaSchema, ownerReferenceSchema } from './object-meta.js';
import type { JsonSchema } from '../api/types.js';

/** What OpenAPI needs from the registry; `Registry` satisfies it structurally. */
export interface OpenApiSource extends DiscoverySource {
  /** Full object schema including apiVersion/kind/metadata. */
  objectSchema(served: ServedResource): JsonSchema;
}

export interface OpenApiInfo {
  title?: string;
  version?: string;
}

export type OpenApiDialect = 'v2' | 'v3';
export type OpenApiDocument = Record<string, unknown>;

const DEFAULT_INFO = { title: 'Platform', version: 'v1.32.0' };

// ---------------------------------------------------------------------------------------------
// Definition names

const META = 'io.platform.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META_DEF = `${META}.ObjectMeta`;
export const LIST_META_DEF = `${META}.ListMeta`;
export const STATUS_DEF = `${META}.Status`;
export const DELETE_OPTIONS_DEF = `${META}.DeleteOptions`;
export const WATCH_EVENT_DEF = `${META}.WatchEvent`;
export const PATCH_DEF = `${META}.Patch`;
const OWNER_REFERENCE_DEF = `${META}.OwnerReference`;
const MANAGED_FIELDS_DEF = `${META}.ManagedFieldsEntry`;
const STATUS_DETAILS_DEF = `${META}.StatusDetails`;
const STATUS_CAUSE_DEF = `${META}.StatusCause`;
const PRECONDITIONS_DEF = `${META}.Preconditions`;
const API_VERSIONS_DEF = `${META}.APIVersions`;
const API_GROUP_LIST_DEF = `${META}.APIGroupList`;
const API_GROUP_DEF = `${META}.APIGroup`;
const API_RESOURCE_LIST_DEF = `${META}.APIResourceList`;
const API_RESOURCE_DEF = `${META}.APIResource`;
const GROUP_VERSION_DEF = `${META}.GroupVersionForDiscovery`;
const SERVER_ADDRESS_DEF = `${META}.ServerAddressByClientCIDR`;
const RAW_EXTENSION_DEF = 'io.platform.apimachinery.pkg.runtime.RawExtension';
const VERSION_INFO_DEF = 'io.platform.apimachinery.pkg.version.Info';

const BRAND_SUFFIX = '.platform.io';

/**
 * `io.platform.api.<package>.<version>.<Kind>`: the package is `core` for the core group and the
 * first label of a built-in group (`rbac.authorization.platform.io` → `rbac`), as upstream names its
 * Go packages. Groups outside the brand domain use the reversed domain, like upstream CRDs.
 */
export function definitionName(group: string, version: string, kind: string): string {
  if (!group) return `io.platform.api.core.${version}.${kind}`;
  if (!group.includes('.')) return `io.platform.api.${group}.${version}.${kind}`;
  if (group.endsWith(BRAND_SUFFIX)) return `io.platform.api.${group.split('.')[0]}.${version}.${kind}`;
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function refTo(name: string, description?: string): JsonSchema {
  return description ? { $ref: `#/definitions/${name}`, description } : { $ref: `#/definitions/${name}` };
}

// ---------------------------------------------------------------------------------------------
// Schema conversion (JSON schema draft-07 subset → OpenAPI v2 / v3.0 schema objects)

// Keywords that OpenAPI schema objects do not have; dropping them loses nothing a client uses.
const DROPPED = new Set([
  '$schema',
  '$id',
  '$comment',
  '$defs',
  'definitions',
  'examples',
  'if',
  'then',
  'else',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'propertyNames',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contentMediaType',
  'contentEncoding',
]);

/**
 * Converts one schema (recursively) to the given dialect. Refs are written `#/definitions/<name>`
 * in the neutral form and become `#/components/schemas/<name>` in v3. `x-kubernetes-int-or-string`
 * becomes `type: string, format: int-or-string` in v2 and an integer/string `anyOf` in v3.
 */
export function convertSchema(schema: JsonSchema, dialect: OpenApiDialect): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    switch (key) {
      case 'const':
        out.enum = [value];
        break;
      case 'type':
        if (Array.isArray(value)) {
          const types = value.filter((t) => t !== 'null');
          if (types.length === 1) out.type = types[0];
          if (types.length !== value.length && dialect === 'v3') out.nullable = true;
        } else out.type = value;
        break;
      case 'nullable':
        if (dialect === 'v3') out.nullable = value;
        break;
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, convertSchema(v, dialect)]));
        break;
      case 'items':
        // Tuple validation does not exist in OpenAPI; the first item's schema is the best fit.
        if (Array.isArray(value)) out.items = value.length ? convertSchema(value[0] as JsonSchema, dialect) : {};
        else if (isObject(value)) out.items = convertSchema(value, dialect);
        break;
      case 'additionalProperties':
        // Booleans are dropped: unknown fields are the server's field validation's business, and
        // kubectl's v2 model parser treats only schema-valued additionalProperties as maps.
        if (isObject(value)) out.additionalProperties = convertSchema(value, dialect);
        break;
      case 'allOf':
        out.allOf = (value as JsonSchema[]).map((s) => convertSchema(s, dialect));
        break;
      case 'anyOf':
      case 'oneOf':
        if (dialect === 'v3') out[key] = (value as JsonSchema[]).map((s) => convertSchema(s, dialect));
        break;
      case 'not':
        if (dialect === 'v3' && isObject(value)) out.not = convertSchema(value, dialect);
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'number') {
          out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
          out[key] = true;
        } else out[key] = value;
        break;
      case 'required':
        if (Array.isArray(value) && value.length) out.required = [...value];
        break;
      case '$ref':
        out.$ref = dialect === 'v3' ? String(value).replace('#/definitions/', '#/components/schemas/') : value;
        break;
      default:
        out[key] = value;
    }
  }
  if (out['x-kubernetes-int-or-string'] === true) {
    delete out.anyOf;
    delete out.oneOf;
    if (dialect === 'v2') {
      out.type = 'string';
      out.format = 'int-or-string';
    } else {
      delete out.type;
      delete out.format;
      out.anyOf = [{ type: 'integer' }, { type: 'string' }];
    }
  }
  if (out.$ref !== undefined && Object.keys(out).length > 1) {
    // v2 ignores siblings of $ref (keep only the description); v3 needs allOf to carry them.
    if (dialect === 'v2') return out.description ? { $ref: out.$ref, description: out.description } : { $ref: out.$ref };
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

function isObject(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Shared definitions (neutral form)

const str = (description?: string): JsonSchema => (description ? { type: 'string', description } : { type: 'string' });
const int = (format: 'int32' | 'int64', description?: string): JsonSchema => ({ type: 'integer', format, ...(description ? { description } : {}) });
const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const strArray = (description?: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, ...(description ? { description } : {}) });
const apiVersionProp = str('APIVersion defines the versioned schema of this representation of an object.');
const kindProp = str('Kind is a string value representing the REST resource this object represents.');

function gvkExt(gvks: GroupVersionKindRef[]): JsonSchema {
  return { 'x-kubernetes-group-version-kind': gvks.map((g) => ({ group: g.group, version: g.version, kind: g.kind })) };
}

function addGvk(def: JsonSchema, gvk: GroupVersionKindRef): void {
  const list = def['x-kubernetes-group-version-kind'];
  if (Array.isArray(list)) list.push({ group: gvk.group, version: gvk.version, kind: gvk.kind });
}

function withProps(schema: JsonSchema, replace: Record<string, JsonSchema>): JsonSchema {
  return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), ...replace } };
}

/** Meta definitions; DeleteOptions and WatchEvent carry the GVK of every served group version,
 *  as upstream (they are accepted in every group version). */
function metaDefinitions(allGvs: Array<{ group: string; version: string }>): Map<string, JsonSchema> {
  const everyGv = (kind: string) => gvkExt(allGvs.map((gv) => ({ ...gv, kind })));
  const objectMetaProps = objectMetaSchema.properties as Record<string, JsonSchema>;
  const defs = new Map<string, JsonSchema>();
  defs.set(OWNER_REFERENCE_DEF, ownerReferenceSchema);
  defs.set(MANAGED_FIELDS_DEF, managedFieldsEntrySchema);
  defs.set(
    OBJECT_META_DEF,
    withProps(objectMetaSchema, {
      ownerReferences: { ...objectMetaProps.ownerReferences, items: refTo(OWNER_REFERENCE_DEF) },
      managedFields: { ...objectMetaProps.managedFields, items: refTo(MANAGED_FIELDS_DEF) },
    }),
  );
  defs.set(LIST_META_DEF, listMetaSchema);
  defs.set(STATUS_CAUSE_DEF, {
    type: 'object',
    description: 'One cause of an error: which field, why, and a readable message.',
    properties: { field: str(), message: str(), reason: str() },
  });
  defs.set(STATUS_DETAILS_DEF, {
    type: 'object',
    description: 'Extended data of a Status.',
    properties: {
      causes: { type: 'array', items: refTo(STATUS_CAUSE_DEF), 'x-kubernetes-list-type': 'atomic' },
      group: str(),
      kind: str(),
      name: str(),
      retryAfterSeconds: int('int32'),
      uid: str(),
    },
  });
  defs.set(STATUS_DEF, {
    type: 'object',
    description: 'Status is the result of operations that do not return an object.',
    properties: {
      apiVersion: apiVersionProp,
      code: int('int32', 'Suggested HTTP return code.'),
      details: refTo(STATUS_DETAILS_DEF),
      kind: kindProp,
      message: str(),
      metadata: refTo(LIST_META_DEF),
      reason: str(),
      status: str('Success or Failure.'),
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'Status' }]),
  });
  defs.set(PRECONDITIONS_DEF, {
    type: 'object',
    description: 'Conditions that must hold before a delete is carried out.',
    properties: { resourceVersion: str(), uid: str() },
  });
  defs.set(DELETE_OPTIONS_DEF, {
    type: 'object',
    description: 'Options of a delete request.',
    properties: {
      apiVersion: apiVersionProp,
      dryRun: { ...strArray('When present, modifications are not persisted. The only valid value is All.'), 'x-kubernetes-list-type': 'atomic' },
      gracePeriodSeconds: int('int64'),
      kind: kindProp,
      orphanDependents: bool('Deprecated: use propagationPolicy.'),
      preconditions: refTo(PRECONDITIONS_DEF),
      propagationPolicy: str('Orphan, Background or Foreground.'),
    },
    ...everyGv('DeleteOptions'),
  });
  defs.set(RAW_EXTENSION_DEF, { type: 'object', description: 'An embedded object of any kind.', 'x-kubernetes-preserve-unknown-fields': true });
  defs.set(WATCH_EVENT_DEF, {
    type: 'object',
    description: 'One event of a watch stream.',
    required: ['type', 'object'],
    properties: { object: refTo(RAW_EXTENSION_DEF), type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.') },
    ...everyGv('WatchEvent'),
  });
  defs.set(PATCH_DEF, { type: 'object', description: 'The body of a PATCH request; its format follows the Content-Type.' });

  // Discovery documents.
  defs.set(SERVER_ADDRESS_DEF, {
    type: 'object',
    required: ['clientCIDR', 'serverAddress'],
    properties: { clientCIDR: str(), serverAddress: str() },
  });
  defs.set(GROUP_VERSION_DEF, { type: 'object', required: ['groupVersion', 'version'], properties: { groupVersion: str(), version: str() } });
  defs.set(API_VERSIONS_DEF, {
    type: 'object',
    required: ['versions', 'serverAddressByClientCIDRs'],
    properties: {
      apiVersion: apiVersionProp,
      kind: kindProp,
      serverAddressByClientCIDRs: { type: 'array', items: refTo(SERVER_ADDRESS_DEF), 'x-kubernetes-list-type': 'atomic' },
      versions: { ...strArray(), 'x-kubernetes-list-type': 'atomic' },
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'APIVersions' }]),
  });
  defs.set(API_GROUP_DEF, {
    type: 'object',
    required: ['name', 'versions'],
    properties: {
      apiVersion: apiVersionProp,
      kind: kindProp,
      name: str(),
      preferredVersion: refTo(GROUP_VERSION_DEF),
      serverAddressByClientCIDRs: { type: 'array', items: refTo(SERVER_ADDRESS_DEF), 'x-kubernetes-list-type': 'atomic' },
      versions: { type: 'array', items: refTo(GROUP_VERSION_DEF), 'x-kubernetes-list-type': 'atomic' },
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'APIGroup' }]),
  });
  defs.set(API_GROUP_LIST_DEF, {
    type: 'object',
    required: ['groups'],
    properties: {
      apiVersion: apiVersionProp,
      groups: { type: 'array', items: refTo(API_GROUP_DEF), 'x-kubernetes-list-type': 'atomic' },
      kind: kindProp,
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'APIGroupList' }]),
  });
  defs.set(API_RESOURCE_DEF, {
    type: 'object',
    required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
    properties: {
      categories: { ...strArray(), 'x-kubernetes-list-type': 'atomic' },
      group: str(),
      kind: str(),
      name: str(),
      namespaced: bool(),
      shortNames: { ...strArray(), 'x-kubernetes-list-type': 'atomic' },
      singularName: str(),
      storageVersionHash: str(),
      verbs: strArray(),
      version: str(),
    },
  });
  defs.set(API_RESOURCE_LIST_DEF, {
    type: 'object',
    required: ['groupVersion', 'resources'],
    properties: {
      apiVersion: apiVersionProp,
      groupVersion: str(),
      kind: kindProp,
      resources: { type: 'array', items: refTo(API_RESOURCE_DEF), 'x-kubernetes-list-type': 'atomic' },
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'APIResourceList' }]),
  });
  defs.set(VERSION_INFO_DEF, {
    type: 'object',
    required: ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'],
    properties: Object.fromEntries(['buildDate', 'compiler', 'gitCommit', 'gitTreeState', 'gitVersion', 'goVersion', 'major', 'minor', 'platform'].map((k) => [k, str()])),
  });
  // autoscaling/v1 Scale, the kind of every `/scale` subresource; not a stored resource itself.
  defs.set(definitionName('autoscaling', 'v1', 'Scale'), {
    type: 'object',
    description: 'Scale represents a scaling request for a resource.',
    properties: {
      apiVersion: apiVersionProp,
      kind: kindProp,
      metadata: refTo(OBJECT_META_DEF, 'Standard object metadata.'),
      spec: { type: 'object', properties: { replicas: int('int32', 'Desired number of instances.') } },
      status: {
        type: 'object',
        required: ['replicas'],
        properties: { replicas: int('int32', 'Actual number of observed instances.'), selector: str('Label query over the pods, in string form.') },
      },
    },
    ...gvkExt([{ group: 'autoscaling', version: 'v1', kind: 'Scale' }]),
  });
  return defs;
}

// ---------------------------------------------------------------------------------------------
// Model: definitions and operations of every group version, built once

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

interface Param {
  name: string;
  in: 'path' | 'query';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
}

interface Operation {
  method: Method;
  operationId: string;
  description: string;
  tag: string;
  action?: string;
  gvk?: GroupVersionKindRef;
  params: Param[];
  body?: { kind: 'object' | 'patch' | 'delete'; def?: string };
  responses: Array<{ code: number; description: string; def?: string; text?: boolean }>;
  produces: 'object' | 'stream' | 'text';
}

interface PathSpec {
  path: string;
  params: Param[];
  ops: Operation[];
}

interface GroupVersion {
  group: string;
  version: string;
}

interface Model {
  gvs: GroupVersion[];
  defs: Map<string, JsonSchema>;
  /** Definitions named by the GVK they carry, for resolving subresource kinds. */
  defByGvk: Map<string, string>;
  paths: Map<string, PathSpec[]>;
}

const q = (name: string, type: Param['type'], description: string): Param => ({ name, in: 'query', type, description });

const PRETTY = q('pretty', 'string', "If 'true', the output is pretty printed.");
const NAMESPACE: Param = { name: 'namespace', in: 'path', type: 'string', required: true, description: 'object name and auth scope, such as for teams and projects' };
const nameParam = (kind: string): Param => ({ name: 'name', in: 'path', type: 'string', required: true, description: `name of the ${kind}` });
const DRY_RUN = q('dryRun', 'string', 'When present, modifications are not persisted. The only valid value is All.');
const FIELD_MANAGER = q('fieldManager', 'string', 'Name of the actor making the change; required for apply patches.');
const FIELD_VALIDATION = q(
  'fieldValidation',
  'string',
  'How to treat unknown or duplicate fields in the body: Ignore drops them, Warn (the default) drops them with a warning header, Strict fails the request.',
);
const FORCE = q('force', 'boolean', 'Apply only: take ownership of conflicting fields from other managers.');
const GRACE_PERIOD = q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 means immediately.');
const ORPHAN = q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy.');
const PROPAGATION = q('propagationPolicy', 'string', 'Garbage collection of dependents: Orphan, Background or Foreground.');
const LIST_PARAMS: Param[] = [
  q('allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK watch events.'),
  q('continue', 'string', 'Token of the next chunk, from the previous list response.'),
  q('fieldSelector', 'string', 'Restrict returned objects by their fields.'),
  q('labelSelector', 'string', 'Restrict returned objects by their labels.'),
  q('limit', 'integer', 'Maximum number of items per chunk.'),
  q('resourceVersion', 'string', 'Consistency requirement of the read.'),
  q('resourceVersionMatch', 'string', 'How resourceVersion applies: Exact or NotOlderThan.'),
  q('sendInitialEvents', 'boolean', 'Watch only: start with synthetic events for the current state.'),
  q('timeoutSeconds', 'integer', 'Timeout of the list or watch call.'),
  q('watch', 'boolean', 'Watch for changes instead of listing.'),
];
const DELETE_COLLECTION_PARAMS: Param[] = [...LIST_PARAMS.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks'), DRY_RUN, GRACE_PERIOD, ORPHAN, PROPAGATION];
const LOG_PARAMS: Param[] = [
  q('container', 'string', 'The container to stream logs of.'),
  q('follow', 'boolean', 'Stream the log.'),
  q('limitBytes', 'integer', 'Bytes to read before stopping.'),
  q('previous', 'boolean', 'Logs of the previous, terminated container.'),
  q('sinceSeconds', 'integer', 'Relative time in seconds to show logs from.'),
  q('tailLines', 'integer', 'Lines from the end of the log to show.'),
  q('timestamps', 'boolean', 'Prefix every line with its RFC 3339 timestamp.'),
];
// Subresources that upgrade the connection (x-kubernetes-action `connect`).
const CONNECT_SUBRESOURCES = new Set(['attach', 'exec', 'portforward', 'proxy']);

const OK_CODES = {
  read: [200],
  create: [200, 201, 202],
  replace: [200, 201],
  patch: [200, 201],
  delete: [200, 202],
} as const;
const CODE_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

function responses(codes: readonly number[], def: string | undefined, text = false): Operation['responses'] {
  return codes.map((code) => ({ code, description: CODE_TEXT[code] ?? String(code), def, text }));
}

function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/** `rbac.authorization.platform.io` → `RbacAuthorization`, '' → `Core` (upstream's operationId parts). */
function groupCamel(group: string): string {
  if (!group) return 'Core';
  const bare = group.endsWith(BRAND_SUFFIX) ? group.slice(0, -BRAND_SUFFIX.length) : group;
  return bare.split(/[.-]/).map(capitalize).join('');
}

function tagOf(group: string, version?: string): string {
  const g = group ? groupCamel(group).replace(/^./, (c) => c.toLowerCase()) : 'core';
  return version ? `${g}_${version}` : g;
}

function gvKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function gvkKey(gvk: GroupVersionKindRef): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

function listKindOf(served: ServedResource): string {
  return served.type.listKind ?? `${served.type.kind}List`;
}

function allGroupVersions(source: DiscoverySource): GroupVersion[] {
  const gvs: GroupVersion[] = [];
  if (source.resources('', CORE_VERSION).length) gvs.push({ group: '', version: CORE_VERSION });
  for (const g of source.groups()) for (const v of g.versions) gvs.push({ group: g.name, version: v });
  return gvs;
}

function buildModel(source: OpenApiSource): Model {
  const gvs = allGroupVersions(source);
  const defs = metaDefinitions(gvs);
  const defByGvk = new Map<string, string>([[gvkKey({ group: 'autoscaling', version: 'v1', kind: 'Scale' }), definitionName('autoscaling', 'v1', 'Scale')]]);
  const served = gvs.map((gv) => ({ gv, resources: source.resources(gv.group, gv.version) }));

  for (const { gv, resources } of served) {
    for (const s of resources) {
      const kind = s.type.kind;
      // One definition per type, named by its canonical group; an upstream alias of the group
      // (served after it) adds its group/version/kind to the definition's list.
      const name = definitionName(s.type.group, gv.version, kind);
      const known = defs.get(name);
      if (s.group !== s.type.group && known) {
        addGvk(known, { group: gv.group, version: gv.version, kind });
        defByGvk.set(gvkKey({ group: gv.group, version: gv.version, kind }), name);
        const listName = definitionName(s.type.group, gv.version, listKindOf(s));
        const listDef = defs.get(listName);
        if (listDef) {
          addGvk(listDef, { group: gv.group, version: gv.version, kind: listKindOf(s) });
          defByGvk.set(gvkKey({ group: gv.group, version: gv.version, kind: listKindOf(s) }), listName);
        }
        continue;
      }
      const raw = source.objectSchema(s);
      const props = (raw.properties ?? {}) as Record<string, JsonSchema>;
      const schema: JsonSchema = {
        ...raw,
        type: 'object',
        properties: props.metadata ? { ...props, metadata: refTo(OBJECT_META_DEF, 'Standard object metadata.') } : props,
        ...gvkExt([{ group: gv.group, version: gv.version, kind }]),
      };
      defs.set(name, schema);
      defByGvk.set(gvkKey({ group: gv.group, version: gv.version, kind }), name);
      if (resourceVerbs(s.type).includes('list')) {
        const listKind = listKindOf(s);
        const listName = definitionName(s.type.group, gv.version, listKind);
        defs.set(listName, {
          type: 'object',
          description: `${listKind} is a list of ${kind} objects.`,
          required: ['items'],
          properties: {
            apiVersion: apiVersionProp,
            items: { type: 'array', description: `List of ${kind} objects.`, items: refTo(name) },
            kind: kindProp,
            metadata: refTo(LIST_META_DEF, 'Standard list metadata.'),
          },
          ...gvkExt([{ group: gv.group, version: gv.version, kind: listKind }]),
        });
        defByGvk.set(gvkKey({ group: gv.group, version: gv.version, kind: listKind }), listName);
      }
    }
  }

  const paths = new Map<string, PathSpec[]>();
  for (const { gv, resources } of served) {
    const specs = [discoveryResourcesPath(gv)];
    for (const s of resources) specs.push(...resourcePaths(s, defByGvk));
    paths.set(gvKey(gv.group, gv.version), specs);
  }
  return { gvs, defs, defByGvk, paths };
}

function discoveryOp(operationId: string, tag: string, def: string, description: string): Operation {
  return { method: 'get', operationId, description, tag, params: [], responses: responses([200], def), produces: 'object' };
}

function discoveryResourcesPath(gv: GroupVersion): PathSpec {
  const prefix = gv.group ? `/apis/${gv.group}/${gv.version}/` : `/api/${gv.version}/`;
  const id = `get${groupCamel(gv.group)}${capitalize(gv.version)}APIResources`;
  return { path: prefix, params: [], ops: [discoveryOp(id, tagOf(gv.group, gv.version), API_RESOURCE_LIST_DEF, 'get available resources')] };
}

/** Every path of one served resource: collection, item, all-namespaces, watch and subresources. */
function resourcePaths(served: ServedResource, defByGvk: Map<string, string>): PathSpec[] {
  const { type, group } = served;
  const version = served.version.name;
  const kind = type.kind;
  const verbs = new Set(resourceVerbs(type));
  const namespaced = type.scope === 'Namespaced';
  const scope = namespaced ? 'Namespaced' : '';
  const base = `${groupCamel(group)}${capitalize(version)}`;
  const tag = tagOf(group, version);
  const gvk = { group, version, kind };
  const objDef = definitionName(type.group, version, kind);
  const listDef = defByGvk.get(gvkKey({ group, version, kind: listKindOf(served) }));
  const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const nsSeg = namespaced ? 'namespaces/{namespace}/' : '';
  const collection = `${prefix}/${nsSeg}${type.plural}`;
  const item = `${collection}/{name}`;
  const nsParams = namespaced ? [NAMESPACE] : [];
  const itemParams = [nameParam(kind), ...nsParams, PRETTY];
  const specs: PathSpec[] = [];
  const op = (o: Omit<Operation, 'tag' | 'gvk'> & { gvk?: GroupVersionKindRef }): Operation => ({ tag, gvk, ...o });
  const writeParams = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];

  const collOps: Operation[] = [];
  if (verbs.has('list')) {
    collOps.push(
      op({
        method: 'get',
        operationId: `list${base}${scope}${kind}`,
        action: 'list',
        description: `list or watch objects of kind ${kind}`,
        params: LIST_PARAMS,
        responses: responses([200], listDef),
        produces: 'stream',
      }),
    );
  }
  if (verbs.has('create')) {
    collOps.push(
      op({
        method: 'post',
        operationId: `create${base}${scope}${kind}`,
        action: 'post',
        description: `create a ${kind}`,
        params: writeParams,
        body: { kind: 'object', def: objDef },
        responses: responses(OK_CODES.create, objDef),
        produces: 'object',
      }),
    );
  }
  if (verbs.has('deletecollection')) {
    collOps.push(
      op({
        method: 'delete',
        operationId: `delete${base}Collection${scope}${kind}`,
        action: 'deletecollection',
        description: `delete collection of ${kind}`,
        params: DELETE_COLLECTION_PARAMS,
        body: { kind: 'delete' },
        responses: responses([200], STATUS_DEF),
        produces: 'object',
      }),
    );
  }
  if (collOps.length) specs.push({ path: collection, params: [...nsParams, PRETTY], ops: collOps });

  const itemOps: Operation[] = [];
  if (verbs.has('get')) {
    itemOps.push(
      op({
        method: 'get',
        operationId: `read${base}${scope}${kind}`,
        action: 'get',
        description: `read the specified ${kind}`,
        params: [],
        responses: responses(OK_CODES.read, objDef),
        produces: 'object',
      }),
    );
  }
  if (verbs.has('update')) {
    itemOps.push(
      op({
        method: 'put',
        operationId: `replace${base}${scope}${kind}`,
        action: 'put',
        description: `replace the specified ${kind}`,
        params: writeParams,
        body: { kind: 'object', def: objDef },
        responses: responses(OK_CODES.replace, objDef),
        produces: 'object',
      }),
    );
  }
  if (verbs.has('patch')) {
    itemOps.push(
      op({
        method: 'patch',
        operationId: `patch${base}${scope}${kind}`,
        action: 'patch',
        description: `partially update the specified ${kind}`,
        params: [...writeParams, FORCE],
        body: { kind: 'patch' },
        responses: responses(OK_CODES.patch, objDef),
        produces: 'object',
      }),
    );
  }
  if (verbs.has('delete')) {
    itemOps.push(
      op({
        method: 'delete',
        operationId: `delete${base}${scope}${kind}`,
        action: 'delete',
        description: `delete a ${kind}`,
        params: [DRY_RUN, GRACE_PERIOD, ORPHAN, PROPAGATION],
        body: { kind: 'delete' },
        responses: responses(OK_CODES.delete, STATUS_DEF),
        produces: 'object',
      }),
    );
  }
  if (itemOps.length) specs.push({ path: item, params: itemParams, ops: itemOps });

  if (namespaced && verbs.has('list')) {
    specs.push({
      path: `${prefix}/${type.plural}`,
      params: [PRETTY],
      ops: [
        op({
          method: 'get',
          operationId: `list${base}${kind}ForAllNamespaces`,
          action: 'list',
          description: `list or watch objects of kind ${kind}`,
          params: LIST_PARAMS,
          responses: responses([200], listDef),
          produces: 'stream',
        }),
      ],
    });
  }

  if (verbs.has('watch')) {
    const watchOp = (operationId: string, action: string, description: string) =>
      op({ method: 'get', operationId, action, description, params: LIST_PARAMS, responses: responses([200], WATCH_EVENT_DEF), produces: 'stream' });
    specs.push({
      path: `${prefix}/watch/${nsSeg}${type.plural}`,
      params: [...nsParams, PRETTY],
      ops: [watchOp(`watch${base}${scope}${kind}List`, 'watchlist', `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`)],
    });
    specs.push({
      path: `${prefix}/watch/${nsSeg}${type.plural}/{name}`,
      params: itemParams,
      ops: [
        watchOp(
          `watch${base}${scope}${kind}`,
          'watch',
          `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
        ),
      ],
    });
    if (namespaced) {
      specs.push({
        path: `${prefix}/watch/${type.plural}`,
        params: [PRETTY],
        ops: [watchOp(`watch${base}${kind}ListForAllNamespaces`, 'watchlist', `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`)],
      });
    }
  }

  for (const sub of subresourcesOf(served)) {
    const subGvk = sub.group || sub.version ? { group: sub.group, version: sub.version, kind: sub.kind } : { group, version, kind: sub.kind };
    const subDef = defByGvk.get(gvkKey(subGvk));
    const Sub = capitalize(sub.name);
    const subOps: Operation[] = [];
    const sop = (o: Omit<Operation, 'tag' | 'gvk'>): Operation => ({ tag, gvk: subGvk, ...o });
    if (CONNECT_SUBRESOURCES.has(sub.name)) {
      const methods: Array<[string, Method]> = [
        ['get', 'get'],
        ['create', 'post'],
        ['update', 'put'],
        ['patch', 'patch'],
        ['delete', 'delete'],
      ];
      for (const [verb, method] of methods) {
        if (!sub.verbs.includes(verb)) continue;
        subOps.push(
          sop({
            method,
            operationId: `connect${capitalize(method)}${base}${scope}${kind}${Sub}`,
            action: 'connect',
            description: `connect ${method.toUpperCase()} requests to ${sub.name} of ${kind}`,
            params: [],
            responses: responses([200], undefined, true),
            produces: 'text',
          }),
        );
      }
    } else {
      const isLog = sub.name === 'log';
      if (sub.verbs.includes('get')) {
        subOps.push(
          sop({
            method: 'get',
            operationId: `read${base}${scope}${kind}${Sub}`,
            action: 'get',
            description: `read ${sub.name} of the specified ${kind}`,
            params: isLog ? LOG_PARAMS : [],
            responses: responses(OK_CODES.read, isLog ? undefined : subDef, isLog),
            produces: isLog ? 'text' : 'object',
          }),
        );
      }
      if (sub.verbs.includes('create')) {
        subOps.push(
          sop({
            method: 'post',
            operationId: `create${base}${scope}${kind}${Sub}`,
            action: 'post',
            description: `create ${sub.name} of a ${kind}`,
            params: writeParams,
            body: { kind: 'object', def: subDef },
            responses: responses(OK_CODES.create, subDef),
            produces: 'object',
          }),
        );
      }
      if (sub.verbs.includes('update')) {
        subOps.push(
          sop({
            method: 'put',
            operationId: `replace${base}${scope}${kind}${Sub}`,
            action: 'put',
            description: `replace ${sub.name} of the specified ${kind}`,
            params: writeParams,
            body: { kind: 'object', def: subDef },
            responses: responses(OK_CODES.replace, subDef),
            produces: 'object',
          }),
        );
      }
      if (sub.verbs.includes('patch')) {
        subOps.push(
          sop({
            method: 'patch',
            operationId: `patch${base}${scope}${kind}${Sub}`,
            action: 'patch',
            description: `partially update ${sub.name} of the specified ${kind}`,
            params: [...writeParams, FORCE],
            body: { kind: 'patch' },
            responses: responses(OK_CODES.patch, subDef),
            produces: 'object',
          }),
        );
      }
      if (sub.verbs.includes('delete')) {
        subOps.push(
          sop({
            method: 'delete',
            operationId: `delete${base}${scope}${kind}${Sub}`,
            action: 'delete',
            description: `delete ${sub.name} of a ${kind}`,
            params: [DRY_RUN, GRACE_PERIOD, ORPHAN, PROPAGATION],
            body: { kind: 'delete' },
            responses: responses(OK_CODES.delete, STATUS_DEF),
            produces: 'object',
          }),
        );
      }
    }
    if (subOps.length) specs.push({ path: `${item}/${sub.name}`, params: itemParams, ops: subOps });
  }
  return specs;
}

// ---------------------------------------------------------------------------------------------
// Rendering

const PROTOBUF = 'application/vnd.platform.protobuf';
const OBJECT_MEDIA = ['application/json', 'application/yaml', PROTOBUF];
const STREAM_MEDIA = [...OBJECT_MEDIA, 'application/json;stream=watch', `${PROTOBUF};stream=watch`];
const PATCH_MEDIA = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

function mediaOf(produces: Operation['produces']): string[] {
  return produces === 'text' ? ['text/plain', '*/*'] : produces === 'stream' ? STREAM_MEDIA : OBJECT_MEDIA;
}

function opExtensions(op: Operation): JsonSchema {
  const ext: JsonSchema = {};
  if (op.action) ext['x-kubernetes-action'] = op.action;
  // Operations carry one GVK object (definitions carry a list); kubectl's query-param verifier
  // decodes it as a single object.
  if (op.gvk) ext['x-kubernetes-group-version-kind'] = { group: op.gvk.group, version: op.gvk.version, kind: op.gvk.kind };
  return ext;
}

function v2Param(p: Param): JsonSchema {
  const out: JsonSchema = { name: p.name, in: p.in, description: p.description, type: p.type, uniqueItems: true };
  if (p.required) out.required = true;
  return out;
}

function v2Operation(op: Operation): JsonSchema {
  const parameters = op.params.map(v2Param);
  if (op.body) {
    const def = op.body.kind === 'patch' ? PATCH_DEF : op.body.kind === 'delete' ? DELETE_OPTIONS_DEF : op.body.def;
    parameters.unshift({ name: 'body', in: 'body', required: op.body.kind !== 'delete', schema: def ? refTo(def) : { type: 'object' } });
  }
  const resp: JsonSchema = {};
  for (const r of op.responses) {
    resp[String(r.code)] = r.text ? { description: r.description, schema: { type: 'string' } } : r.def ? { description: r.description, schema: refTo(r.def) } : { description: r.description };
  }
  resp['401'] = { description: 'Unauthorized' };
  return {
    description: op.description,
    consumes: op.body?.kind === 'patch' ? PATCH_MEDIA : ['*/*'],
    produces: mediaOf(op.produces),
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
    parameters,
    responses: resp,
    ...opExtensions(op),
  };
}

function v3Param(p: Param): JsonSchema {
  const out: JsonSchema = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.required) out.required = true;
  return out;
}

function v3Ref(def: string): JsonSchema {
  return { $ref: `#/components/schemas/${def}` };
}

function v3Content(media: string[], schema: JsonSchema): JsonSchema {
  return Object.fromEntries(media.map((m) => [m, { schema }]));
}

function v3Operation(op: Operation): JsonSchema {
  const out: JsonSchema = { tags: [op.tag], description: op.description, operationId: op.operationId };
  if (op.params.length) out.parameters = op.params.map(v3Param);
  if (op.body) {
    if (op.body.kind === 'patch') out.requestBody = { content: v3Content(PATCH_MEDIA, v3Ref(PATCH_DEF)), required: true };
    else if (op.body.kind === 'delete') out.requestBody = { content: v3Content(['application/json', 'application/yaml'], v3Ref(DELETE_OPTIONS_DEF)) };
    else out.requestBody = { content: v3Content(OBJECT_MEDIA, op.body.def ? v3Ref(op.body.def) : { type: 'object' }), required: true };
  }
  const resp: JsonSchema = {};
  for (const r of op.responses) {
    if (r.text) resp[String(r.code)] = { description: r.description, content: v3Content(mediaOf('text'), { type: 'string' }) };
    else if (r.def) resp[String(r.code)] = { description: r.description, content: v3Content(mediaOf(op.produces), v3Ref(r.def)) };
    else resp[String(r.code)] = { description: r.description };
  }
  resp['401'] = { description: 'Unauthorized' };
  out.responses = resp;
  return { ...out, ...opExtensions(op) };
}

function renderPaths(specs: PathSpec[], dialect: OpenApiDialect): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  for (const spec of specs) {
    const item: JsonSchema = paths[spec.path] ?? {};
    for (const op of spec.ops) item[op.method] = dialect === 'v2' ? v2Operation(op) : v3Operation(op);
    if (spec.params.length) item.parameters = spec.params.map(dialect === 'v2' ? v2Param : v3Param);
    paths[spec.path] = item;
  }
  return sortKeys(paths);
}

function sortKeys<T>(rec: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(rec).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const BEARER = { type: 'apiKey', description: 'Bearer token authentication', name: 'authorization', in: 'header' };

/** Paths of the discovery documents that are not tied to a group version's resources. */
function discoveryPaths(model: Model): Map<string, PathSpec[]> {
  const out = new Map<string, PathSpec[]>();
  out.set('api', [{ path: '/api/', params: [], ops: [discoveryOp('getCoreAPIVersions', 'core', API_VERSIONS_DEF, 'get available API versions')] }]);
  out.set('apis', [{ path: '/apis/', params: [], ops: [discoveryOp('getAPIVersions', 'apis', API_GROUP_LIST_DEF, 'get available API versions')] }]);
  for (const group of new Set(model.gvs.filter((gv) => gv.group).map((gv) => gv.group))) {
    out.set(`apis/${group}`, [{ path: `/apis/${group}/`, params: [], ops: [discoveryOp(`get${groupCamel(group)}APIGroup`, tagOf(group), API_GROUP_DEF, 'get information of a group')] }]);
  }
  out.set('version', [{ path: '/version/', params: [], ops: [discoveryOp('getCodeVersion', 'version', VERSION_INFO_DEF, 'get the code version')] }]);
  return out;
}

/** swagger 2.0 (`/openapi/v2`): every definition and every path. */
export function openApiV2(source: OpenApiSource, info: OpenApiInfo = {}): OpenApiDocument {
  const model = buildModel(source);
  const specs: PathSpec[] = [];
  for (const s of discoveryPaths(model).values()) specs.push(...s);
  for (const s of model.paths.values()) specs.push(...s);
  const definitions: Record<string, JsonSchema> = {};
  for (const [name, schema] of model.defs) definitions[name] = convertSchema(schema, 'v2');
  return {
    swagger: '2.0',
    info: { ...DEFAULT_INFO, ...info },
    paths: renderPaths(specs, 'v2'),
    definitions: sortKeys(definitions),
    securityDefinitions: { BearerToken: BEARER },
    security: [{ BearerToken: [] }],
  };
}

function collectRefs(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) collectRefs(n, into);
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') into.add(v.slice(v.lastIndexOf('/') + 1));
      else collectRefs(v, into);
    }
  }
}

interface V3Defs {
  schemas: Map<string, JsonSchema>;
  /** Names each schema refers to, computed once for every document's closure. */
  refs: Map<string, Set<string>>;
}

function v3Document(specs: PathSpec[], v3Defs: V3Defs, extraDefs: string[], info: OpenApiInfo): OpenApiDocument {
  const paths = renderPaths(specs, 'v3');
  const wanted = new Set<string>(extraDefs);
  collectRefs(paths, wanted);
  // Close over references between schemas (ObjectMeta → OwnerReference, ...).
  const schemas: Record<string, JsonSchema> = {};
  const queue = [...wanted];
  while (queue.length) {
    const name = queue.pop()!;
    const schema = v3Defs.schemas.get(name);
    if (schemas[name] || !schema) continue;
    schemas[name] = schema;
    for (const r of v3Defs.refs.get(name) ?? []) if (!schemas[r]) queue.push(r);
  }
  return {
    openapi: '3.0.0',
    info: { ...DEFAULT_INFO, ...info },
    paths,
    components: { schemas: sortKeys(schemas), securitySchemes: { BearerToken: BEARER } },
    security: [{ BearerToken: [] }],
  };
}

export interface OpenApiV3Root {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenApiV3Set {
  root: OpenApiV3Root;
  /** Keyed by the root's path names: `api`, `api/v1`, `apis`, `apis/<g>`, `apis/<g>/<v>`, `version`. */
  documents: Map<string, { document: OpenApiDocument; serialized: SerializedDocument }>;
}

/** Every OpenAPI v3 document and the root that points at them with content hashes. The gateway
 *  serves `/openapi/v3/<key>` from `documents` and may cache responses carrying `?hash=` forever. */
export function openApiV3(source: OpenApiSource, info: OpenApiInfo = {}): OpenApiV3Set {
  const model = buildModel(source);
  const v3Defs: V3Defs = { schemas: new Map(), refs: new Map() };
  for (const [name, schema] of model.defs) {
    const converted = convertSchema(schema, 'v3');
    const refs = new Set<string>();
    collectRefs(converted, refs);
    v3Defs.schemas.set(name, converted);
    v3Defs.refs.set(name, refs);
  }
  const documents: OpenApiV3Set['documents'] = new Map();
  const add = (key: string, document: OpenApiDocument) => documents.set(key, { document, serialized: serializeDocument(document) });
  for (const [key, specs] of discoveryPaths(model)) add(key, v3Document(specs, v3Defs, [], info));
  for (const gv of model.gvs) {
    const key = gvKey(gv.group, gv.version);
    // Every kind of the group version, referenced or not, so `kubectl explain` finds them all.
    const own = [...model.defByGvk.entries()].filter(([k]) => k.startsWith(`${gv.group}/${gv.version}/`)).map(([, name]) => name);
    add(key, v3Document(model.paths.get(key) ?? [], v3Defs, own, info));
  }
  const paths: OpenApiV3Root['paths'] = {};
  for (const [key, { serialized }] of [...documents.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${serialized.hash}` };
  }
  return { root: { paths }, documents };
}

/** `/openapi/v3`. */
export function openApiV3Root(source: OpenApiSource, info: OpenApiInfo = {}): OpenApiV3Root {
  return openApiV3(source, info).root;
}

/** `/openapi/v3/api/v1` (group '') or `/openapi/v3/apis/<g>/<v>`; undefined when not served. */
export function openApiV3GroupVersion(source: OpenApiSource, group: string, version: string, info: OpenApiInfo = {}): OpenApiDocument | undefined {
  return openApiV3(source, info).documents.get(gvKey(group, version))?.document;
}
