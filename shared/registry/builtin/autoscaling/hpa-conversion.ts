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
//   "0" (the field is not optional there) as "no value", as a valid hub never has a zero value.

import type { ApiObject, ObjectMeta } from '../../../api/types.js';
import { asArray, asObject, type Json } from '../common/field-errors.js';
import { cloneJson } from '../../../patch/json-value.js';

export const HPA_ANNOTATION = {
  metrics: 'autoscaling.alpha.platform.io/metrics',
  currentMetrics: 'autoscaling.alpha.platform.io/current-metrics',
  conditions: 'autoscaling.alpha.platform.io/conditions',
  behavior: 'autoscaling.alpha.platform.io/behavior',
} as const;

const ROUND_TRIP_ANNOTATIONS: readonly string[] = Object.values(HPA_ANNOTATION);

/** The CPU utilization target an HPA gets when it names no metric (upstream's DefaultCPUUtilization). */
export const DEFAULT_CPU_UTILIZATION = 80;

// ---- small helpers -----------------------------------------------------------------------------

/** An object with the defined entries only, in the order given (the order Go writes them). */
function fields(entries: Array<[string, unknown]>): Json {
  const out: Json = {};
  for (const [k, v] of entries) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON list of objects from an annotation; undefined when malformed (upstream ignores those). */
function parseObjectList(text: unknown): Json[] | undefined {
  const v = parseJson(text);
  return Array.isArray(v) && v.every((x) => asObject(x)) ? (v as Json[]) : undefined;
}

const ZERO_QUANTITY = /^[+-]?(0+(\.0*)?|\.0+)([eE][+-]?\d+|[numkMGTPE]|[KMGTPE]i)?$/;

export function isZeroQuantity(q: unknown): boolean {
  return q === 0 || (typeof q === 'string' && ZERO_QUANTITY.test(q));
}

function reference(r: unknown): Json {
  const o = asObject(r) ?? {};
  return fields([
    ['kind', o.kind ?? ''],
    ['name', o.name ?? ''],
    ['apiVersion', o.apiVersion],
  ]);
}

function identifier(name: unknown, selector: unknown): Json {
  return fields([
    ['name', name ?? ''],
    ['selector', selector],
  ]);
}

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

// ---- metrics: hub (v2) <-> v2beta1 shape (also v1's annotation shape) ---------------------------

function metricTarget(type: string, value: unknown, averageValue: unknown, averageUtilization: unknown): Json {
  return fields([
    ['type', type],
    ['value', value],
    ['averageValue', averageValue],
    ['averageUtilization', averageUtilization],
  ]);
}

/** A v2 MetricSpec in the v2beta1 shape. */
export function metricSpecToBeta(m: Json): Json {
  const object = asObject(m.object);
  const pods = asObject(m.pods);
  const resource = asObject(m.resource);
  const container = asObject(m.containerResource);
  const external = asObject(m.external);
  const target = (s: Json | undefined) => asObject(s?.target) ?? {};
  const metric = (s: Json | undefined) => asObject(s?.metric) ?? {};
  return fields([
    ['type', m.type ?? ''],
    [
      'object',
      object &&
        fields([
          ['target', reference(object.describedObject)],
          ['metricName', metric(object).name ?? ''],
          ['targetValue', target(object).value ?? '0'],
          ['selector', metric(object).selector],
          ['averageValue', target(object).averageValue],
        ]),
    ],
    [
      'pods',
      pods &&
        fields([
          ['metricName', metric(pods).name ?? ''],
          ['targetAverageValue', target(pods).averageValue ?? '0'],
          ['selector', metric(pods).selector],
        ]),
    ],
    [
      'resource',
      resource &&
        fields([
          ['name', resource.name ?? ''],
          ['targetAverageUtilization', target(resource).averageUtilization],
          ['targetAverageValue', target(resource).averageValue],
        ]),
    ],
    [
      'containerResource',
      container &&
        fields([
          ['name', container.name ?? ''],
          ['targetAverageUtilization', target(container).averageUtilization],
          ['targetAverageValue', target(container).averageValue],
          ['container', container.container ?? ''],
        ]),
    ],
    [
      'external',
      external &&
        fields([
          ['metricName', metric(external).name ?? ''],
          ['metricSelector', metric(external).selector],
          ['targetValue', target(external).value],
          ['targetAverageValue', target(external).averageValue],
        ]),
    ],
  ]);
}

function utilizationTarget(s: Json): Json {
  const utilization = s.targetAverageUtilization;
  return metricTarget(utilization === undefined || utilization === null ? 'AverageValue' : 'Utilization', undefined, s.targetAverageValue, utilization);
}

/** A v2beta1-shaped MetricSpec in the v2 shape. */
export function metricSpecFromBeta(m: Json): Json {
  const object = asObject(m.object);
  const pods = asObject(m.pods);
  const resource = asObject(m.resource);
  const container = asObject(m.containerResource);
  const external = asObject(m.external);
  const objectValue = object && valueBesideAverage(object.targetValue, object.averageValue);
  return fields([
    ['type', m.type ?? ''],
    [
      'object',
      object &&
        fields([
          ['describedObject', reference(object.target)],
          ['target', metricTarget(object.averageValue === undefined ? 'Value' : 'AverageValue', objectValue, object.averageValue, undefined)],
          ['metric', identifier(object.metricName, object.selector)],
        ]),
    ],
    [
      'pods',
      pods &&
        fields([
          ['metric', identifier(pods.metricName, pods.selector)],
          ['target', metricTarget('AverageValue', undefined, pods.targetAverageValue, undefined)],
        ]),
    ],
    [
      'resource',
      resource &&
        fields([
          ['name', resource.name ?? ''],
          ['target', utilizationTarget(resource)],
        ]),
    ],
    [
      'containerResource',
      container &&
        fields([
          ['name', container.name ?? ''],
          ['target', utilizationTarget(container)],
          ['container', container.container ?? ''],
        ]),
    ],
    [
      'external',
      external &&
        fields([
          ['metric', identifier(external.metricName, external.metricSelector)],
          ['target', metricTarget(external.targetValue === undefined ? 'AverageValue' : 'Value', external.targetValue, external.targetAverageValue, undefined)],
        ]),
    ],
  ]);
}

/** A v2 MetricStatus in the v2beta1 shape. */
export function metricStatusToBeta(m: Json): Json {
  const object = asObject(m.object);
  const pods = asObject(m.pods);
  const resource = asObject(m.resource);
  const container = asObject(m.containerResource);
  const external = asObject(m.external);
  const current = (s: Json | undefined) => asObject(s?.current) ?? {};
  const metric = (s: Json | undefined) => asObject(s?.metric) ?? {};
  return fields([
    ['type', m.type ?? ''],
    [
      'object',
      object &&
        fields([
          ['target', reference(object.describedObject)],
          ['metricName', metric(object).name ?? ''],
          ['currentValue', current(object).value ?? '0'],
          ['selector', metric(object).selector],
          ['averageValue', current(object).averageValue],
        ]),
    ],
    [
      'pods',
      pods &&
        fields([
          ['metricName', metric(pods).name ?? ''],
          ['currentAverageValue', current(pods).averageValue ?? '0'],
          ['selector', metric(pods).selector],
        ]),
    ],
    [
      'resource',
      resource &&
        fields([
          ['name', resource.name ?? ''],
          ['currentAverageUtilization', current(resource).averageUtilization],
          ['currentAverageValue', current(resource).averageValue ?? '0'],
        ]),
    ],
    [
      'containerResource',
      container &&
        fields([
          ['name', container.name ?? ''],
          ['currentAverageUtilization', current(container).averageUtilization],
          ['currentAverageValue', current(container).averageValue ?? '0'],
          ['container', container.container ?? ''],
        ]),
    ],
    [
      'external',
      external &&
        fields([
          ['metricName', metric(external).name ?? ''],
          ['metricSelector', metric(external).selector],
          ['currentValue', current(external).value ?? '0'],
          ['currentAverageValue', current(external).averageValue],
        ]),
    ],
  ]);
}

/** A value that v2beta1 must write but that stands for "none" beside an average value. */
function valueBesideAverage(value: unknown, averageValue: unknown): unknown {
  return averageValue !== undefined && isZeroQuantity(value) ? undefined : value;
}

function valueStatus(value: unknown, averageValue: unknown, averageUtilization: unknown): Json {
  return fields([
    ['value', value],
    ['averageValue', averageValue],
    ['averageUtilization', averageUtilization],
  ]);
}

/** A v2beta1-shaped MetricStatus in the v2 shape. */
export function metricStatusFromBeta(m: Json): Json {
  const object = asObject(m.object);
  const pods = asObject(m.pods);
  const resource = asObject(m.resource);
  const container = asObject(m.containerResource);
  const external = asObject(m.external);
  return fields([
    ['type', m.type ?? ''],
    [
      'object',
      object &&
        fields([
          ['metric', identifier(object.metricName, object.selector)],
          ['current', valueStatus(valueBesideAverage(object.currentValue, object.averageValue), object.averageValue, undefined)],
          ['describedObject', reference(object.target)],
        ]),
    ],
    [
      'pods',
      pods &&
        fields([
          ['metric', identifier(pods.metricName, pods.selector)],
          ['current', valueStatus(undefined, pods.currentAverageValue, undefined)],
        ]),
    ],
    [
      'resource',
      resource &&
        fields([
          ['name', resource.name ?? ''],
          ['current', valueStatus(undefined, resource.currentAverageValue, resource.currentAverageUtilization)],
        ]),
    ],
    [
      'containerResource',
      container &&
        fields([
          ['name', container.name ?? ''],
          ['current', valueStatus(undefined, container.currentAverageValue, container.currentAverageUtilization)],
          ['container', container.container ?? ''],
        ]),
    ],
    [
      'external',
      external &&
        fields([
          ['metric', identifier(external.metricName, external.metricSelector)],
          ['current', valueStatus(valueBesideAverage(external.currentValue, external.currentAverageValue), external.currentAverageValue, undefined)],
        ]),
    ],
  ]);
}

function conditionCopy(c: Json): Json {
  return fields([
    ['type', c.type],
    ['status', c.status],
    ['lastTransitionTime', c.lastTransitionTime],
    ['reason', c.reason],
    ['message', c.message],
  ]);
}

// ---- behavior: v2 <-> the annotation (upstream marshals its internal type: Go field names) -----

function encodeRules(r: unknown): unknown {
  const o = asObject(r);
  if (!o) return null;
  return {
    StabilizationWindowSeconds: o.stabilizationWindowSeconds ?? null,
    SelectPolicy: o.selectPolicy ?? null,
    Policies: Array.isArray(o.policies) ? o.policies.map((p) => ({ Type: asObject(p)?.type ?? '', Value: asObject(p)?.value ?? 0, PeriodSeconds: asObject(p)?.periodSeconds ?? 0 })) : null,
  };
}

export function encodeBehavior(behavior: Json): string {
  return JSON.stringify({ ScaleUp: encodeRules(behavior.scaleUp), ScaleDown: encodeRules(behavior.scaleDown) });
}

const INVALID = Symbol('invalid');

/** Go's json.Unmarshal matches keys to field names without regard to case. */
function goField(o: Json, name: string): unknown {
  const lower = name.toLowerCase();
  let found: unknown;
  for (const [k, v] of Object.entries(o)) if (k.toLowerCase() === lower) found = v;
  return found;
}

function goInt32(v: unknown): number | undefined | typeof INVALID {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? v : INVALID;
}

function goString(v: unknown): string | undefined | typeof INVALID {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : INVALID;
}

function decodeRules(v: unknown): Json | undefined | typeof INVALID {
  if (v === undefined || v === null) return undefined;
  const o = asObject(v);
  if (!o) return INVALID;
  const window = goInt32(goField(o, 'StabilizationWindowSeconds'));
  const select = goString(goField(o, 'SelectPolicy'));
  const rawPolicies = goField(o, 'Policies');
  if (window === INVALID || select === INVALID || (rawPolicies !== undefined && rawPolicies !== null && !Array.isArray(rawPolicies))) return INVALID;
  let policies: Json[] | undefined;
  if (Array.isArray(rawPolicies)) {
    policies = [];
    for (const raw of rawPolicies) {
      const p = asObject(raw);
      if (!p) return INVALID;
      const type = goString(goField(p, 'Type'));
      const value = goInt32(goField(p, 'Value'));
      const period = goInt32(goField(p, 'PeriodSeconds'));
      if (type === INVALID || value === INVALID || period === INVALID) return INVALID;
      policies.push({ type: type ?? '', value: value ?? 0, periodSeconds: period ?? 0 });
    }
  }
  return fields([
    ['stabilizationWindowSeconds', window],
    ['selectPolicy', select],
    ['policies', policies],
  ]);
}

/** The behavior an annotation holds; undefined when it is malformed or empty (upstream ignores both). */
export function decodeBehavior(text: unknown): Json | undefined {
  const o = asObject(parseJson(text));
  if (!o) return undefined;
  const scaleUp = decodeRules(goField(o, 'ScaleUp'));
  const scaleDown = decodeRules(goField(o, 'ScaleDown'));
  if (scaleUp === INVALID || scaleDown === INVALID || (!scaleUp && !scaleDown)) return undefined;
  return fields([
    ['scaleUp', scaleUp],
    ['scaleDown', scaleDown],
  ]);
}

// ---- behavior defaults (upstream's v2/v2beta2 defaulting) ---------------------------------------

const DEFAULT_SCALE_UP = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
// No scale-down stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
const DEFAULT_SCALE_DOWN = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

function defaultRules(given: unknown, defaults: Json, fillPolicies: boolean): Json {
  const g = asObject(given);
  if (!g) return cloneJson(defaults);
  const pick = (k: string) => (g[k] !== undefined && g[k] !== null ? g[k] : fillPolicies || k !== 'policies' ? cloneJson(defaults[k]) : undefined);
  return fields([
    ['stabilizationWindowSeconds', pick('stabilizationWindowSeconds')],
    ['selectPolicy', pick('selectPolicy')],
    ['policies', pick('policies')],
  ]);
}

/**
 * Fills a behavior's unset rules and fields with upstream's defaults. `fillPolicies` false leaves a
 * given rule's missing policies missing: a behavior read from an annotation is not defaulted before
 * validation upstream, so a rule without policies is refused rather than completed.
 */
export function defaultBehavior(behavior: Json, fillPolicies = true): Json {
  return {
    scaleUp: defaultRules(behavior.scaleUp, DEFAULT_SCALE_UP, fillPolicies),
    scaleDown: defaultRules(behavior.scaleDown, DEFAULT_SCALE_DOWN, fillPolicies),
  };
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
