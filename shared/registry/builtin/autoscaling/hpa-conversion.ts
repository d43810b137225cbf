// Conversions between the HorizontalPodAutoscaler versions and the storage version, v2 (the hub).
// v2beta2 has v2's shape. v2beta1 spells metric targets differently and has no `behavior`, which
// travels in an annotation. v1 holds one CPU utilization target; every other metric, the current
// metrics, the conditions and the behavior travel in annotations, in the JSON forms upstream writes
// (metrics in the v2beta1 shape, behavior with Go's field names), under the platform's annotation
// domain. What an older version cannot hold survives a read-modify-write through it (spec, rule 2).
//
// Where upstream's conversion loses something this one keeps it, in forms upstream's readers accept:
// - v1 keeps the position of the CPU target among the metrics: when it is not the last metric (or
//   there are several), the metrics annotation lists every metric, and the CPU entry stands for
//   targetCPUUtilizationPercentage (v1's edits of that field apply to it; clearing the field removes it).
// - a v2beta1 object target (or object/external status) with an average value reads `targetValue`
//   "0" (the field is not optional there) as "no value", as a valid hub never has a zero value.// The parts: hpa-metrics (metrics in the v2beta1 shape), hpa-behavior (the behavior annotation and
// its defaults), hpa-fields (Go's field order, annotation JSON).

import type { ApiObject, ObjectMeta } from '../../../api/types.js';
import { asArray, asObject, type Json } from '../common/field-errors.js';
import { decodeBehavior, defaultBehavior, encodeBehavior } from './hpa-behavior.js';
import { fields, parseObjectList } from './hpa-fields.js';
import { conditionCopy, metricSpecFromBeta, metricSpecToBeta, metricStatusFromBeta, metricStatusToBeta } from './hpa-metrics.js';

export { decodeBehavior, defaultBehavior, encodeBehavior } from './hpa-behavior.js';
export { isZeroQuantity, metricSpecFromBeta, metricSpecToBeta, metricStatusFromBeta, metricStatusToBeta } from './hpa-metrics.js';

export const HPA_ANNOTATION = {
  metrics: 'autoscaling.alpha.platform.io/metrics',
  currentMetrics: 'autoscaling.alpha.platform.io/current-metrics',
  conditions: 'autoscaling.alpha.platform.io/conditions',
  behavior: 'autoscaling.alpha.platform.io/behavior',
} as const;

const ROUND_TRIP_ANNOTATIONS: readonly string[] = Object.values(HPA_ANNOTATION);

/** The CPU utilization target an HPA gets when it names no metric (upstream's DefaultCPUUtilization). */
export const DEFAULT_CPU_UTILIZATION = 80;

/** The annotations without the round-trip ones; the same object when it has none of them. */
function withoutRoundTrip(annotations: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!annotations || !ROUND_TRIP_ANNOTATIONS.some((k) => Object.hasOwn(annotations, k))) return annotations;
  const out = { ...annotations };
  for (const k of ROUND_TRIP_ANNOTATIONS) delete out[k];
  return out;
}

/** Metadata with `annotations` in place of the current ones (none when empty, as Go omits an empty map). */
function withAnnotations(meta: ObjectMeta | undefined, annotations: Record<string, string> | undefined): ObjectMeta {
  if (meta && annotations === meta.annotations) return meta;
  const out: ObjectMeta = { ...meta };
  if (annotations && Object.keys(annotations).length > 0) out.annotations = annotations;
  else delete out.annotations;
  return out;
}

export function defaultCpuMetric(utilization = DEFAULT_CPU_UTILIZATION): Json {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } };
}

// ---- v1 <-> v2 ---------------------------------------------------------------------------------

const isCpuResource = (m: Json) => m.type === 'Resource' && asObject(m.resource)?.name === 'cpu';
const cpuUtilization = (m: Json) => (isCpuResource(m) ? asObject(asObject(m.resource)?.target)?.averageUtilization : undefined);
const isCpuUtilization = (m: Json) => cpuUtilization(m) !== undefined && cpuUtilization(m) !== null;

