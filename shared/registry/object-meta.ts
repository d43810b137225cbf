import type { JsonSchema } from '../api/types.js';
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

export const ownerReferenceSchema: JsonSchema = {
  type: 'object',
  description: 'Enough information to identify an owning object in the same namespace (or cluster-scoped).',
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
};

export const managedFieldsEntrySchema: JsonSchema = {
  type: 'object',
  description: 'The fields a manager owns, recorded by server-side apply and updates.',
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
};

export const objectMetaSchema: JsonSchema = {
  type: 'object',
  description: 'Metadata all persisted resources carry.',
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
};

export const listMetaSchema: JsonSchema = {
  type: 'object',
  description: 'Metadata of synthetic collections (lists).',
  properties: {
    selfLink: str,
    resourceVersion: str,
    continue: str,
    remainingItemCount: int64,
  },
  additionalProperties: false,
};

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
      apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'The REST resource this object represents.' },
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
