// The shapes of HorizontalPodAutoscaler in each served version. v2 (the storage version) and
// v2beta2 describe metrics as {metric, target} pairs and carry scaling behavior; v2beta1 spells
// targets as targetAverageUtilization/targetAverageValue/targetValue beside metricName; v1 has only
// a CPU utilization target and keeps the rest in annotations (hpa-conversion.ts). Semantic checks
// live in hpa-validation.ts, against the v2 form, so these schemas only describe types.

import type { JsonSchema } from '../../../api/types.js';
import { conditionList, labelSelector, typedCondition } from '../common/meta.js';
import { atomicList, int32, int64, obj, quantity, str, time } from '../common/schema.js';

const crossVersionObjectReference = obj({ kind: str, name: str, apiVersion: str });
const condition = typedCondition();

// ---- v2 and v2beta2 ---------------------------------------------------------------------------

const metricIdentifier = obj({ name: str, selector: labelSelector });
const metricTarget = obj({ type: str, value: quantity, averageValue: quantity, averageUtilization: int32 });
const metricValueStatus = obj({ value: quantity, averageValue: quantity, averageUtilization: int32 });

const metricSpec = obj({
  type: str,
  object: obj({ describedObject: crossVersionObjectReference, target: metricTarget, metric: metricIdentifier }),
  pods: obj({ metric: metricIdentifier, target: metricTarget }),
  resource: obj({ name: str, target: metricTarget }),
  containerResource: obj({ name: str, target: metricTarget, container: str }),
  external: obj({ metric: metricIdentifier, target: metricTarget }),
});

const metricStatus = obj({
  type: str,
  object: obj({ metric: metricIdentifier, current: metricValueStatus, describedObject: crossVersionObjectReference }),
  pods: obj({ metric: metricIdentifier, current: metricValueStatus }),
  resource: obj({ name: str, current: metricValueStatus }),
  containerResource: obj({ name: str, current: metricValueStatus, container: str }),
  external: obj({ metric: metricIdentifier, current: metricValueStatus }),
});

const scalingRules = obj({
  stabilizationWindowSeconds: int32,
  selectPolicy: str,
  policies: atomicList(obj({ type: str, value: int32, periodSeconds: int32 })),
});

/** v2 merges status conditions by type (patch strategy and apply list type); v2beta2's list is atomic. */
function v2Shape(conditions: JsonSchema): JsonSchema {
  return obj({
    spec: obj({
      scaleTargetRef: crossVersionObjectReference,
      minReplicas: int32,
      maxReplicas: int32,
      metrics: atomicList(metricSpec),
      behavior: obj({ scaleUp: scalingRules, scaleDown: scalingRules }),
    }),
    status: obj({
      observedGeneration: int64,
      lastScaleTime: time,
      currentReplicas: int32,
      desiredReplicas: int32,
      currentMetrics: atomicList(metricStatus),
      conditions,
    }),
  });
}

export const v2Schema = v2Shape(conditionList(condition));
export const v2beta2Schema = v2Shape(atomicList(condition));

// ---- v2beta1 (and the metric lists v1 keeps in annotations) ------------------------------------

const betaMetricSpec = obj({
  type: str,
  object: obj({ target: crossVersionObjectReference, metricName: str, targetValue: quantity, selector: labelSelector, averageValue: quantity }),
  pods: obj({ metricName: str, targetAverageValue: quantity, selector: labelSelector }),
  resource: obj({ name: str, targetAverageUtilization: int32, targetAverageValue: quantity }),
  containerResource: obj({ name: str, targetAverageUtilization: int32, targetAverageValue: quantity, container: str }),
  external: obj({ metricName: str, metricSelector: labelSelector, targetValue: quantity, targetAverageValue: quantity }),
});

const betaMetricStatus = obj({
  type: str,
  object: obj({ target: crossVersionObjectReference, metricName: str, currentValue: quantity, selector: labelSelector, averageValue: quantity }),
  pods: obj({ metricName: str, currentAverageValue: quantity, selector: labelSelector }),
  resource: obj({ name: str, currentAverageUtilization: int32, currentAverageValue: quantity }),
  containerResource: obj({ name: str, currentAverageUtilization: int32, currentAverageValue: quantity, container: str }),
  external: obj({ metricName: str, metricSelector: labelSelector, currentValue: quantity, currentAverageValue: quantity }),
});

export const v2beta1Schema = obj({
  spec: obj({ scaleTargetRef: crossVersionObjectReference, minReplicas: int32, maxReplicas: int32, metrics: atomicList(betaMetricSpec) }),
  status: obj({
    observedGeneration: int64,
    lastScaleTime: time,
    currentReplicas: int32,
    desiredReplicas: int32,
    currentMetrics: atomicList(betaMetricStatus),
    conditions: atomicList(condition),
  }),
});

// ---- v1 ----------------------------------------------------------------------------------------

export const v1Schema = obj({
  spec: obj({ scaleTargetRef: crossVersionObjectReference, minReplicas: int32, maxReplicas: int32, targetCPUUtilizationPercentage: int32 }),
  status: obj({ observedGeneration: int64, lastScaleTime: time, currentReplicas: int32, desiredReplicas: int32, currentCPUUtilizationPercentage: int32 }),
});
