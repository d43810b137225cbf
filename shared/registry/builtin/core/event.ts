// Core v1 Events: reports about other objects. The same storage also holds events written
// through events.platform.io/v1 (see builtin/events), so both shapes' fields live here.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { since } from '../common/columns.js';
import { asObject, at, OBJECT_REF_FIELDS, pathSelectors } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { int32, obj, str, time } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { invalidValue, required } from '../../../api/field-errors.js';

export const eventSource = obj({ component: str, host: str });
export const eventSeries = obj({ count: int32, lastObservedTime: time });

const schema = obj(
  {
    involvedObject: objectReference,
    reason: str,
    message: str,
    source: eventSource,
    firstTimestamp: { type: ['string', 'null'], format: 'date-time' },
    lastTimestamp: { type: ['string', 'null'], format: 'date-time' },
    count: int32,
    type: str,
    eventTime: { type: ['string', 'null'], format: 'date-time' },
    series: eventSeries,
    action: str,
    related: objectReference,
    reportingComponent: str,
    reportingInstance: str,
  },
  ['involvedObject'],
);

function validateEvent(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const io = asObject(o.involvedObject);
  if (!io) return [required('involvedObject')];
  // Events about namespaced objects live in the object's namespace.
  if (typeof io.namespace === 'string' && io.namespace && o.metadata.namespace && io.namespace !== o.metadata.namespace) {
    errs.push(invalidValue('involvedObject.namespace', io.namespace, 'does not match event.namespace'));
  }
  if (o.eventTime && !o.reportingComponent) errs.push(required('reportingComponent'));
  return errs;
}

function lastSeen(o: ApiObject): string {
  const series = at(o, 'series.lastObservedTime');
  const t = series ?? o.lastTimestamp ?? o.eventTime ?? o.firstTimestamp ?? o.metadata.creationTimestamp;
  return since(t);
}

function objectCell(o: ApiObject): string {
  const io = asObject(o.involvedObject) ?? {};
  return `${String(io.kind ?? '').toLowerCase()}/${String(io.name ?? '')}`;
}

export const events: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'Event',
  plural: 'events',
  singular: 'event',
  scope: 'Namespaced',
  createOnUpdate: true,
  shortNames: ['ev'],
  generation: false,
  columns: [
    { name: 'Last Seen', type: 'string', description: 'Time since the event was last observed', cell: lastSeen },
    { name: 'Type', type: 'string', description: 'Normal or Warning', cell: (o) => o.type ?? '' },
    { name: 'Reason', type: 'string', description: 'Machine-readable reason', cell: (o) => o.reason ?? '' },
    { name: 'Object', type: 'string', description: 'The object the event is about', cell: objectCell },
    { name: 'Message', type: 'string', description: 'Human-readable description', cell: (o) => String(o.message ?? '').trim() },
    { name: 'Source', type: 'string', priority: 1, description: 'Component reporting the event', cell: (o) => String(at(o, 'source.component') ?? o.reportingComponent ?? '') },
    { name: 'Count', type: 'integer', priority: 1, description: 'Number of occurrences', cell: (o) => o.count ?? at(o, 'series.count') ?? 1 },
  ],
  fieldSelectors: {
    ...pathSelectors(...OBJECT_REF_FIELDS.map((f) => `involvedObject.${f}`), 'reason', 'reportingComponent', 'type'),
    source: (o) => String(at(o, 'source.component') ?? ''),
  },
  strategy: {
    validate: validateEvent,
    validateUpdate: updateValidation(validateEvent),
  },
};
