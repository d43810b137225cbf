// HorizontalPodAutoscaler rules, after upstream's autoscaling validation, on the v2 (storage) form
// whatever version a request used: a v1 CPU target is checked, and reported, as the metric it
// stands for (`spec.metrics[0].resource.target.averageUtilization`), as upstream does.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { isDNS1123Label, qualifiedNameProblems } from '../../../api/validation.js';
import { asArray, asObject, type Json } from '../common/field-errors.js';

/** Longest scaling policy period and stabilization window upstream allows, in seconds. */
export const MAX_PERIOD_SECONDS = 1800;
export const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'] as const;
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'] as const;
const POLICY_TYPES = ['Percent', 'Pods'] as const;
const TARGET_TYPES = ['Utilization', 'Value', 'AverageValue'];
/** The field of a MetricSpec/MetricStatus each source type fills. */
const SOURCE_FIELD: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

// ---- small rules -------------------------------------------------------------------------------

const isSet = (v: unknown) => v !== undefined && v !== null;
const num = (v: unknown) => (typeof v === 'number' ? v : 0);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

const QUANTITY = /^([+-]?)(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[numkMGTPE]|[KMGTPE]i)?$/;

/** -1, 0 or 1 as the quantity's sign (0 for what is not a quantity; the schema reports those). */
export function quantitySign(q: unknown): number {
  if (typeof q === 'number') return Math.sign(q);
  if (typeof q !== 'string') return 0;
  const m = QUANTITY.exec(q.trim());
  if (!m || Number(m[2]) === 0) return 0;
  return m[1] === '-' ? -1 : 1;
}

/** pathvalidation.IsValidPathSegmentName: what kinds, names and metric names may be. */
function pathSegmentErrors(field: string, value: string): FieldError[] {
  const msgs: string[] = [];
  if (value === '.') msgs.push("may not be '.'");
  else if (value === '..') msgs.push("may not be '..'");
  if (value.includes('/')) msgs.push("may not contain '/'");
  if (value.includes('%')) msgs.push("may not contain '%'");
  return msgs.map((m) => invalidValue(field, value, m));
}

