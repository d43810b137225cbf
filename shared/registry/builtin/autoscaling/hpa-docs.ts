// Field descriptions of HorizontalPodAutoscaler in every served version, kept apart from the
// schemas (hpa-schemas.ts). Texts shared by several versions are written once here; what they say
// the server does is hpa-validation.ts's, hpa-conversion.ts's and the strategy's.

import type { FieldDocs } from '../../schema-docs.js';

export const OBJECT_REF_ABOUT = 'A reference to an object in the namespace of the autoscaler, by kind, name and API version.';
export const objectRefDocs: FieldDocs = {
  kind: 'Kind of the object, such as Deployment.',
  name: 'Name of the object.',
  apiVersion: 'API version of the object, such as `apps/v1`.',
};

// ---- spec and status fields every version has ---------------------------------------------------

export const specDocs: FieldDocs = {
  scaleTargetRef: 'The object whose replica count the autoscaler sets, through its scale subresource (a Deployment, StatefulSet, ReplicaSet or custom resource with one).',
  minReplicas:
    'Fewest replicas to scale down to; defaults to 1. 0 (scaling to zero, which needs an Object or External metric) is refused for new autoscalers in this release, as its feature gate is off.',
  maxReplicas: 'Most replicas to scale up to; at least 1 and not below minReplicas.',
};
export const SPEC_ABOUT = 'Which object is scaled, within which bounds, following which metrics.';

export const statusDocs: FieldDocs = {
  observedGeneration: 'The generation of the autoscaler its controller last acted on.',
  lastScaleTime: 'When the autoscaler last changed the replica count.',
  currentReplicas: 'Replicas of the target as the autoscaler last saw them. Not negative.',
  desiredReplicas: 'Replicas the autoscaler last decided on. Not negative.',
};
export const STATUS_ABOUT = 'What the autoscaler controller last observed and decided, written through the status subresource.';

export const objectDocs: FieldDocs = {
  spec: 'Which object is scaled, within which bounds, following which metrics.',
  status: 'What the autoscaler controller last observed and decided.',
};

const ABOUT =
  'A horizontal pod autoscaler: sets the replica count of a workload from observed metrics, within minReplicas and maxReplicas. The autoscaler controller does the scaling; the server stores, defaults and validates it, and converts it between versions without loss.';
const KEPT = 'What newer versions have beyond its fields is kept in autoscaling.alpha.platform.io annotations.';
export const V2_ABOUT = ABOUT;
export const V2BETA1_ABOUT = `${ABOUT} ${KEPT}`;
export const V1_ABOUT = `${ABOUT} Version v1 only targets CPU use. ${KEPT}`;

const METRICS_DEFAULT = 'Defaults to one metric: 80 % average CPU utilization.';
export const conditionsDoc = 'AbleToScale, ScalingActive and ScalingLimited, among others: whether the autoscaler can scale and why not.';

// ---- v2 and v2beta2 ---------------------------------------------------------------------------------

export const metricIdentifierDocs: FieldDocs = {
  name: 'Name of the metric, as the metrics API serves it.',
  selector: 'Labels narrowing which series of the metric count, passed on to the metrics API. Unset: the name alone picks the metric.',
};
export const METRIC_IDENTIFIER_ABOUT = 'A metric, by name and an optional label selector.';

const valueDocs = (what: string): FieldDocs => ({
  value: `${what} value of the metric as a whole, as a quantity.`,
  averageValue: `${what} value of the metric divided by the number of pods, as a quantity.`,
  averageUtilization: `${what} use of the resource averaged over the pods, as a percentage of what they request. Only for Resource and ContainerResource metrics.`,
});
export const metricTargetDocs: FieldDocs = {
  type: 'Which value is the target: Utilization (averageUtilization), Value (value) or AverageValue (averageValue).',
  ...valueDocs('Target'),
};
export const METRIC_TARGET_ABOUT = 'The value a metric should have: the autoscaler picks the replica count that brings the metric to it. Values must be positive.';
export const metricValueDocs = valueDocs('Current');
export const METRIC_VALUE_ABOUT = 'The value of a metric when it was last read.';

/** Per source: the field texts of a spec (`target`) or status (`current`) entry. */
export function sourceDocs(part: 'target' | 'current'): Record<string, FieldDocs> {
  const t = part === 'target' ? 'Target' : 'Current value';
  return {
    object: { describedObject: 'The object the metric describes.', [part]: `${t}: value, or averageValue (the value divided by the number of pods).`, metric: 'The metric.' },
    pods: { metric: 'The metric, read for each pod of the target.', [part]: `${t}: averageValue over the pods.` },
    resource: { name: 'Name of the resource, such as cpu or memory.', [part]: `${t}: averageUtilization (percentage of requests) or averageValue.` },
    containerResource: {
      name: 'Name of the resource, such as cpu or memory.',
      [part]: `${t}: averageUtilization (percentage of requests) or averageValue.`,
      container: 'Name of the container, in each pod of the target, whose use counts.',
    },
    external: { metric: 'The metric.', [part]: `${t}: value, or averageValue (the value divided by the number of pods).` },
  };
}

export const SOURCE_ABOUT: Record<string, string> = {
  object: 'A metric describing one object in the namespace other than the pods, such as requests per second of an ingress.',
  pods: 'A metric describing each pod of the target, such as transactions per second, averaged over the pods.',
  resource: 'Use of a resource (cpu, memory) by the pods of the target, from the resource metrics API.',
  containerResource: 'Use of a resource by one container of each pod of the target, from the resource metrics API.',
  external: 'A metric of something outside the cluster, such as the length of a queue of a cloud service, from the external metrics API.',
};

