// events.platform.io/v1 Events: the structured event API. Objects live in core `events`
// storage; `storedAs` renames fields between the two shapes so either API reads every event.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { since } from '../common/columns.js';
import { asObject, at, OBJECT_REF_FIELDS, pathSelectors } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { described, int32, obj, str, time } from '../common/schema.js';
import { eventSource } from '../core/event.js';
import { forbidden, invalidValue, required, tooLong, unsupported } from '../../../api/field-errors.js';
import { validQualifiedName } from '../../../api/validation.js';
import { cloneJson } from '../../../patch/json-value.js';

const nullableTime = { type: ['string', 'null'], format: 'date-time' };

const ON_V1_CREATE = 'Required on create through v1; through v1beta1 only when eventTime is set.';
const NOT_ON_CREATE = 'Only events written through core v1 carry it: not accepted on create through events.platform.io/v1.';

const schema = described(
  obj(
    {
      eventTime: nullableTime,
      series: described(
        obj({ count: int32, lastObservedTime: time }, ['count', 'lastObservedTime']),
        {
          count: 'How many times the event has happened so far; at least 2.',
          lastObservedTime: 'When the event was last seen, with microsecond precision.',
        },
        'How often a recurring event has happened.',
      ),
      reportingController: str,
      reportingInstance: str,
      action: str,
      reason: str,
      regarding: objectReference,
      related: objectReference,
      note: str,
      type: str,
      deprecatedSource: eventSource,
      deprecatedFirstTimestamp: nullableTime,
      deprecatedLastTimestamp: nullableTime,
      deprecatedCount: int32,
    },
    // eventTime is required on create only: events written through core v1 may lack it.
  ),
  {
    eventTime: 'When the event first happened, with microsecond precision. Required on create through v1.',
    series: 'Set for an event that keeps happening: how often, and when it was last seen. A reporter updates it rather than writing a new event. Omitted for a single occurrence.',
    reportingController: `Name of the controller that wrote the event, a qualified name such as \`example.com/my-controller\`. ${ON_V1_CREATE} Selectable as a field selector.`,
    reportingInstance: `Which instance of the reporting controller wrote the event, such as its host or pod name; at most 128 characters. ${ON_V1_CREATE}`,
    action: `What was done, or failed, about the object, in CamelCase (Binding, Pulling); at most 128 characters. ${ON_V1_CREATE}`,
    reason: `Why the action was taken, short and machine-readable, in CamelCase; at most 128 characters. ${ON_V1_CREATE} Selectable as a field selector.`,
    regarding:
      'The object the event is about (involvedObject in core v1); for a namespaced object the event must be in the same namespace. Required on create through v1. Selectable by field selectors such as regarding.name.',
    related: 'A second object the event concerns, if any, such as the node in a scheduling event.',
    note: 'Readable description of what happened (message in core v1); at most 1024 bytes. The one field besides series that may change after creation.',
    type: 'Normal, or Warning for something that needs attention. Required on create through v1, which accepts no other value. Selectable as a field selector.',
    deprecatedSource: `Component and host that reported the event (source in core v1). ${NOT_ON_CREATE}`,
    deprecatedFirstTimestamp: `When the event was first recorded (firstTimestamp in core v1). ${NOT_ON_CREATE}`,
    deprecatedLastTimestamp: `When the event was most recently recorded (lastTimestamp in core v1). ${NOT_ON_CREATE}`,
    deprecatedCount: `How many times the event was recorded (count in core v1). ${NOT_ON_CREATE}`,
  },
  'A report of something that happened to an object, written by a controller for people and tools to read. Stored with core v1 Events, so either API reads every event; after creation only note and series may change.',
);

// [v1 field, core field] pairs; fields with the same name in both shapes are listed once.
const RENAMES: Array<[string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['reportingController', 'reportingComponent'],
  ['series', 'series'],
  ['eventTime', 'eventTime'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingInstance', 'reportingInstance'],
  ['reason', 'reason'],
  ['type', 'type'],
];

function rename(o: ApiObject, pairs: Array<[string, string]>, apiVersion: string): ApiObject {
  const out: ApiObject = { apiVersion, kind: 'Event', metadata: o.metadata };
  for (const [from, to] of pairs) if (o[from] !== undefined) out[to] = cloneJson(o[from]);
  return out;
}

/** events.platform.io/v1 → core v1 (the stored shape). */
export function eventToCore(o: ApiObject): ApiObject {
  const out = rename(o, RENAMES, 'v1');
  // The core shape requires involvedObject; an event about nothing refers to an empty reference.
  if (out.involvedObject === undefined) out.involvedObject = {};
  return out;
}

/** core v1 → events.platform.io/v1. */
export function eventFromCore(o: ApiObject): ApiObject {
  return rename(
    o,
    RENAMES.map(([a, b]) => [b, a]),
    'events.platform.io/v1',
  );
}

const MAX_NOTE_BYTES = 1024;
const EVENT_TYPES = ['Normal', 'Warning'];

function validateEventCreate(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!o.eventTime) errs.push(required('eventTime'));
  if (typeof o.type !== 'string' || !o.type) errs.push(required('type'));
  else if (!EVENT_TYPES.includes(o.type)) errs.push(unsupported('type', o.type, EVENT_TYPES));
  if (!asObject(o.regarding)) errs.push(required('regarding'));
  for (const f of ['action', 'reason', 'reportingInstance']) {
    const v = o[f];
    if (typeof v !== 'string' || !v) errs.push(required(f));
    else if (v.length > 128) errs.push(tooLong(f, 128));
  }
  const rc = o.reportingController;
  if (typeof rc !== 'string' || !rc) errs.push(required('reportingController'));
  else if (!validQualifiedName(rc)) errs.push(invalidValue('reportingController', rc, 'must be a qualified name (e.g. "example.com/my-controller")'));
  if (typeof o.note === 'string' && Buffer.byteLength(o.note) > MAX_NOTE_BYTES) errs.push(tooLong('note', MAX_NOTE_BYTES));
  for (const f of ['deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount']) {
    const v = o[f];
    const set = v !== undefined && v !== null && v !== 0 && !(typeof v === 'object' && Object.keys(v).length === 0);
    if (set) errs.push(forbidden(f, 'deprecated field must not be set'));
  }
  const series = asObject(o.series);
  if (series && typeof series.count === 'number' && series.count < 2) errs.push(invalidValue('series.count', series.count, 'should be at least 2'));
  // Events about namespaced objects live in that object's namespace.
  const ns = at(o, 'regarding.namespace');
  if (typeof ns === 'string' && ns && o.metadata.namespace && ns !== o.metadata.namespace) {
    errs.push(invalidValue('regarding.namespace', ns, 'does not match event.namespace'));
  }
  return errs;
}

