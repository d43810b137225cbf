// The shape of a CustomResourceDefinition object (apiextensions v1) for the registry. The schema
// language inside `openAPIV3Schema` is recursive and kept free-form here: schema-props.ts reads it
// and the validation modules hold its rules. No `required` lists: upstream reports missing fields
// from its validation, at paths the schema could not name (the hoisted `spec.validation`, `JSONPath`).

import type { JsonSchema } from '../../../api/types.js';
import { webhookClientConfigDocs, webhookServiceReference } from '../admissionregistration/webhook.js';
import { atomicList, bool, bytes, described, docsOf, int32, mapList, obj, str, time } from '../common/schema.js';

const names = obj({ plural: str, singular: str, shortNames: atomicList(str), kind: str, listKind: str, categories: atomicList(str) });

const requestedNames = described(
  names,
  {
    plural: 'Plural name of the resource, as it appears in URLs (`/apis/<group>/<version>/<plural>`): lowercase, a DNS label. Required; cannot be changed.',
    singular: 'Singular name of the resource, lowercase, for kubectl and discovery. Defaults to the lowercased kind.',
    shortNames: 'Short aliases of the resource for kubectl (`kubectl get <short>`), lowercase DNS labels.',
    kind: 'Kind of the objects, in CamelCase and singular (the `kind` field of each object). Required; cannot be changed once the definition is established.',
    listKind: 'Kind of lists of the objects. Defaults to `<kind>List`; may not equal kind.',
    categories: 'Groups of resources this one joins, so that `kubectl get <category>` (for example `all`) lists it too.',
  },
  'The names the resource is served under. They must not clash with the names other definitions of the same group already hold.',
);

const acceptedNames = described(
  names,
  {
    plural: 'Plural name being served.',
    singular: 'Singular name being served.',
    shortNames: 'Short names being served.',
    kind: 'Kind being served.',
    listKind: 'List kind being served.',
    categories: 'Categories the resource is listed in.',
  },
  'The names the resource is actually served under: spec.names once the server found them free in the group, with defaults filled in. Written by the server.',
);

// The schema language is recursive and validated by its own rules (schema-props.ts, openapi-rules.ts):
// published as one free-form field, so kubectl explain stops here.
const jsonSchemaProps: JsonSchema = {
  type: 'object',
  description:
    'An OpenAPI v3 schema of the objects of this version, in the structural form the server requires: every field has a type, and extensions such as x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string, x-kubernetes-embedded-resource, x-kubernetes-list-type and x-kubernetes-validations (CEL rules) are allowed. The server validates objects against it, fills in its defaults and removes fields it does not know.',
  'x-kubernetes-preserve-unknown-fields': true,
};

const column = described(
  obj({ name: str, type: str, format: str, description: str, priority: int32, jsonPath: str }),
  {
    name: 'Column heading. Required.',
    type: 'Type of the values: integer, number, string, boolean or date (shown as an age). Required.',
    format: 'Optional format of the values: int32, int64, float, double, byte, date, date-time or password.',
    description: 'Readable description of the column, shown with the table definition.',
    priority: 'Importance of the column: 0 (the default) is always shown, higher ones only in the wide output (`-o wide`).',
    jsonPath: 'Simple JSON path, starting with `.`, to the value in each object, such as `.spec.replicas`. Required.',
  },
  'A column of the tables the server prints for this version (`kubectl get`), besides Name and Age.',
);

const scale = described(
  obj({ specReplicasPath: str, statusReplicasPath: str, labelSelectorPath: str }),
  {
    specReplicasPath: 'JSON path under `.spec` of the wanted number of replicas; the scale subresource reads and writes spec.replicas there. Required.',
    statusReplicasPath: 'JSON path under `.status` of the current number of replicas, read as status.replicas of the scale subresource. Required.',
    labelSelectorPath:
      'JSON path under `.spec` or `.status` of the label selector of the pods, in string form, read as status.selector of the scale subresource (the horizontal pod autoscaler needs it). Optional.',
  },
  'Serves `/scale`, so that kubectl scale and autoscalers can change the replicas of these objects.',
);

const subresources = described(
  obj({ status: obj({}), scale }),
  {
    status:
      'Set (to `{}`) to serve `/status`: the main resource then ignores changes to status, `/status` changes only status, and metadata.generation counts changes of everything but status and metadata.',
    scale: 'Set to serve `/scale`.',
  },
  'Subresources served for objects of this version.',
);

