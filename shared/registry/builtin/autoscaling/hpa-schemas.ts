// The shapes of HorizontalPodAutoscaler in each served version. v2 (the storage version) and
// v2beta2 describe metrics as {metric, target} pairs and carry scaling behavior; v2beta1 spells
// targets as targetAverageUtilization/targetAverageValue/targetValue beside metricName; v1 has only
// a CPU utilization target and keeps the rest in annotations (hpa-conversion.ts). Semantic checks
// live in hpa-validation.ts, against the v2 form, so these schemas only describe types.

import type { JsonSchema } from '../../../api/types.js';
import type { FieldDocs } from '../../schema-docs.js';
import { conditionList, labelSelector, typedCondition } from '../common/meta.js';
import { atomicList, described, int32, int64, obj, quantity, str, time } from '../common/schema.js';
import * as docs from './hpa-docs.js';

const crossVersionObjectReference = described(obj({ kind: str, name: str, apiVersion: str }), docs.objectRefDocs, docs.OBJECT_REF_ABOUT);
const condition = typedCondition();

// ---- v2 and v2beta2 ---------------------------------------------------------------------------

const metricIdentifier = described(obj({ name: str, selector: labelSelector }), docs.metricIdentifierDocs, docs.METRIC_IDENTIFIER_ABOUT);
const metricTarget = described(obj({ type: str, value: quantity, averageValue: quantity, averageUtilization: int32 }), docs.metricTargetDocs, docs.METRIC_TARGET_ABOUT);
const metricValueStatus = described(obj({ value: quantity, averageValue: quantity, averageUtilization: int32 }), docs.metricValueDocs, docs.METRIC_VALUE_ABOUT);

/** The five metric sources of a spec or status entry, each with its own field texts. */
function sources(texts: Record<string, FieldDocs>, props: Record<string, Record<string, JsonSchema>>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(props).map(([k, p]) => [k, described(obj(p), texts[k]!, docs.SOURCE_ABOUT[k])]));
}

const metricSpec = described(
  obj({
    type: str,
    ...sources(docs.sourceDocs('target'), {
      object: { describedObject: crossVersionObjectReference, target: metricTarget, metric: metricIdentifier },
      pods: { metric: metricIdentifier, target: metricTarget },
      resource: { name: str, target: metricTarget },
      containerResource: { name: str, target: metricTarget, container: str },
      external: { metric: metricIdentifier, target: metricTarget },
    }),
  }),
  docs.metricSpecDocs,
  docs.METRIC_SPEC_ABOUT,
);

const metricStatus = described(
  obj({
    type: str,
    ...sources(docs.sourceDocs('current'), {
      object: { metric: metricIdentifier, current: metricValueStatus, describedObject: crossVersionObjectReference },
      pods: { metric: metricIdentifier, current: metricValueStatus },
      resource: { name: str, current: metricValueStatus },
      containerResource: { name: str, current: metricValueStatus, container: str },
      external: { metric: metricIdentifier, current: metricValueStatus },
    }),
  }),
  docs.metricStatusDocs,
  docs.METRIC_STATUS_ABOUT,
);

const scalingRules = described(
  obj({
    stabilizationWindowSeconds: int32,
    selectPolicy: str,
    policies: atomicList(described(obj({ type: str, value: int32, periodSeconds: int32 }), docs.policyDocs, docs.POLICY_ABOUT)),
  }),
  docs.scalingRulesDocs,
  docs.SCALING_RULES_ABOUT,
);

/** v2 merges status conditions by type (patch strategy and apply list type); v2beta2's list is atomic. */
function v2Shape(conditions: JsonSchema): JsonSchema {
  const spec = obj({
    scaleTargetRef: crossVersionObjectReference,
    minReplicas: int32,
    maxReplicas: int32,
    metrics: atomicList(metricSpec),
    behavior: described(obj({ scaleUp: scalingRules, scaleDown: scalingRules }), docs.behaviorDocs, docs.BEHAVIOR_ABOUT),
  });
  const status = obj({
    observedGeneration: int64,
    lastScaleTime: time,
    currentReplicas: int32,
    desiredReplicas: int32,
    currentMetrics: atomicList(metricStatus),
    conditions,
  });
  return hpa(spec, docs.v2SpecDocs, status, docs.v2StatusDocs, docs.V2_ABOUT);
}

/** An autoscaler of one version: its spec and status, each with its field texts. */
function hpa(spec: JsonSchema, specDocs: FieldDocs, status: JsonSchema, statusDocs: FieldDocs, about: string): JsonSchema {
  return described(obj({ spec: described(spec, specDocs, docs.SPEC_ABOUT), status: described(status, statusDocs, docs.STATUS_ABOUT) }), docs.objectDocs, about);
}

export const v2Schema = v2Shape(conditionList(condition));
export const v2beta2Schema = v2Shape(atomicList(condition));

// ---- v2beta1 (and the metric lists v1 keeps in annotations) ------------------------------------

const betaMetricSpec = described(
  obj({
    type: str,
    ...sources(docs.betaTargetDocs, {
      object: { target: crossVersionObjectReference, metricName: str, targetValue: quantity, selector: labelSelector, averageValue: quantity },
      pods: { metricName: str, targetAverageValue: quantity, selector: labelSelector },
      resource: { name: str, targetAverageUtilization: int32, targetAverageValue: quantity },
      containerResource: { name: str, targetAverageUtilization: int32, targetAverageValue: quantity, container: str },
      external: { metricName: str, metricSelector: labelSelector, targetValue: quantity, targetAverageValue: quantity },
    }),
  }),
  docs.metricSpecDocs,
  docs.METRIC_SPEC_ABOUT,
);

const betaMetricStatus = described(
  obj({
    type: str,
    ...sources(docs.betaCurrentDocs, {
      object: { target: crossVersionObjectReference, metricName: str, currentValue: quantity, selector: labelSelector, averageValue: quantity },
      pods: { metricName: str, currentAverageValue: quantity, selector: labelSelector },
      resource: { name: str, currentAverageUtilization: int32, currentAverageValue: quantity },
      containerResource: { name: str, currentAverageUtilization: int32, currentAverageValue: quantity, container: str },
      external: { metricName: str, metricSelector: labelSelector, currentValue: quantity, currentAverageValue: quantity },
    }),
  }),
  docs.metricStatusDocs,
  docs.METRIC_STATUS_ABOUT,
);

export const v2beta1Schema = hpa(
  obj({ scaleTargetRef: crossVersionObjectReference, minReplicas: int32, maxReplicas: int32, metrics: atomicList(betaMetricSpec) }),
  docs.v2beta1SpecDocs,
  obj({
    observedGeneration: int64,
    lastScaleTime: time,
    currentReplicas: int32,
    desiredReplicas: int32,
    currentMetrics: atomicList(betaMetricStatus),
    conditions: atomicList(condition),
  }),
  docs.v2beta1StatusDocs,
  docs.V2BETA1_ABOUT,
);

// ---- v1 ----------------------------------------------------------------------------------------

export const v1Schema = hpa(
  obj({ scaleTargetRef: crossVersionObjectReference, minReplicas: int32, maxReplicas: int32, targetCPUUtilizationPercentage: int32 }),
  docs.v1SpecDocs,
  obj({ observedGeneration: int64, lastScaleTime: time, currentReplicas: int32, desiredReplicas: int32, currentCPUUtilizationPercentage: int32 }),
  docs.v1StatusDocs,
  docs.V1_ABOUT,
);