/**
 * events.platform.io/v1beta1 creates are checked as upstream checks every Event that is not a
 * v1 one: an event without eventTime only for its namespace; one with it for its reporting fields.
 */
function validateV1beta1Create(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const ns = o.metadata.namespace ?? '';
  const regardingNs = at(o, 'regarding.namespace');
  const objectNs = typeof regardingNs === 'string' ? regardingNs : '';
  const mismatch = () => errs.push(invalidValue('regarding.namespace', objectNs, 'does not match event.namespace'));
  if (!o.eventTime) {
    if (objectNs ? ns !== objectNs : ns !== '' && ns !== 'default') mismatch();
    return errs;
  }
  if (!objectNs && ns !== 'default' && ns !== 'platform-system') mismatch();
  const rc = o.reportingController;
  if (typeof rc !== 'string' || !rc) errs.push(required('reportingController'));
  else if (!validQualifiedName(rc)) errs.push(invalidValue('reportingController', rc, 'must be a qualified name (e.g. "example.com/my-controller")'));
  for (const f of ['reportingInstance', 'action', 'reason']) {
    const v = o[f];
    if (typeof v !== 'string' || !v) errs.push(required(f));
    else if (v.length > 128) errs.push(tooLong(f, 128));
  }
  if (typeof o.note === 'string' && Buffer.byteLength(o.note) > MAX_NOTE_BYTES) errs.push(tooLong('note', MAX_NOTE_BYTES));
  return errs;
}

// Updates keep the identifying fields; an event created through core v1 may carry any
// deprecated fields, so the create-only rules do not apply here.
function validateEventUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of [
    'eventTime',
    'action',
    'reason',
    'reportingController',
    'reportingInstance',
    'regarding',
    'related',
    'type',
    'deprecatedSource',
    'deprecatedFirstTimestamp',
    'deprecatedLastTimestamp',
    'deprecatedCount',
  ]) {
    if (JSON.stringify(o[f] ?? null) !== JSON.stringify(old[f] ?? null)) errs.push(invalidValue(f, o[f], 'field is immutable'));
  }
  if (typeof o.note === 'string' && Buffer.byteLength(o.note) > MAX_NOTE_BYTES) errs.push(tooLong('note', MAX_NOTE_BYTES));
  return errs;
}

export const eventsV1: ResourceType = {
  group: 'events.platform.io',
  versions: [
    { name: 'v1', schema },
    // Upstream names no replacement for this one.
    { name: 'v1beta1', schema, validate: validateV1beta1Create, deprecation: { since: '1.22', removedIn: '1.25' } },
  ],
  kind: 'Event',
  plural: 'events',
  singular: 'event',
  scope: 'Namespaced',
  createOnUpdate: true,
  shortNames: ['ev'],
  generation: false,
  columns: [
    { name: 'Last Seen', type: 'string', cell: (o) => since(at(o, 'series.lastObservedTime') ?? o.deprecatedLastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp) },
    { name: 'Type', type: 'string', cell: (o) => o.type ?? '' },
    { name: 'Reason', type: 'string', cell: (o) => o.reason ?? '' },
    { name: 'Object', type: 'string', cell: (o) => `${String(at(o, 'regarding.kind') ?? '').toLowerCase()}/${String(at(o, 'regarding.name') ?? '')}` },
    { name: 'Message', type: 'string', cell: (o) => String(o.note ?? '').trim() },
  ],
  fieldSelectors: pathSelectors(...OBJECT_REF_FIELDS.map((f) => `regarding.${f}`), 'reason', 'reportingController', 'type'),
  strategy: {
    validate: validateEventCreate,
    validateUpdate: validateEventUpdate,
  },
  storedAs: { group: '', resource: 'events', toStored: eventToCore, fromStored: eventFromCore },
};