const version = described(
  obj({
    name: str,
    served: bool,
    storage: bool,
    deprecated: bool,
    deprecationWarning: str,
    schema: described(
      obj({ openAPIV3Schema: jsonSchemaProps }),
      { openAPIV3Schema: `${String(jsonSchemaProps.description)} Required in v1.` },
      'How objects of the version are validated, defaulted and pruned.',
    ),
    subresources,
    additionalPrinterColumns: atomicList(column),
    selectableFields: atomicList(
      described(obj({ jsonPath: str }), { jsonPath: 'JSON path, starting with `.`, of a string, integer or boolean field of the schema. Required.' }, 'A field to select objects by.'),
    ),
  }),
  {
    name: 'Version name, used in URLs (`/apis/<group>/<name>`): a DNS label such as v1, v1beta2 or v2alpha1. Unique in the list. Required.',
    served: 'Whether the version is served over the API. A version that is not served can still be the storage version. Required.',
    storage: 'Whether objects are stored in this version. Exactly one version is the storage version. Required.',
    deprecated: 'When true, every response to a request in this version carries a deprecation warning. Defaults to false.',
    deprecationWarning:
      'Text of the warning sent for a deprecated version, up to 256 printable characters; only allowed when deprecated is true. Omitted means `<group>/<version> <Kind> is deprecated`.',
    schema: 'The schema of the objects in this version.',
    subresources: 'Subresources (status, scale) served for objects in this version.',
    additionalPrinterColumns: 'Columns kubectl get shows for this version besides Name and Age. Without any, the table has Name and Age.',
    selectableFields:
      'Fields of the schema to allow as field selectors, at most 8, each a distinct path: `.spec.color` makes `spec.color` a field selector key (=, ==, !=) for list, watch and deletecollection through this version, besides metadata.name and metadata.namespace; other keys are refused with 400. A string compares as it is, an integer or boolean as its text, an absent field as the empty string. Published as `x-kubernetes-selectable-fields` on the kind in OpenAPI. With a conversion webhook the value is read from the object as stored (the storage version), not as converted.',
  },
  'One version of the custom resource: whether it is served and stored, its schema, subresources and printer columns.',
);

const clientConfig = described(
  obj({
    url: str,
    service: described(
      obj({ namespace: str, name: str, path: str, port: int32 }),
      { ...docsOf(webhookServiceReference), path: 'URL path requests are sent to. Omitted means `/`.' },
      String(webhookServiceReference.description),
    ),
    caBundle: bytes,
  }),
  webhookClientConfigDocs,
  'How the server reaches the conversion webhook over TLS.',
);

const conversion = described(
  obj({
    strategy: str,
    webhook: described(
      obj({ clientConfig, conversionReviewVersions: atomicList(str) }),
      {
        clientConfig: 'How to reach the webhook. Required with strategy Webhook.',
        conversionReviewVersions: 'ConversionReview versions the webhook understands, in order of preference; the server sends the first it speaks (v1 or v1beta1). Required with strategy Webhook.',
      },
      'The conversion webhook; only with strategy Webhook.',
    ),
  }),
  {
    strategy: 'None (the default) only rewrites apiVersion, so every version must share one layout; Webhook sends objects to the webhook to convert them between versions.',
    webhook: 'The conversion webhook; required with strategy Webhook and not allowed otherwise.',
  },
  'How objects are converted between the versions of the resource when they are read or written in a version other than the storage version.',
);

const condition = described(
  obj({ type: str, status: str, lastTransitionTime: time, reason: str, message: str }),
  {
    type: 'NamesAccepted (spec.names are free in the group), Established (the resource is served) or Terminating (the definition is being deleted and its objects removed).',
    status: 'True, False or Unknown.',
    lastTransitionTime: 'When status last changed.',
    reason: 'Machine-readable reason for the status, in CamelCase, such as InitialNamesAccepted or PluralConflict.',
    message: 'Readable details of the status.',
  },
  'One aspect of the state of the definition, as the server sees it.',
);

export const customResourceDefinitionSchema: JsonSchema = described(
  obj({
    spec: described(
      obj({ group: str, names: requestedNames, scope: str, versions: atomicList(version), conversion, preserveUnknownFields: bool }),
      {
        group:
          "API group of the resource (`/apis/<group>/...`): a DNS subdomain with at least one dot, not one of the server's built-in groups. Required; cannot be changed. The definition must be named `<plural>.<group>`.",
        names: 'The names the resource is served under. Required.',
        scope: 'Namespaced or Cluster: whether objects live in a namespace. Required; cannot be changed once the definition is established.',
        versions:
          'The versions of the resource, at least one, with exactly one marked as the storage version. Discovery lists them in version order (v2 before v1 before v1beta1), the first one preferred.',
        conversion: 'How objects are converted between versions. Defaults to strategy None.',
        preserveUnknownFields:
          'Must be false in v1: fields the schema does not know are removed. To keep unknown fields in part of an object, set x-kubernetes-preserve-unknown-fields there in the schema. A stored definition that has true may keep it.',
      },
      'The resource the definition adds: group, names, scope and versions.',
    ),
    status: described(
      obj({ conditions: mapList(condition, ['type']), acceptedNames, storedVersions: atomicList(str) }),
      {
        conditions: 'NamesAccepted, Established and Terminating.',
        acceptedNames: 'The names actually served; they may lag behind spec.names or differ from them when another definition holds a name.',
        storedVersions:
          'Every version objects may have been stored in: the server adds the storage version whenever it changes. A version listed here cannot be removed from spec.versions; after migrating the stored objects, remove it here through `/status` first.',
      },
      'What the server made of the definition: accepted names, conditions and the versions objects were stored in.',
    ),
  }),
  {
    spec: 'The resource to add.',
    status: 'What the server made of the definition. Written by the server.',
  },
  'Adds a resource to the API: the server serves its objects under `/apis/<group>/<version>/` with the given names and validates them against the schema of each version, as it serves built-in kinds. The definition is named `<plural>.<group>`; deleting it deletes all of its objects.',
);
