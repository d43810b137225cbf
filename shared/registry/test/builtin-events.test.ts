import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { events as coreEvents } from '../builtin/core/event.js';
import { eventFromCore, eventsV1, eventToCore } from '../builtin/events/event.js';
import { createFlow, fields, schemaErrors } from './builtin-helpers.js';
import { samples } from './builtin-samples.js';

const v1 = samples['events.platform.io/events']!;

function withFields(patch: Record<string, unknown>): ApiObject {
  const o = structuredClone(v1);
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete o[k];
    else o[k] = v;
  }
  return o;
}

describe('events.platform.io/v1 create rules', () => {
  const cases: Array<[string, ApiObject, string[]]> = [
    ['valid', v1, []],
    ['type Normal', withFields({ type: 'Normal' }), []],
    ['type other', withFields({ type: 'Error' }), ['type: Unsupported value']],
    ['type missing', withFields({ type: undefined }), ['type: Required value']],
    ['eventTime missing', withFields({ eventTime: undefined }), ['eventTime: Required value']],
    ['regarding missing', withFields({ regarding: undefined }), ['regarding: Required value']],
    ['action missing', withFields({ action: undefined }), ['action: Required value']],
    ['reason missing', withFields({ reason: undefined }), ['reason: Required value']],
    ['reportingController missing', withFields({ reportingController: undefined }), ['reportingController: Required value']],
    ['reportingController not a qualified name', withFields({ reportingController: 'has spaces/x' }), ['reportingController: Invalid value']],
    ['reportingInstance missing', withFields({ reportingInstance: undefined }), ['reportingInstance: Required value']],
    ['action too long', withFields({ action: 'a'.repeat(129) }), ['action: Too long']],
    ['note too long', withFields({ note: 'n'.repeat(1025) }), ['note: Too long']],
    ['deprecatedSource set', withFields({ deprecatedSource: { component: 'x' } }), ['deprecatedSource: Forbidden']],
    ['deprecatedFirstTimestamp set', withFields({ deprecatedFirstTimestamp: '2024-01-01T00:00:00Z' }), ['deprecatedFirstTimestamp: Forbidden']],
    ['deprecatedLastTimestamp set', withFields({ deprecatedLastTimestamp: '2024-01-01T00:00:00Z' }), ['deprecatedLastTimestamp: Forbidden']],
    ['deprecatedCount set', withFields({ deprecatedCount: 3 }), ['deprecatedCount: Forbidden']],
    ['series count 1', withFields({ series: { count: 1, lastObservedTime: '2024-01-01T00:00:00Z' } }), ['series.count: Invalid value']],
    ['series count 2', withFields({ series: { count: 2, lastObservedTime: '2024-01-01T00:00:00Z' } }), []],
    ['regarding in another namespace', withFields({ regarding: { kind: 'Pod', name: 'p', namespace: 'other' } }), ['regarding.namespace: Invalid value']],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(fields(createFlow(eventsV1, obj).errors), want));

  it('requires series.lastObservedTime in the schema', () => {
    assert.equal(schemaErrors(eventsV1, withFields({ series: { count: 2 } })).length, 1);
  });

  it('allows updates of events created through core v1', () => {
    const stored = eventFromCore({ apiVersion: 'v1', kind: 'Event', ...structuredClone(samples['/events']!) });
    const next = { ...structuredClone(stored), note: 'updated' };
    assert.deepEqual(eventsV1.strategy!.validateUpdate!(next, stored), []);
    assert.deepEqual(fields(eventsV1.strategy!.validateUpdate!({ ...stored, reason: 'Other' }, stored)), ['reason: Invalid value']);
  });
});

describe('events.platform.io/v1 storage conversion', () => {
  const full: ApiObject = {
    apiVersion: 'events.platform.io/v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'default', resourceVersion: '7' },
    eventTime: '2024-01-01T00:00:00.000000Z',
    series: { count: 3, lastObservedTime: '2024-01-01T00:05:00.000000Z' },
    reportingController: 'platform.io/agent',
    reportingInstance: 'agent-1',
    action: 'Pulling',
    reason: 'Pulling',
    regarding: { kind: 'Pod', name: 'p', namespace: 'default', uid: 'u1' },
    related: { kind: 'Node', name: 'n1' },
    note: 'pulling image',
    type: 'Normal',
    deprecatedSource: { component: 'agent', host: 'n1' },
    deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2024-01-01T00:05:00Z',
    deprecatedCount: 3,
  };

  it('maps every field to the core shape', () => {
    const core = eventToCore(full);
    assert.deepEqual(core, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: full.metadata,
      involvedObject: full.regarding,
      message: 'pulling image',
      source: full.deprecatedSource,
      firstTimestamp: full.deprecatedFirstTimestamp,
      lastTimestamp: full.deprecatedLastTimestamp,
      count: 3,
      reportingComponent: 'platform.io/agent',
      series: full.series,
      eventTime: full.eventTime,
      action: 'Pulling',
      related: full.related,
      reportingInstance: 'agent-1',
      reason: 'Pulling',
      type: 'Normal',
    });
    assert.deepEqual(schemaErrors(coreEvents, core), []);
  });

  it('round-trips v1 → core → v1 and core → v1 → core', () => {
    assert.deepEqual(eventFromCore(eventToCore(full)), full);
    const core = { apiVersion: 'v1', kind: 'Event', ...structuredClone(samples['/events']!) } as ApiObject;
    assert.deepEqual(eventToCore(eventFromCore(core)), core);
  });

  it('is stored as core events', () => {
    assert.equal(eventsV1.storedAs?.group, '');
    assert.equal(eventsV1.storedAs?.resource, 'events');
  });
});

describe('core v1 events', () => {
  it('require involvedObject', () => {
    const { involvedObject: _i, ...rest } = samples['/events']!;
    assert.equal(schemaErrors(coreEvents, rest as ApiObject).length, 1);
  });

  it('select by involvedObject fields, reason, source and type', () => {
    const e = samples['/events']!;
    const sel = coreEvents.fieldSelectors!;
    assert.equal(sel['involvedObject.name']!(e), 'web-0');
    assert.equal(sel['involvedObject.kind']!(e), 'Pod');
    assert.equal(sel.reason!(e), 'Started');
    assert.equal(sel.source!(e), 'agent');
    assert.equal(sel.type!(e), 'Normal');
    for (const k of ['involvedObject.namespace', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reportingComponent'])
      assert.ok(sel[k], k);
  });

  it('has no generation', () => {
    assert.equal(coreEvents.generation, false);
    const { obj } = createFlow(coreEvents, samples['/events']!);
    assert.equal(obj.metadata.generation, undefined);
  });
});