/** The v1 form of a stored (v2) HPA. */
export function hpaV1FromHub(hub: ApiObject): ApiObject {
  const spec = asObject(hub.spec) ?? {};
  const status = asObject(hub.status);
  const metrics = asArray(spec.metrics).map((m) => asObject(m) ?? {});
  const annotations: Record<string, string> = { ...(withoutRoundTrip(hub.metadata.annotations) ?? {}) };

  // targetCPUUtilizationPercentage is the first CPU metric's utilization target, as upstream.
  const firstCpu = metrics.findIndex(isCpuResource);
  const targetCpu = firstCpu >= 0 ? cpuUtilization(metrics[firstCpu]!) : undefined;
  const cpuTargets = metrics.flatMap((m, i) => (isCpuUtilization(m) ? [i] : []));
  // Upstream's form (the CPU target left out of the annotation) loses nothing only when the CPU
  // target is the one CPU utilization metric and comes last; otherwise the annotation lists all.
  const upstreamForm = cpuTargets.length === 0 || (cpuTargets.length === 1 && cpuTargets[0] === firstCpu && firstCpu === metrics.length - 1);
  const inAnnotation = upstreamForm ? metrics.filter((m) => !isCpuUtilization(m)) : metrics;
  if (inAnnotation.length > 0) annotations[HPA_ANNOTATION.metrics] = JSON.stringify(inAnnotation.map(metricSpecToBeta));

  const currentMetrics = asArray(status?.currentMetrics).map((m) => asObject(m) ?? {});
  if (currentMetrics.length > 0) annotations[HPA_ANNOTATION.currentMetrics] = JSON.stringify(currentMetrics.map(metricStatusToBeta));
  const conditions = asArray(status?.conditions).map((c) => asObject(c) ?? {});
  if (conditions.length > 0) annotations[HPA_ANNOTATION.conditions] = JSON.stringify(conditions.map(conditionCopy));
  const behavior = asObject(spec.behavior);
  if (behavior) annotations[HPA_ANNOTATION.behavior] = encodeBehavior(behavior);

  let currentCpu: unknown;
  for (const m of currentMetrics) {
    if (!isCpuResource(m)) continue;
    const u = asObject(asObject(m.resource)?.current)?.averageUtilization;
    if (u !== undefined && u !== null) currentCpu = u;
  }

  const { spec: _spec, status: _status, ...rest } = hub;
  const out: ApiObject = {
    ...rest,
    metadata: withAnnotations(hub.metadata, annotations),
    spec: fields([
      ['scaleTargetRef', spec.scaleTargetRef],
      ['minReplicas', spec.minReplicas],
      ['maxReplicas', spec.maxReplicas],
      ['targetCPUUtilizationPercentage', targetCpu],
    ]),
  };
  if (status) {
    out.status = fields([
      ['observedGeneration', status.observedGeneration],
      ['lastScaleTime', status.lastScaleTime],
      ['currentReplicas', status.currentReplicas ?? 0],
      ['desiredReplicas', status.desiredReplicas],
      ['currentCPUUtilizationPercentage', currentCpu],
    ]);
  }
  return out;
}

/** The metrics a v1 object stands for: the annotation's, with targetCPUUtilizationPercentage placed. */
function v1Metrics(spec: Json, annotation: unknown): Json[] {
  const targetCpu = spec.targetCPUUtilizationPercentage;
  const hasTarget = targetCpu !== undefined && targetCpu !== null;
  const listed = parseObjectList(annotation)?.map(metricSpecFromBeta);
  if (!listed) return hasTarget ? [defaultCpuMetric(targetCpu as number)] : [];
  if (!listed.some(isCpuUtilization)) return hasTarget ? [...listed, defaultCpuMetric(targetCpu as number)] : listed;
  // The annotation lists every metric (see hpaV1FromHub): the first CPU metric's utilization is the v1 field.
  const i = listed.findIndex(isCpuResource);
  if (i >= 0 && isCpuUtilization(listed[i]!)) {
    if (!hasTarget) return listed.filter((_, j) => j !== i);
    const m = listed[i]!;
    const resource = asObject(m.resource)!;
    listed[i] = { ...m, resource: { ...resource, target: { ...asObject(resource.target), averageUtilization: targetCpu } } };
    return listed;
  }
  return hasTarget ? [...listed, defaultCpuMetric(targetCpu as number)] : listed;
}

/** A behavior from an annotation, completed as upstream's read of the stored object would complete it. */
function behaviorFromAnnotation(text: unknown): Json | undefined {
  const b = decodeBehavior(text);
  return b && defaultBehavior(b, false);
}

/** v2 omits a zero currentReplicas; the older versions always write it. */
function hubCurrentReplicas(v: unknown): unknown {
  return v === 0 ? undefined : v;
}

/** The stored (v2) form of a v1 HPA. */
export function hpaV1ToHub(o: ApiObject): ApiObject {
  const spec = asObject(o.spec) ?? {};
  const status = asObject(o.status);
  const ann = o.metadata?.annotations ?? {};
  let metrics = v1Metrics(spec, ann[HPA_ANNOTATION.metrics]);
  // autoscaling/v1 always meant a CPU target; an HPA naming none gets the default one.
  if (metrics.length === 0) metrics = [defaultCpuMetric()];

  const annotatedCurrent = parseObjectList(ann[HPA_ANNOTATION.currentMetrics]);
  const currentCpu = status?.currentCPUUtilizationPercentage;
  const currentMetrics = annotatedCurrent
    ? annotatedCurrent.map(metricStatusFromBeta)
    : currentCpu !== undefined && currentCpu !== null
      ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: currentCpu } } }]
      : undefined;
  const conditions = parseObjectList(ann[HPA_ANNOTATION.conditions])?.map(conditionCopy);

  const { spec: _spec, status: _status, ...rest } = o;
  const out: ApiObject = {
    ...rest,
    metadata: withAnnotations(o.metadata, withoutRoundTrip(o.metadata?.annotations)),
    spec: fields([
      ['scaleTargetRef', spec.scaleTargetRef],
      ['minReplicas', spec.minReplicas],
      ['maxReplicas', spec.maxReplicas],
      ['metrics', metrics],
      ['behavior', behaviorFromAnnotation(ann[HPA_ANNOTATION.behavior])],
    ]),
  };
  if (status || currentMetrics || conditions) {
    const s = status ?? {};
    out.status = fields([
      ['observedGeneration', s.observedGeneration],
      ['lastScaleTime', s.lastScaleTime],
      ['currentReplicas', hubCurrentReplicas(s.currentReplicas)],
      ['desiredReplicas', s.desiredReplicas],
      ['currentMetrics', currentMetrics],
      ['conditions', conditions],
    ]);
  }
  return out;
}