export const metricSpecDocs: FieldDocs = {
  type: 'Which source the metric comes from, and so which one of the other fields is set: Object, Pods, Resource, ContainerResource or External.',
  object: SOURCE_ABOUT.object!,
  pods: SOURCE_ABOUT.pods!,
  resource: SOURCE_ABOUT.resource!,
  containerResource: `${SOURCE_ABOUT.containerResource!} Its feature gate is off in this release: dropped from what is written unless already stored.`,
  external: SOURCE_ABOUT.external!,
};
export const METRIC_SPEC_ABOUT = 'A metric the replica count follows, and its target value.';
export const metricStatusDocs: FieldDocs = { ...metricSpecDocs, containerResource: SOURCE_ABOUT.containerResource! };
export const METRIC_STATUS_ABOUT = 'The last value read of one metric.';

export const policyDocs: FieldDocs = {
  type: 'Pods: value is a number of pods; Percent: value is a percentage of the current replicas.',
  value: 'How much the replica count may change within periodSeconds; greater than 0.',
  periodSeconds: 'Length of the time window, 1 to 1800 seconds.',
};
export const POLICY_ABOUT = 'A change the replica count may make within a time window.';

export const scalingRulesDocs: FieldDocs = {
  stabilizationWindowSeconds:
    'Seconds of past decisions the autoscaler weighs, so that a brief swing of the metrics does not change the replica count: scaling up takes the lowest count wanted in the window, scaling down the highest. 0 to 3600.',
  selectPolicy: 'Which policy applies when several do: Max (the default) the one allowing the largest change, Min the smallest; Disabled turns scaling in this direction off.',
  policies: 'Limits on how fast the replica count may change; at least one.',
};
export const SCALING_RULES_ABOUT = 'How the autoscaler scales in one direction.';

export const behaviorDocs: FieldDocs = {
  scaleUp: 'Rules for scaling up. Defaults: no stabilization window; by 4 pods or 100 %, whichever is more, every 15 seconds.',
  scaleDown: 'Rules for scaling down. Defaults: the stabilization window of the controller (300 seconds unless set otherwise); by up to 100 % every 15 seconds.',
};
export const BEHAVIOR_ABOUT = 'How fast the autoscaler scales up and down. The server fills in what is left out with the defaults.';

export const v2SpecDocs: FieldDocs = {
  ...specDocs,
  metrics: `Metrics the replica count follows; the autoscaler computes a count for each and uses the largest. ${METRICS_DEFAULT}`,
  behavior: 'How fast the autoscaler scales up and down. Unset: the defaults of scaleUp and scaleDown.',
};
export const v2StatusDocs: FieldDocs = {
  ...statusDocs,
  currentMetrics: 'The last values read of the metrics, in the order of spec.metrics.',
  conditions: conditionsDoc,
};

// ---- v2beta1 ----------------------------------------------------------------------------------------

const selectorDoc = 'Labels narrowing which series of the metric count, passed on to the metrics API.';
const betaSourceDocs = (part: 'target' | 'current'): Record<string, FieldDocs> => {
  const t = part === 'target' ? 'Target' : 'Current';
  const v = part === 'target' ? 'target' : 'current';
  return {
    object: {
      target: 'The object the metric describes.',
      metricName: 'Name of the metric.',
      [`${v}Value`]: `${t} value of the metric.`,
      selector: selectorDoc,
      averageValue: `${t} value of the metric divided by the number of pods${part === 'target' ? '; instead of targetValue' : ''}.`,
    },
    pods: { metricName: 'Name of the metric, read for each pod of the target.', [`${v}AverageValue`]: `${t} value of the metric averaged over the pods.`, selector: selectorDoc },
    resource: {
      name: 'Name of the resource, such as cpu or memory.',
      [`${v}AverageUtilization`]: `${t} use of the resource averaged over the pods, as a percentage of what they request.`,
      [`${v}AverageValue`]: `${t} use of the resource averaged over the pods, as a quantity.`,
    },
    containerResource: {
      name: 'Name of the resource, such as cpu or memory.',
      [`${v}AverageUtilization`]: `${t} use of the resource by the container averaged over the pods, as a percentage of what it requests.`,
      [`${v}AverageValue`]: `${t} use of the resource by the container averaged over the pods, as a quantity.`,
      container: 'Name of the container, in each pod of the target, whose use counts.',
    },
    external: {
      metricName: 'Name of the metric.',
      metricSelector: selectorDoc,
      [`${v}Value`]: `${t} value of the metric as a whole.`,
      [`${v}AverageValue`]: `${t} value of the metric divided by the number of pods.`,
    },
  };
};
export const betaTargetDocs = betaSourceDocs('target');
export const betaCurrentDocs = betaSourceDocs('current');

export const v2beta1SpecDocs: FieldDocs = {
  ...specDocs,
  metrics: `Metrics the replica count follows; the autoscaler computes a count for each and uses the largest. ${METRICS_DEFAULT}`,
};
export const v2beta1StatusDocs = v2StatusDocs;

// ---- v1 ---------------------------------------------------------------------------------------------

export const v1SpecDocs: FieldDocs = {
  ...specDocs,
  targetCPUUtilizationPercentage:
    'Target CPU use averaged over the pods, as a percentage of their CPU requests. Unset: 80. Other metrics set through a newer version are kept in the autoscaling.alpha.platform.io/metrics annotation.',
};
export const v1StatusDocs: FieldDocs = {
  ...statusDocs,
  currentCPUUtilizationPercentage: 'CPU use averaged over the pods when last read, as a percentage of their CPU requests.',
};
