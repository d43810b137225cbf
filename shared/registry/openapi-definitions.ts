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
export const apiVersionProp = str('Group and version of the schema this document is written in: `<group>/<version>`, or `v1` for the core group.');
export const kindProp = str('Kind of the document, in CamelCase. It names the schema; the resource comes from the URL.');

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
  setStatusDefinitions(defs);
  defs.set(PRECONDITIONS_DEF, {
    type: 'object',
    description: 'Conditions that must hold before a delete is carried out.',
    properties: {
      resourceVersion: str('The delete fails with 409 Conflict unless the object is still at this resourceVersion.'),
      uid: str('The delete fails with 409 Conflict unless the object has this uid (it is not a newer object of the same name).'),
    },
  });
  defs.set(DELETE_OPTIONS_DEF, {
    type: 'object',
    description: 'Options of a delete request.',
    properties: {
      apiVersion: apiVersionProp,
      dryRun: { ...strArray('When present, modifications are not persisted. The only valid value is All.'), 'x-kubernetes-list-type': 'atomic' },
      gracePeriodSeconds: int('int64', "Seconds the object may take to stop before it is removed; 0 means at once. Omitted means the default of its kind (a pod's terminationGracePeriodSeconds)."),
      kind: kindProp,
      orphanDependents: bool('Deprecated: use propagationPolicy. True means Orphan, false Background.'),
      preconditions: refTo(PRECONDITIONS_DEF, 'Conditions the object must meet for the delete to go ahead.'),
      propagationPolicy: str(
        'What happens to objects this one owns: Orphan leaves them, Background deletes the owner at once and them afterwards, Foreground deletes them first and the owner once they are gone. The default depends on the kind.',
      ),
    },
    ...everyGv('DeleteOptions'),
  });
  defs.set(RAW_EXTENSION_DEF, { type: 'object', description: 'An embedded object of any kind.', 'x-kubernetes-preserve-unknown-fields': true });
  defs.set(WATCH_EVENT_DEF, {
    type: 'object',
    description: 'One event of a watch stream.',
    required: ['type', 'object'],
    properties: {
      object: refTo(RAW_EXTENSION_DEF, 'The object as it is after the change (its last state for DELETED); for BOOKMARK only its kind and resourceVersion; for ERROR a Status.'),
      type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
    },
    ...everyGv('WatchEvent'),
  });
  defs.set(PATCH_DEF, { type: 'object', description: 'The body of a PATCH request; its format follows the Content-Type.' });
}

/** Status, the body of every error, and the details and causes it carries. */
function setStatusDefinitions(defs: Map<string, JsonSchema>): void {
  defs.set(STATUS_CAUSE_DEF, {
    type: 'object',
    description: 'One cause of an error: which field, why, and a readable message.',
    properties: {
      field: str('Path of the field at fault, such as `spec.containers[0].image` or `metadata.name`; empty when the cause is not one field.'),
      message: str('Readable explanation of this cause.'),
      reason: str('Machine-readable kind of the cause, such as FieldValueRequired, FieldValueInvalid, FieldValueDuplicate or FieldValueNotSupported.'),
    },
  });
  defs.set(STATUS_DETAILS_DEF, {
    type: 'object',
    description: 'What an error is about: the object concerned and, for a refused write, each cause.',
    properties: {
      causes: { type: 'array', items: refTo(STATUS_CAUSE_DEF), 'x-kubernetes-list-type': 'atomic', description: 'The individual problems, such as each invalid field of a 422 Invalid answer.' },
      group: str('API group of the resource concerned.'),
      kind: str('Kind, or for some errors the resource, of the object concerned.'),
      name: str('Name of the object concerned, when there is one.'),
      retryAfterSeconds: int('int32', 'Seconds to wait before trying again, for errors that may pass (429, 503, 504); also sent as the Retry-After header.'),
      uid: str('The uid of the object concerned, when known.'),
    },
  });
  defs.set(STATUS_DEF, {
    type: 'object',
    description: 'The answer to a request that returns no object: every error, and the success of some deletes.',
    properties: {
      apiVersion: apiVersionProp,
      code: int('int32', 'HTTP status code of the answer, such as 404 or 422.'),
      details: refTo(STATUS_DETAILS_DEF, 'The object concerned and the causes of the error, when there are any.'),
      kind: kindProp,
      message: str('Readable description of the outcome.'),
      metadata: refTo(LIST_META_DEF, 'List metadata; normally empty in a Status.'),
      reason: str('Machine-readable reason for a failure, in CamelCase, such as NotFound, AlreadyExists, Conflict, Invalid, Forbidden or Gone; empty when the code says enough.'),
      status: str('Success or Failure.'),
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'Status' }]),
  });
}