export function validateCrossVersionObjectReference(ref: unknown, path: string): FieldError[] {
  const r = asObject(ref) ?? {};
  const errs: FieldError[] = [];
  for (const k of ['kind', 'name']) {
    const v = str(r[k]);
    if (!v) errs.push(required(`${path}.${k}`));
    else errs.push(...pathSegmentErrors(`${path}.${k}`, v));
  }
  return errs;
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const OTHER_STANDARD_RESOURCES = new Set([
  'storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);
const isHugePages = (name: string) => name.startsWith('hugepages-');

/** A resource name a container metric may name (core's ValidateContainerResourceName). */
function containerResourceNameErrors(field: string, name: string): FieldError[] {
  const problems = qualifiedNameProblems(name);
  if (problems.length) return problems.map((m) => invalidValue(field, name, m));
  if (name.includes('/')) {
    // A prefixed name is a native resource (the platform's own domain) or an extended one.
    const native = name.includes('platform.io/');
    const extended = !native && !name.startsWith('requests.') && qualifiedNameProblems(`requests.${name}`).length === 0;
    return native || extended ? [] : [invalidValue(field, name, "doesn't follow extended resource name standard")];
  }
  if (STANDARD_CONTAINER_RESOURCES.has(name) || isHugePages(name)) return [];
  const errs: FieldError[] = [];
  const standard = OTHER_STANDARD_RESOURCES.has(name) || /^(requests|limits)\./.test(name);
  if (!standard) errs.push(invalidValue(field, name, 'must be a standard resource type or fully qualified'));
  errs.push(invalidValue(field, name, 'must be a standard resource for containers'));
  return errs;
}

function validateMetricIdentifier(id: unknown, path: string): FieldError[] {
  const name = str(asObject(id)?.name);
  if (!name) return [required(`${path}.name`, 'must specify a metric name')];
  return pathSegmentErrors(`${path}.name`, name);
}

function validateMetricTarget(target: unknown, path: string): FieldError[] {
  const t = asObject(target) ?? {};
  const errs: FieldError[] = [];
  const type = str(t.type);
  if (!type) errs.push(required(`${path}.type`, 'must specify a metric target type'));
  if (!TARGET_TYPES.includes(type)) errs.push(invalidValue(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  if (isSet(t.value) && quantitySign(t.value) !== 1) errs.push(invalidValue(`${path}.value`, t.value, 'must be positive'));
  if (isSet(t.averageValue) && quantitySign(t.averageValue) !== 1) errs.push(invalidValue(`${path}.averageValue`, t.averageValue, 'must be positive'));
  if (isSet(t.averageUtilization) && num(t.averageUtilization) < 1) errs.push(invalidValue(`${path}.averageUtilization`, t.averageUtilization, 'must be greater than 0'));
  return errs;
}

/** Resource and container resource targets: a utilization or an average value, not both. */
function utilizationOrAverage(target: Json, path: string): FieldError[] {
  if (!isSet(target.averageUtilization) && !isSet(target.averageValue)) return [required(`${path}.averageUtilization`, 'must set either a target raw value or a target utilization')];
  if (isSet(target.averageUtilization) && isSet(target.averageValue)) return [forbidden(`${path}.averageValue`, 'may not set both a target raw value and a target utilization')];
  return [];
}

function validateSource(kind: string, src: Json, path: string): FieldError[] {
  const target = asObject(src.target) ?? {};
  const targetPath = `${path}.target`;
  const errs: FieldError[] = [];
  switch (kind) {
    case 'object':
      errs.push(...validateCrossVersionObjectReference(src.describedObject, `${path}.describedObject`));
      errs.push(...validateMetricIdentifier(src.metric, `${path}.metric`), ...validateMetricTarget(src.target, targetPath));
      if (!isSet(target.value) && !isSet(target.averageValue)) errs.push(required(`${targetPath}.averageValue`, 'must set either a target value or averageValue'));
      break;
    case 'external':
      errs.push(...validateMetricIdentifier(src.metric, `${path}.metric`), ...validateMetricTarget(src.target, targetPath));
      if (!isSet(target.value) && !isSet(target.averageValue)) errs.push(required(`${targetPath}.averageValue`, 'must set either a target value for metric or a per-pod target'));
      if (isSet(target.value) && isSet(target.averageValue)) errs.push(forbidden(`${targetPath}.value`, 'may not set both a target value for metric and a per-pod target'));
      break;
    case 'pods':
      errs.push(...validateMetricIdentifier(src.metric, `${path}.metric`), ...validateMetricTarget(src.target, targetPath));
      if (!isSet(target.averageValue)) errs.push(required(`${targetPath}.averageValue`, 'must specify a positive target averageValue'));
      break;
    case 'resource':
      if (!str(src.name)) errs.push(required(`${path}.name`, 'must specify a resource name'));
      errs.push(...validateMetricTarget(src.target, targetPath), ...utilizationOrAverage(target, targetPath));
      break;
    case 'containerResource': {
      const name = str(src.name);
      if (!name) errs.push(required(`${path}.name`, 'must specify a resource name'));
      else errs.push(...containerResourceNameErrors(`${path}.name`, name));
      const container = str(src.container);
      if (!container) errs.push(required(`${path}.container`, 'must specify a container'));
      else errs.push(...isDNS1123Label(container, `${path}.container`));
      errs.push(...validateMetricTarget(src.target, targetPath), ...utilizationOrAverage(target, targetPath));
      break;
    }
  }
  return errs;
}

function validateMetricSpec(spec: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if (!type) errs.push(required(`${path}.type`, 'must specify a metric source type'));
  const expected = SOURCE_FIELD[type];
  if (!expected) errs.push(unsupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  // Only the first source present is checked in depth; the others are refused below.
  const present = ['object', 'external', 'pods', 'resource', 'containerResource'].filter((k) => isSet(spec[k]));
  if (present[0]) errs.push(...validateSource(present[0], asObject(spec[present[0]]) ?? {}, `${path}.${present[0]}`));
  if (expected && !present.includes(expected)) {
    // HPAContainerMetrics is alpha (off) in the reference release: container metrics are dropped on write.
    const detail =
      type === 'ContainerResource'
        ? 'must populate information for the given metric source (only allowed when HPAContainerMetrics feature is enabled)'
        : 'must populate information for the given metric source';
    errs.push(required(`${path}.${expected}`, detail));
  }
  if (present.length !== 1) {
    for (const k of present.filter((k) => k !== expected).sort()) errs.push(forbidden(`${path}.${k}`, 'must populate the given metric source only'));
  }
  return errs;
}

function validateMetrics(metrics: unknown, path: string, minReplicas: unknown): FieldError[] {
  const list = asArray(metrics);
  const errs = list.flatMap((m, i) => validateMetricSpec(asObject(m) ?? {}, `${path}[${i}]`));
  if (minReplicas === 0 && !list.some((m) => ['Object', 'External'].includes(str(asObject(m)?.type)))) {
    errs.push(forbidden(path, 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  return errs;
}

function validateScalingRules(rules: unknown, path: string): FieldError[] {
  const r = asObject(rules);
  if (!r) return [];
  const errs: FieldError[] = [];
  const window = r.stabilizationWindowSeconds;
  if (isSet(window) && num(window) < 0) errs.push(invalidValue(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (isSet(window) && num(window) > MAX_STABILIZATION_WINDOW_SECONDS)
    errs.push(invalidValue(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  if (isSet(r.selectPolicy) && !(SELECT_POLICIES as readonly unknown[]).includes(r.selectPolicy)) errs.push(unsupported(`${path}.selectPolicy`, r.selectPolicy, SELECT_POLICIES));
  const policies = asArray(r.policies);
  if (policies.length === 0) errs.push(required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((raw, i) => {
    const p = asObject(raw) ?? {};
    const pp = `${path}.policies[${i}]`;
    if (!(POLICY_TYPES as readonly unknown[]).includes(p.type)) errs.push(unsupported(`${pp}.type`, p.type ?? '', POLICY_TYPES));
    if (num(p.value) <= 0) errs.push(invalidValue(`${pp}.value`, p.value ?? 0, 'must be greater than zero'));
    if (num(p.periodSeconds) <= 0) errs.push(invalidValue(`${pp}.periodSeconds`, p.periodSeconds ?? 0, 'must be greater than zero'));
    if (num(p.periodSeconds) > MAX_PERIOD_SECONDS) errs.push(invalidValue(`${pp}.periodSeconds`, p.periodSeconds, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

function validateSpec(spec: Json, minReplicasLowerBound: number): FieldError[] {
  const errs: FieldError[] = [];
  const min = spec.minReplicas;
  const max = num(spec.maxReplicas);
  if (isSet(min) && num(min) < minReplicasLowerBound) errs.push(invalidValue('spec.minReplicas', min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) errs.push(invalidValue('spec.maxReplicas', max, 'must be greater than 0'));
  if (isSet(min) && max < num(min)) errs.push(invalidValue('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  errs.push(...validateMetrics(spec.metrics, 'spec.metrics', min));
  const behavior = asObject(spec.behavior);
  if (behavior) errs.push(...validateScalingRules(behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateScalingRules(behavior.scaleDown, 'spec.behavior.scaleDown'));
  return errs;
}

/** Create: minReplicas of at least 1 (0 needs the HPAScaleToZero gate, alpha and off in the reference release). */
export function validateHorizontalPodAutoscaler(o: ApiObject): FieldError[] {
  return validateSpec(asObject(o.spec) ?? {}, 1);
}

/** Update: an HPA that already scales to zero may keep doing so. */
export function validateHorizontalPodAutoscalerUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  return validateSpec(asObject(o.spec) ?? {}, asObject(old.spec)?.minReplicas === 0 ? 0 : 1);
}

/** Status writes: replica counts are not negative. */
export function validateHorizontalPodAutoscalerStatus(o: ApiObject): FieldError[] {
  const status = asObject(o.status) ?? {};
  const errs: FieldError[] = [];
  for (const k of ['currentReplicas', 'desiredReplicas']) {
    if (num(status[k]) < 0) errs.push(invalidValue(`status.${k}`, status[k], 'must be greater than or equal to 0'));
  }
  return errs;
}
