// Core v1 Events: reports about other objects. The same storage also holds events written
// through events.platform.io/v1 (see builtin/events), so both shapes' fields live here.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { since } from '../common/columns.js';
import { asObject, at, OBJECT_REF_FIELDS, pathSelectors } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { described, int32, obj, str, time } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { invalidValue, required } from '../../../api/field-errors.js';

export const eventSource = described(
  obj({ component: str, host: str }),
  { component: 'Component that reported the event, such as a controller or a node agent.', host: 'Node on which the reporting component runs.' },
  'Who reported an event (the older way of saying so).',
);

export const eventSeries = described(
  obj({ count: int32, lastObservedTime: time }),
  { count: 'How many times the event has happened so far.', lastObservedTime: 'When the event was last seen, with microsecond precision.' },
  'How often a recurring event has happened.',
);

const schema = described(
  obj(
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
  ),
  {
    involvedObject: 'The object the event is about. Required; for a namespaced object the event must be in the same namespace. Selectable by field selectors such as involvedObject.name.',
    reason: 'Why it happened, short and machine-readable, in CamelCase (FailedScheduling, Pulled). Selectable as the field selector reason.',
    message: 'Readable description of what happened.',
    source: 'Component and host that reported the event. Selectable as the field selector source (the component).',
    firstTimestamp: 'When the event was first recorded.',
    lastTimestamp: 'When the event was most recently recorded.',
    count: 'How many times the event has been recorded; a reporter raises it instead of writing a new event.',
    type: 'Normal, or Warning for something that needs attention. Selectable as the field selector type.',
    eventTime: 'When the event first happened, with microsecond precision. When set, reportingComponent is required.',
    series: 'Set for an event that keeps happening: how often, and when it was last seen. Omitted for a single occurrence.',
    action: 'What was done, or failed, about the object, in CamelCase (Binding, Pulling).',
    related: 'A second object the event concerns, if any, such as the node in a scheduling event.',
    reportingComponent: 'Name of the controller that wrote the event, such as `example.com/my-controller`. Required when eventTime is set.',
    reportingInstance: 'Which instance of the reporting controller wrote the event, such as its host or pod name.',
  },
  'A report of something that happened to an object, such as a pod being scheduled or an image failing to pull. Core Events share their storage with events.platform.io Events, so either API reads every event.',
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