const SERVER_ADDRESSES_DOC = 'Addresses of the server by client network range, for clients that should not use the address they reached it at. kubectl ignores it.';

const VERSION_INFO_DOCS: Record<string, string> = {
  buildDate: 'When the server was built (RFC 3339).',
  compiler: 'Toolchain the server was built with.',
  gitCommit: 'Source commit of the build.',
  gitTreeState: 'clean or dirty: whether the build had uncommitted changes.',
  gitVersion: 'Full version of the API the server implements, such as `v1.24.0`; kubectl compares it with its own.',
  goVersion: 'Version of the runtime the server runs on.',
  major: 'Major version of the API the server implements.',
  minor: 'Minor version of the API the server implements.',
  platform: 'Operating system and architecture of the server, as `<os>/<arch>`.',
};

/** The discovery documents (`/api`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`) and `/version`. */
function setDiscoveryDefinitions(defs: Map<string, JsonSchema>): void {
  defs.set(SERVER_ADDRESS_DEF, {
    type: 'object',
    description: 'The address clients in a network range should use to reach the server.',
    required: ['clientCIDR', 'serverAddress'],
    properties: {
      clientCIDR: str('Network range of the clients, in CIDR notation (`0.0.0.0/0` for all).'),
      serverAddress: str('Address of the server for those clients: `host:port` or an IP and port.'),
    },
  });
  defs.set(GROUP_VERSION_DEF, {
    type: 'object',
    description: 'One version of an API group.',
    required: ['groupVersion', 'version'],
    properties: { groupVersion: str('The group and version, as `<group>/<version>`.'), version: str('The version alone, such as `v1`.') },
  });
  defs.set(API_VERSIONS_DEF, {
    type: 'object',
    description: 'The versions of the core group (`/api`).',
    required: ['versions', 'serverAddressByClientCIDRs'],
    properties: {
      apiVersion: apiVersionProp,
      kind: kindProp,
      serverAddressByClientCIDRs: { type: 'array', items: refTo(SERVER_ADDRESS_DEF), 'x-kubernetes-list-type': 'atomic', description: SERVER_ADDRESSES_DOC },
      versions: { ...strArray('Versions of the core group the server serves.'), 'x-kubernetes-list-type': 'atomic' },
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'APIVersions' }]),
  });
  defs.set(API_GROUP_DEF, {
    type: 'object',
    description: 'An API group and the versions the server serves of it (`/apis/<group>`).',
    required: ['name', 'versions'],
    properties: {
      apiVersion: apiVersionProp,
      kind: kindProp,
      name: str('Name of the group.'),
      preferredVersion: refTo(GROUP_VERSION_DEF, 'The version clients should use when they have no preference of their own.'),
      serverAddressByClientCIDRs: { type: 'array', items: refTo(SERVER_ADDRESS_DEF), 'x-kubernetes-list-type': 'atomic', description: SERVER_ADDRESSES_DOC },
      versions: { type: 'array', items: refTo(GROUP_VERSION_DEF), 'x-kubernetes-list-type': 'atomic', description: 'Versions served, the preferred one first.' },
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'APIGroup' }]),
  });
  defs.set(API_GROUP_LIST_DEF, {
    type: 'object',
    description: 'The API groups the server serves (`/apis`).',
    required: ['groups'],
    properties: {
      apiVersion: apiVersionProp,
      groups: { type: 'array', items: refTo(API_GROUP_DEF), 'x-kubernetes-list-type': 'atomic', description: 'The groups, in order of priority.' },
      kind: kindProp,
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'APIGroupList' }]),
  });
  setResourceListDefinitions(defs);
}

