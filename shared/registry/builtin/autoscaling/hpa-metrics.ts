// HPA metrics between the hub (v2) shape and the v2beta1 shape, which is also the shape of v1's
// metrics annotations: specs, statuses and conditions. A v2beta1 object target (or object/external
// status) with an average value reads `targetValue` "0" (not optional there) as "no value".

import { asObject, type Json } from '../common/field-errors.js';
import { fields } from './hpa-fields.js';

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

// ---- metrics: hub (v2) <-> v2beta1 shape (also v1's annotation shape) ---------------------------

function metricTarget(type: string, value: unknown, averageValue: unknown, averageUtilization: unknown): Json {
  return fields([
    ['type', type],
    ['value', value],
    ['averageValue', averageValue],
    ['averageUtilization', averageUtilization],
  ]);
}

/**
 * A v2 MetricSpec (`target`) or MetricStatus (`current`) in the v2beta1 shape, whose value fields
 * are named for that side (`targetAverageValue`, `currentAverageValue`). v2beta1 requires (writes
 * "0" for) the object value and the pods average on both sides; on a status also the resource
 * average and the external value.
 */
function metricToBeta(m: Json, side: 'target' | 'current'): Json {
  const object = asObject(m.object);
  const pods = asObject(m.pods);
  const resource = asObject(m.resource);
  const container = asObject(m.containerResource);
  const external = asObject(m.external);
  const values = (s: Json | undefined) => asObject(s?.[side]) ?? {};
  const metric = (s: Json | undefined) => asObject(s?.metric) ?? {};
  const statusRequired = (q: unknown) => (side === 'current' ? (q ?? '0') : q);
  return fields([
    ['type', m.type ?? ''],
    [
      'object',
      object &&
        fields([
          ['target', reference(object.describedObject)],
          ['metricName', metric(object).name ?? ''],
          [`${side}Value`, values(object).value ?? '0'],
          ['selector', metric(object).selector],
          ['averageValue', values(object).averageValue],
        ]),
    ],
    [
      'pods',
      pods &&
        fields([
          ['metricName', metric(pods).name ?? ''],
          [`${side}AverageValue`, values(pods).averageValue ?? '0'],
          ['selector', metric(pods).selector],
        ]),
    ],
    [
      'resource',
      resource &&
        fields([
          ['name', resource.name ?? ''],
          [`${side}AverageUtilization`, values(resource).averageUtilization],
          [`${side}AverageValue`, statusRequired(values(resource).averageValue)],
        ]),
    ],
    [
      'containerResource',
      container &&
        fields([
          ['name', container.name ?? ''],
          [`${side}AverageUtilization`, values(container).averageUtilization],
          [`${side}AverageValue`, statusRequired(values(container).averageValue)],
          ['container', container.container ?? ''],
        ]),
    ],
    [
      'external',
      external &&
        fields([
          ['metricName', metric(external).name ?? ''],
          ['metricSelector', metric(external).selector],
          [`${side}Value`, statusRequired(values(external).value)],
          [`${side}AverageValue`, values(external).averageValue],
        ]),
    ],
  ]);
}

/** A v2 MetricSpec in the v2beta1 shape. */
export function metricSpecToBeta(m: Json): Json {
  return metricToBeta(m, 'target');
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
  return metricToBeta(m, 'current');
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

export function conditionCopy(c: Json): Json {
  return fields([
    ['type', c.type],
    ['status', c.status],
    ['lastTransitionTime', c.lastTransitionTime],
    ['reason', c.reason],
    ['message', c.message],
  ]);
}
