// The definitions every OpenAPI document shares, in neutral form (refs `#/definitions/<name>`):
// the names upstream gives them, the apimachinery kinds (ObjectMeta, Status, DeleteOptions,
// WatchEvent), the discovery documents and autoscaling/v1 Scale. Pure: built once at boot.

import type { GroupVersionKindRef } from './discovery.js';
import { listMetaSchema, managedFieldsEntrySchema, objectMetaSchema, ownerReferenceSchema } from './object-meta.js';
import type { JsonSchema } from '../api/types.js';

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
export const API_VERSIONS_DEF = `${META}.APIVersions`;
export const API_GROUP_LIST_DEF = `${META}.APIGroupList`;
export const API_GROUP_DEF = `${META}.APIGroup`;
export const API_RESOURCE_LIST_DEF = `${META}.APIResourceList`;
const API_RESOURCE_DEF = `${META}.APIResource`;
const GROUP_VERSION_DEF = `${META}.GroupVersionForDiscovery`;
const SERVER_ADDRESS_DEF = `${META}.ServerAddressByClientCIDR`;
const RAW_EXTENSION_DEF = 'io.platform.apimachinery.pkg.runtime.RawExtension';
export const VERSION_INFO_DEF = 'io.platform.apimachinery.pkg.version.Info';

export const BRAND_SUFFIX = '.platform.io';

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

export function refTo(name: string, description?: string): JsonSchema {
  return description ? { $ref: `#/definitions/${name}`, description } : { $ref: `#/definitions/${name}` };
}

// ---------------------------------------------------------------------------------------------
// Shared definitions (neutral form)

const str = (description?: string): JsonSchema => (description ? { type: 'string', description } : { type: 'string' });
const int = (format: 'int32' | 'int64', description?: string): JsonSchema => ({ type: 'integer', format, ...(description ? { description } : {}) });
const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const strArray = (description?: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, ...(description ? { description } : {}) });
export const apiVersionProp = str('APIVersion defines the versioned schema of this representation of an object.');
export const kindProp = str('Kind is a string value representing the REST resource this object represents.');

export function gvkExt(gvks: GroupVersionKindRef[]): JsonSchema {
  return { 'x-kubernetes-group-version-kind': gvks.map((g) => ({ group: g.group, version: g.version, kind: g.kind })) };
}

export function addGvk(def: JsonSchema, gvk: GroupVersionKindRef): void {
  const list = def['x-kubernetes-group-version-kind'];
  if (Array.isArray(list)) list.push({ group: gvk.group, version: gvk.version, kind: gvk.kind });
}

function withProps(schema: JsonSchema, replace: Record<string, JsonSchema>): JsonSchema {
  return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), ...replace } };
}

/** Meta definitions; DeleteOptions and WatchEvent carry the GVK of every served group version,
 *  as upstream (they are accepted in every group version). */
export function metaDefinitions(allGvs: Array<{ group: string; version: string }>): Map<string, JsonSchema> {
  const defs = new Map<string, JsonSchema>();
  setApimachineryDefinitions(defs, allGvs);
  setDiscoveryDefinitions(defs);
  setScaleDefinition(defs);
  return defs;
}

/** ObjectMeta and what it refers to, ListMeta, Status, DeleteOptions, WatchEvent and Patch. */
function setApimachineryDefinitions(defs: Map<string, JsonSchema>, allGvs: Array<{ group: string; version: string }>): void {
  const everyGv = (kind: string) => gvkExt(allGvs.map((gv) => ({ ...gv, kind })));
  const objectMetaProps = objectMetaSchema.properties as Record<string, JsonSchema>;
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
}

/** The discovery documents (`/api`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`) and `/version`. */
function setDiscoveryDefinitions(defs: Map<string, JsonSchema>): void {
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
}

function setScaleDefinition(defs: Map<string, JsonSchema>): void {
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
}
