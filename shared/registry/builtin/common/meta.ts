// Schema pieces shared by many built-in types: selectors, references, conditions and the
// metadata embedded in templates (the top-level metadata is the registry's own).

import { arr, atomicList, bool, described, docsOf, int64, mapList, obj, partial, quantityMap, str, strEnum, strMap, time } from './schema.js';
import { objectMetaSchema, ownerReferenceSchema } from '../../object-meta.js';
import type { JsonSchema } from '../../../api/types.js';

export const labelSelectorRequirement: JsonSchema = described(
  obj({ key: str, operator: strEnum('In', 'NotIn', 'Exists', 'DoesNotExist'), values: atomicList(str) }, ['key', 'operator']),
  {
    key: 'Label key the requirement tests.',
    operator: 'How the label is tested: In and NotIn compare its value with values; Exists and DoesNotExist only look at whether the key is present.',
    values: 'Values for In and NotIn (at least one); must be empty for Exists and DoesNotExist.',
  },
  'One condition on a label of an object.',
);

export const labelSelector: JsonSchema = described(
  obj({ matchLabels: strMap, matchExpressions: atomicList(labelSelectorRequirement) }, undefined, { 'x-kubernetes-map-type': 'atomic' }),
  {
    matchLabels: 'Labels an object must carry with exactly these values. Each entry is the same as a matchExpressions entry with operator In and that single value.',
    matchExpressions: 'Further conditions on labels. An object matches when it meets every entry here and in matchLabels.',
  },
  'A query over labels. An empty selector matches every object; a missing one matches none.',
);

export const objectReference: JsonSchema = described(
  obj({ kind: str, namespace: str, name: str, uid: str, apiVersion: str, resourceVersion: str, fieldPath: str }, undefined, { 'x-kubernetes-map-type': 'atomic' }),
  {
    kind: 'Kind of the object referred to.',
    namespace: 'Namespace of the object; empty for cluster-scoped objects.',
    name: 'Name of the object.',
    uid: 'The uid of the object, to tell it from an object created later under the same name.',
    apiVersion: 'API version of the object (`<group>/<version>`, or `v1`).',
    resourceVersion: 'Version of the object the reference was made against, when it matters which one.',
    fieldPath: 'A part of the object rather than the whole, written as a field path such as `spec.containers{web}`.',
  },
  'A reference to an object of any kind, or to a part of it.',
);

export const localObjectReference: JsonSchema = described(
  obj({ name: str }, undefined, { 'x-kubernetes-map-type': 'atomic' }),
  { name: 'Name of the object, in the namespace of the object that refers to it.' },
  'A reference by name to an object in the same namespace.',
);

export const typedLocalObjectReference: JsonSchema = described(
  obj({ apiGroup: str, kind: str, name: str }, ['kind', 'name'], { 'x-kubernetes-map-type': 'atomic' }),
  {
    apiGroup: 'API group of the object; empty for the core group.',
    kind: 'Kind of the object.',
    name: 'Name of the object.',
  },
  'A reference to an object of a given kind in the same namespace.',
);

export const secretReference: JsonSchema = described(
  obj({ name: str, namespace: str }, undefined, { 'x-kubernetes-map-type': 'atomic' }),
  { name: 'Name of the secret.', namespace: 'Namespace of the secret.' },
  'A reference to a secret in any namespace.',
);

const ownerReference: JsonSchema = described(
  obj({ apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool }, ['apiVersion', 'kind', 'name', 'uid']),
  docsOf(ownerReferenceSchema),
  String(ownerReferenceSchema.description),
);

/**
 * ObjectMeta inside templates (pod templates, PVC templates). Only what controllers copy onto
 * created objects matters; server-owned fields are accepted and ignored as upstream does.
 */