/** `/apis/<g>/<v>` (the resources of a group version) and `/version`. */
function setResourceListDefinitions(defs: Map<string, JsonSchema>): void {
  defs.set(API_RESOURCE_DEF, {
    type: 'object',
    description: 'A resource or subresource of a group version, as discovery lists it.',
    required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
    properties: {
      categories: { ...strArray('Categories the resource belongs to, such as `all` (`kubectl get all`).'), 'x-kubernetes-list-type': 'atomic' },
      group: str('For a subresource of another group, that group (autoscaling for `deployments/scale`); empty otherwise.'),
      kind: str('Kind of the objects the resource takes and returns.'),
      name: str('Plural name of the resource, or `<resource>/<subresource>` for a subresource.'),
      namespaced: bool('Whether objects of the resource live in namespaces.'),
      shortNames: { ...strArray('Short names kubectl accepts for the resource.'), 'x-kubernetes-list-type': 'atomic' },
      singularName: str('Singular name of the resource; kubectl uses it in messages.'),
      storageVersionHash: str('Opaque hash of the version objects are stored in; it changes when the storage version does, so a migration can tell.'),
      verbs: strArray('Verbs the resource supports: get, list, watch, create, update, patch, delete, deletecollection.'),
      version: str('For a subresource of another version, that version (v1 for `deployments/scale`); empty otherwise.'),
    },
  });
  defs.set(API_RESOURCE_LIST_DEF, {
    type: 'object',
    description: 'The resources of one group version (`/api/v1`, `/apis/<group>/<version>`).',
    required: ['groupVersion', 'resources'],
    properties: {
      apiVersion: apiVersionProp,
      groupVersion: str('The group version listed, as `<group>/<version>` (`v1` for the core group).'),
      kind: kindProp,
      resources: { type: 'array', items: refTo(API_RESOURCE_DEF), 'x-kubernetes-list-type': 'atomic', description: 'Its resources and subresources.' },
    },
    ...gvkExt([{ group: '', version: 'v1', kind: 'APIResourceList' }]),
  });
  defs.set(VERSION_INFO_DEF, {
    type: 'object',
    description: 'The version of the server (`/version`).',
    required: ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'],
    properties: Object.fromEntries(Object.entries(VERSION_INFO_DOCS).map(([k, d]) => [k, str(d)])),
  });
}

function setScaleDefinition(defs: Map<string, JsonSchema>): void {
  // autoscaling/v1 Scale, the kind of every `/scale` subresource; not a stored resource itself.
  defs.set(definitionName('autoscaling', 'v1', 'Scale'), {
    type: 'object',
    description: 'The replica count of a scalable object, read and written through its `/scale` subresource (kubectl scale, autoscalers).',
    properties: {
      apiVersion: apiVersionProp,
      kind: kindProp,
      metadata: refTo(OBJECT_META_DEF, 'Metadata of the scaled object; its resourceVersion guards updates.'),
      spec: {
        type: 'object',
        description: 'The wanted replica count.',
        properties: { replicas: int('int32', 'Number of replicas wanted; writing it changes the replicas of the object.') },
      },
      status: {
        type: 'object',
        description: 'The observed replica count.',
        required: ['replicas'],
        properties: {
          replicas: int('int32', 'Number of replicas the controller of the object last observed.'),
          selector: str('Label selector of the pods of the object, in string form (`app=web,tier in (front)`), for autoscalers.'),
        },
      },
    },
    ...gvkExt([{ group: 'autoscaling', version: 'v1', kind: 'Scale' }]),
  });
}
