// The shape of a CustomResourceDefinition object (apiextensions v1) for the registry. The schema
// language inside `openAPIV3Schema` is recursive and kept free-form here: schema-props.ts reads it
// and the validation modules hold its rules. No `required` lists: upstream reports missing fields
// from its validation, at paths the schema could not name (the hoisted `spec.validation`, `JSONPath`).

import type { JsonSchema } from '../../../api/types.js';
import { atomicList, bool, bytes, describe, int32, mapList, obj, str, time } from '../common/schema.js';

const names = obj({
  plural: describe(str, 'plural is the plural name of the resource to serve, lowercase: /apis/<group>/<version>/.../<plural>.'),
  singular: describe(str, 'singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.'),
  shortNames: atomicList(str),
  kind: describe(str, 'kind is the serialized kind of the resource. It is normally CamelCase and singular.'),
  listKind: describe(str, 'listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
  categories: atomicList(str),
});

const jsonSchemaProps: JsonSchema = {
  type: 'object',
  description: 'openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.',
  'x-kubernetes-preserve-unknown-fields': true,
};

const column = obj({
  name: str,
  type: str,
  format: str,
  description: str,
  priority: int32,
  jsonPath: str,
});

const subresources = obj({
  status: obj({}),
  scale: obj({ specReplicasPath: str, statusReplicasPath: str, labelSelectorPath: str }),
});

const version = obj({
  name: str,
  served: bool,
  storage: bool,
  deprecated: bool,
  deprecationWarning: str,
  schema: obj({ openAPIV3Schema: jsonSchemaProps }),
  subresources,
  additionalPrinterColumns: atomicList(column),
  selectableFields: atomicList(obj({ jsonPath: str })),
});

const clientConfig = obj({
  url: str,
  service: obj({ namespace: str, name: str, path: str, port: int32 }),
  caBundle: bytes,
});

const conversion = obj({
  strategy: describe(str, 'strategy specifies how custom resources are converted between versions: None or Webhook.'),
  webhook: obj({ clientConfig, conversionReviewVersions: atomicList(str) }),
});

const condition = obj({
  type: str,
  status: str,
  lastTransitionTime: time,
  reason: str,
  message: str,
});

export const customResourceDefinitionSchema: JsonSchema = obj({
  spec: obj({
    group: describe(str, 'group is the API group of the defined custom resource: /apis/<group>/....'),
    names,
    scope: describe(str, 'scope indicates whether the defined custom resource is cluster- or namespace-scoped: Cluster or Namespaced.'),
    versions: atomicList(version),
    conversion,
    preserveUnknownFields: bool,
  }),
  status: obj({
    conditions: mapList(condition, ['type']),
    acceptedNames: names,
    storedVersions: atomicList(str),
  }),
});