export const embeddedObjectMeta: JsonSchema = described(
  partial({
    name: str,
    generateName: str,
    namespace: str,
    labels: strMap,
    annotations: strMap,
    finalizers: arr(str),
    ownerReferences: mapList(ownerReference, ['uid']),
    uid: str,
    creationTimestamp: { type: ['string', 'null'], format: 'date-time' },
  }),
  {
    ...docsOf(objectMetaSchema, ['name', 'generateName', 'namespace', 'labels', 'annotations', 'finalizers', 'ownerReferences']),
    uid: 'Ignored in a template: each object made from it gets a uid of its own.',
    creationTimestamp: 'Ignored in a template: each object made from it gets its own creation time.',
  },
  'Metadata given to the objects made from a template: chiefly their labels and annotations (a controller fills in names, owners and the rest).',
);

const conditionDocs = {
  type: 'Kind of condition, in CamelCase (Ready, Available). Each type appears at most once in the list.',
  status: 'Whether the condition holds: True, False or Unknown.',
  observedGeneration: 'The metadata.generation the condition was computed from; lower than the current generation means the condition may be stale.',
  lastTransitionTime: 'When status last changed from one value to another.',
  reason: 'Machine-readable reason for the last transition, in CamelCase.',
  message: 'Readable details of the last transition.',
  lastUpdateTime: 'When the condition was last updated, whether or not its status changed.',
  lastProbeTime: 'When the condition was last checked.',
  lastHeartbeatTime: 'When the reporter last confirmed the condition.',
};

const CONDITION_ABOUT = 'One aspect of the current state of an object, as its controller observed it.';

function condition(props: Record<string, JsonSchema>, required: string[]): JsonSchema {
  const docs = Object.fromEntries(Object.keys(props).map((k) => [k, conditionDocs[k as keyof typeof conditionDocs]]));
  return described(obj(props, required), docs, CONDITION_ABOUT);
}

/** metav1.Condition, the shape newer APIs use for `status.conditions`. */
export const metaCondition: JsonSchema = condition({ type: str, status: strEnum('True', 'False', 'Unknown'), observedGeneration: int64, lastTransitionTime: time, reason: str, message: str }, [
  'type',
  'status',
  'lastTransitionTime',
  'reason',
  'message',
]);

/** The older per-type condition shape (`lastUpdateTime`/`lastProbeTime` vary by type). */
export function typedCondition(extraTimes: Array<'lastUpdateTime' | 'lastProbeTime' | 'lastHeartbeatTime'> = []): JsonSchema {
  const props: Record<string, JsonSchema> = { type: str, status: str, lastTransitionTime: time, reason: str, message: str };
  for (const t of extraTimes) props[t] = time;
  return condition(props, ['type', 'status']);
}

export function conditionList(item: JsonSchema): JsonSchema {
  return mapList(item, ['type']);
}

export const resourceRequirements: JsonSchema = described(
  obj({
    limits: quantityMap,
    requests: quantityMap,
    claims: mapList(described(obj({ name: str }, ['name']), { name: 'Name of an entry in spec.resourceClaims of the pod.' }), ['name']),
  }),
  {
    limits:
      'Most of each resource the container may use, by resource name (cpu in cores or millicores such as 500m, memory in bytes such as 128Mi). For a pod, a missing request defaults to its limit.',
    requests: 'Amount of each resource the container is guaranteed and the scheduler reserves for it on a node. It may not exceed the limit for the same resource.',
    claims: 'Dynamically allocated resources (from spec.resourceClaims) this container uses.',
  },
  'Compute resources a container asks for (requests) and may not exceed (limits).',
);

export const topologySelectorTerm: JsonSchema = described(
  obj({
    matchLabelExpressions: atomicList(
      described(obj({ key: str, values: atomicList(str) }, ['key', 'values']), { key: 'Topology label key.', values: 'Values of the label that match; at least one.' }),
    ),
  }),
  { matchLabelExpressions: 'Label conditions a topology domain must meet, all of them.' },
  'A set of topology domains, chosen by node labels.',
);
