// Schema pieces shared by many built-in types: selectors, references, conditions and the
// metadata embedded in templates (the top-level metadata is the registry's own).

import { arr, atomicList, bool, int64, mapList, obj, partial, quantityMap, str, strEnum, strMap, time } from './schema.js';
import type { JsonSchema } from '../../../api/types.js';

export const labelSelectorRequirement: JsonSchema = obj({ key: str, operator: strEnum('In', 'NotIn', 'Exists', 'DoesNotExist'), values: atomicList(str) }, ['key', 'operator']);

export const labelSelector: JsonSchema = obj({ matchLabels: strMap, matchExpressions: atomicList(labelSelectorRequirement) }, undefined, { 'x-kubernetes-map-type': 'atomic' });

export const objectReference: JsonSchema = obj({ kind: str, namespace: str, name: str, uid: str, apiVersion: str, resourceVersion: str, fieldPath: str }, undefined, {
  'x-kubernetes-map-type': 'atomic',
});

export const localObjectReference: JsonSchema = obj({ name: str }, undefined, { 'x-kubernetes-map-type': 'atomic' });

export const typedLocalObjectReference: JsonSchema = obj({ apiGroup: str, kind: str, name: str }, ['kind', 'name'], { 'x-kubernetes-map-type': 'atomic' });

export const secretReference: JsonSchema = obj({ name: str, namespace: str }, undefined, { 'x-kubernetes-map-type': 'atomic' });

const ownerReference: JsonSchema = obj({ apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool }, ['apiVersion', 'kind', 'name', 'uid']);

/**
 * ObjectMeta inside templates (pod templates, PVC templates). Only what controllers copy onto
 * created objects matters; server-owned fields are accepted and ignored as upstream does.
 */
export const embeddedObjectMeta: JsonSchema = partial({
  name: str,
  generateName: str,
  namespace: str,
  labels: strMap,
  annotations: strMap,
  finalizers: arr(str),
  ownerReferences: mapList(ownerReference, ['uid']),
  uid: str,
  creationTimestamp: { type: ['string', 'null'], format: 'date-time' },
});

/** metav1.Condition, the shape newer APIs use for `status.conditions`. */
export const metaCondition: JsonSchema = obj(
  {
    type: str,
    status: strEnum('True', 'False', 'Unknown'),
    observedGeneration: int64,
    lastTransitionTime: time,
    reason: str,
    message: str,
  },
  ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
);

/** The older per-type condition shape (`lastUpdateTime`/`lastProbeTime` vary by type). */
export function typedCondition(extraTimes: string[] = []): JsonSchema {
  const props: Record<string, JsonSchema> = { type: str, status: str, lastTransitionTime: time, reason: str, message: str };
  for (const t of extraTimes) props[t] = time;
  return obj(props, ['type', 'status']);
}

export function conditionList(item: JsonSchema): JsonSchema {
  return mapList(item, ['type']);
}

export const resourceRequirements: JsonSchema = obj({
  limits: quantityMap,
  requests: quantityMap,
  claims: mapList(obj({ name: str }, ['name']), ['name']),
});

export const topologySelectorTerm: JsonSchema = obj({
  matchLabelExpressions: atomicList(obj({ key: str, values: atomicList(str) }, ['key', 'values'])),
});
