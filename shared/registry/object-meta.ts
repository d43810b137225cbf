import type { JsonSchema } from '../api/types.js';
import { described } from './schema-docs.js';
// JSON schemas of the metadata every object and list carries. Type entries describe only their
// own fields; the registry wraps them with these, so metadata is modelled (and pruned) in one place.
// Draft-07 keywords plus OpenAPI's `nullable`, so the same documents serve ajv and OpenAPI v3.

const str: JsonSchema = { type: 'string' };
const int64: JsonSchema = { type: 'integer', format: 'int64' };
const strMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
// Go clients serialise an unset time as `null` (`creationTimestamp: null` in generated YAML), so
// schema-driven clients must see null as allowed. `nullable` is OpenAPI v3's word for it; the
// registry's ajv copy turns it into a null type.
const time: JsonSchema = { type: 'string', format: 'date-time', nullable: true };

export const ownerReferenceSchema: JsonSchema = described(
  {
    type: 'object',
    properties: {
      apiVersion: str,
      kind: str,
      name: str,
      uid: str,
      controller: { type: 'boolean' },
      blockOwnerDeletion: { type: 'boolean' },
    },
    required: ['apiVersion', 'kind', 'name', 'uid'],
    additionalProperties: false,
    'x-kubernetes-map-type': 'atomic',
  },
  {
    apiVersion: 'API version of the owner: `<group>/<version>`, or `v1` for the core group.',
    kind: 'Kind of the owner, for example ReplicaSet.',
    name: 'Name of the owner. An owner is in the same namespace as this object, or cluster-scoped.',
    uid: 'The uid of the owner. It must match the live owner: a reference to an owner that was deleted and created again under the same name counts as dangling.',
    controller: 'True when the owner is the controller that manages this object. At most one owner reference may say so.',
    blockOwnerDeletion:
      'When the owner is deleted in the foreground, it is kept until this object is gone. Setting it requires the right to update the finalizers of the owner when owner-reference permissions are enforced.',
  },
  'A reference from an object to an object it depends on. The garbage collector deletes an object once all of its owners are gone (unless the deletion orphans it).',
);

export const managedFieldsEntrySchema: JsonSchema = described(
  {
    type: 'object',
    properties: {
      manager: str,
      operation: { type: 'string', enum: ['Apply', 'Update'] },
      apiVersion: str,
      time: time,
      fieldsType: str,
      // The field set is a trie keyed by `f:`/`k:`/`v:` paths: free-form by nature.
      fieldsV1: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      subresource: str,
    },
    additionalProperties: false,
  },
  {
    manager: 'Name of the writer that owns these fields: the field manager given by the request, or one the server derives from the client (kubectl, a controller).',
    operation: 'How the fields were set: Apply for a server-side apply, Update for any other write (create, update, patch).',
    apiVersion: 'Group and version the field paths are written in; fields are tracked in the version the manager wrote.',
    time: 'When this manager last changed one of its fields (RFC 3339). An unchanged write does not move it.',
    fieldsType: 'Format of the field set. FieldsV1 is the only format.',
    fieldsV1:
      'The owned fields as a tree: `f:<name>` for a field, `k:<key json>` for a list item by its keys, `v:<value>` for a set item, `i:<index>` for an atomic position, and `.` for the node itself.',
    subresource: 'Subresource the writes went through (status, scale); empty for the main resource. Managers are tracked separately per subresource.',
  },
  'The fields one manager owns in one API version, as recorded by server-side apply and by every other write.',
);

const objectMetaDocs = {
  name: 'Name of the object, unique per resource within its namespace (or within the cluster for cluster-scoped kinds). Required on create unless generateName is given; it cannot be changed later.',
  generateName:
    'Prefix for a name the server makes up when name is empty: five random characters are appended (the prefix is cut to fit). Used on create only; a clash with an existing name answers 409 AlreadyExists.',
  namespace: 'Namespace the object belongs to; empty for cluster-scoped kinds. When omitted it is taken from the request path; when given it must match the path.',
  selfLink: 'Not filled in by this server and cleared on create; kept only so old clients can read objects that carry it.',
  uid: 'Identifier the server gives the object on create, unique across time: an object created again under the same name gets a new uid. Read-only.',
  resourceVersion:
    'Opaque version of the object: the store revision of its last write. Send it back on update to make the write fail with 409 Conflict if someone else changed the object meanwhile. Clients must not parse or compare it.',
  generation:
    'Counter of changes to the desired state, kept by the server: 1 on create, increased by each write that changes anything but metadata (and but status, for kinds with a status subresource). Read-only.',
  creationTimestamp: 'When the server created the object (RFC 3339, UTC, whole seconds). Read-only.',
  deletionTimestamp:
    'Set by the server when deletion has been asked for but the object still waits for its finalizers or a grace period. Once set it stays; the object disappears when the last finalizer is removed. Read-only.',
  deletionGracePeriodSeconds: 'Seconds the object was given to stop gracefully before removal; set together with deletionTimestamp and only ever lowered. Read-only.',
  labels:
    'Identifying key/value pairs that label selectors match (by kubectl, controllers, services). A key is an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters; a value has at most 63 characters.',
  annotations: 'Non-identifying key/value pairs for tools and people; nothing selects on them. All annotations of an object together may hold at most 256 KiB.',
  ownerReferences: 'Objects this one belongs to. When all of them are gone the garbage collector deletes this object. At most one may be marked as the controller.',
  finalizers: 'Names of cleanup steps that must finish before the object goes away. While the list is not empty a delete only sets deletionTimestamp; whoever owns a finalizer removes it when done.',
  managedFields: 'Which field manager set which fields, in which version: the record server-side apply uses to detect conflicts. Kept up to date by the server on every write.',
};