// ---- v2beta1 <-> v2 ----------------------------------------------------------------------------

/** The v2beta1 form of a stored (v2) HPA. */
export function hpaV2beta1FromHub(hub: ApiObject): ApiObject {
  const spec = asObject(hub.spec);
  const status = asObject(hub.status);
  let annotations = withoutRoundTrip(hub.metadata.annotations);
  const behavior = asObject(spec?.behavior);
  if (behavior) annotations = { ...annotations, [HPA_ANNOTATION.behavior]: encodeBehavior(behavior) };
  const { spec: _spec, status: _status, ...rest } = hub;
  const out: ApiObject = { ...rest, metadata: withAnnotations(hub.metadata, annotations) };
  if (spec) {
    out.spec = fields([
      ['scaleTargetRef', spec.scaleTargetRef],
      ['minReplicas', spec.minReplicas],
      ['maxReplicas', spec.maxReplicas],
      ['metrics', Array.isArray(spec.metrics) ? spec.metrics.map((m) => metricSpecToBeta(asObject(m) ?? {})) : undefined],
    ]);
  }
  if (status) {
    out.status = fields([
      ['observedGeneration', status.observedGeneration],
      ['lastScaleTime', status.lastScaleTime],
      ['currentReplicas', status.currentReplicas ?? 0],
      ['desiredReplicas', status.desiredReplicas],
      ['currentMetrics', Array.isArray(status.currentMetrics) ? status.currentMetrics.map((m) => metricStatusToBeta(asObject(m) ?? {})) : undefined],
      ['conditions', Array.isArray(status.conditions) ? status.conditions.map((c) => conditionCopy(asObject(c) ?? {})) : undefined],
    ]);
  }
  return out;
}

/** The stored (v2) form of a v2beta1 HPA. */
export function hpaV2beta1ToHub(o: ApiObject): ApiObject {
  const spec = asObject(o.spec);
  const status = asObject(o.status);
  const behavior = behaviorFromAnnotation(o.metadata?.annotations?.[HPA_ANNOTATION.behavior]);
  const { spec: _spec, status: _status, ...rest } = o;
  const out: ApiObject = { ...rest, metadata: withAnnotations(o.metadata, withoutRoundTrip(o.metadata?.annotations)) };
  if (spec || behavior) {
    const s = spec ?? {};
    out.spec = fields([
      ['scaleTargetRef', s.scaleTargetRef],
      ['minReplicas', s.minReplicas],
      ['maxReplicas', s.maxReplicas],
      ['metrics', Array.isArray(s.metrics) ? s.metrics.map((m) => metricSpecFromBeta(asObject(m) ?? {})) : undefined],
      ['behavior', behavior],
    ]);
  }
  if (status) {
    out.status = fields([
      ['observedGeneration', status.observedGeneration],
      ['lastScaleTime', status.lastScaleTime],
      ['currentReplicas', hubCurrentReplicas(status.currentReplicas)],
      ['desiredReplicas', status.desiredReplicas],
      ['currentMetrics', Array.isArray(status.currentMetrics) ? status.currentMetrics.map((m) => metricStatusFromBeta(asObject(m) ?? {})) : undefined],
      ['conditions', Array.isArray(status.conditions) ? status.conditions.map((c) => conditionCopy(asObject(c) ?? {})) : undefined],
    ]);
  }
  return out;
}

// ---- v2 and v2beta2 ----------------------------------------------------------------------------

/** v2 and v2beta2 hold every field: annotations meant for the older versions are dropped, as upstream does. */
export function hpaDropRoundTripAnnotations(o: ApiObject): ApiObject {
  const annotations = withoutRoundTrip(o.metadata?.annotations);
  return annotations === o.metadata?.annotations ? o : { ...o, metadata: withAnnotations(o.metadata, annotations) };
}

/** The hub form of an HPA in any served version, by its apiVersion (for table cells, which see the served form). */
export function hpaHubView(o: ApiObject): ApiObject {
  const version = typeof o.apiVersion === 'string' ? o.apiVersion.slice(o.apiVersion.lastIndexOf('/') + 1) : '';
  if (version === 'v1') return hpaV1ToHub(o);
  if (version === 'v2beta1') return hpaV2beta1ToHub(o);
  return o;
}