export const objectMetaSchema: JsonSchema = described(
  {
    type: 'object',
    properties: {
      name: str,
      generateName: str,
      namespace: str,
      selfLink: str,
      uid: str,
      resourceVersion: str,
      generation: int64,
      creationTimestamp: time,
      deletionTimestamp: time,
      deletionGracePeriodSeconds: int64,
      labels: strMap,
      annotations: strMap,
      ownerReferences: {
        type: 'array',
        items: ownerReferenceSchema,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      finalizers: {
        type: 'array',
        items: str,
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
      managedFields: { type: 'array', items: managedFieldsEntrySchema, 'x-kubernetes-list-type': 'atomic' },
    },
    additionalProperties: false,
  },
  objectMetaDocs,
  'Metadata every stored object carries: its identity (name, namespace, uid), its version, labels and annotations, owners, finalizers and who manages which fields.',
);

export const listMetaSchema: JsonSchema = described(
  { type: 'object', properties: { selfLink: str, resourceVersion: str, continue: str, remainingItemCount: int64 }, additionalProperties: false },
  {
    selfLink: 'Not filled in by this server; kept so old clients can read lists that carry it.',
    resourceVersion: 'Store revision the list was read at. A watch started from it sees every change made after the list, and nothing twice.',
    continue:
      "Opaque token for the next page when the list was cut short by `limit`; empty on the last page. The next page is read at the same revision; once that revision has left the server's change window the token answers 410 Gone.",
    remainingItemCount: 'How many items are left after this page, when the server can tell (not with a label or field selector).',
  },
  'Metadata of a list: the revision it was read at and, for paged lists, how to get the rest.',
);

const API_VERSION_DOC = 'Group and version of the schema this object is written in: `<group>/<version>`, or `v1` for the core group. The server answers in the version asked for in the URL.';
const KIND_DOC = 'Kind of the object, in CamelCase (Pod, Deployment). It names the schema; the resource comes from the URL.';

export interface SchemaGvk {
  group: string;
  version: string;
  kind: string;
}

/**
 * The whole object: `apiVersion`, `kind` and `metadata` in front of the type's own fields.
 * The body's own `apiVersion`/`kind`/`metadata` declarations, if any, are overridden.
 */
export function objectSchemaFor(body: JsonSchema, gvk?: SchemaGvk): JsonSchema {
  const props = (body.properties ?? {}) as Record<string, JsonSchema>;
  const schema: JsonSchema = {
    ...body,
    type: 'object',
    properties: {
      apiVersion: { type: 'string', description: API_VERSION_DOC },
      kind: { type: 'string', description: KIND_DOC },
      metadata: objectMetaSchema,
      ...Object.fromEntries(Object.entries(props).filter(([k]) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata')),
    },
  };
  if (body.properties === undefined && body.additionalProperties === undefined) {
    // A body that models nothing means "anything goes", not "keep only apiVersion/kind/metadata".
    schema['x-kubernetes-preserve-unknown-fields'] = true;
  }
  if (gvk) schema['x-kubernetes-group-version-kind'] = [{ group: gvk.group, version: gvk.version, kind: gvk.kind }];
  return schema;
}

/** `<Kind>List`: ListMeta plus the items. */
export function listSchemaFor(item: JsonSchema, gvk?: SchemaGvk): JsonSchema {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: listMetaSchema,
      items: { type: 'array', items: item },
    },
    required: ['items'],
    additionalProperties: false,
  };
  if (gvk) schema['x-kubernetes-group-version-kind'] = [{ group: gvk.group, version: gvk.version, kind: gvk.kind }];
  return schema;
}
