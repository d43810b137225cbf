import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuditRequest, boundedJson, formatMicroTime, legacyLine, objectReference, withoutManagedFields, type AuditRequestInit } from '../event.js';
import { Level, Stage, stageSet, type Stage as StageT } from '../types.js';

const managed = [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }];
const requestObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'team', managedFields: managed }, data: { a: '1' } };
const responseObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'team', uid: 'u-1', resourceVersion: '7', managedFields: managed }, data: { a: '1' } };
const AT = Date.UTC(2024, 4, 1, 10, 0, 0, 123) + 0.456;

function request(level: Level, o: { omitStages?: StageT[]; omitManagedFields?: boolean; verb?: string; name?: string } = {}): AuditRequest {
  const init: AuditRequestInit = {
    config: { level, omitStages: stageSet(o.omitStages ?? []), omitManagedFields: o.omitManagedFields ?? false },
    auditID: 'a-1',
    requestURI: '/api/v1/namespaces/team/configmaps',
    verb: o.verb ?? 'create',
    user: { username: 'jane', groups: ['developers', 'system:authenticated'] },
    sourceIPs: ['10.0.0.1', '127.0.0.1'],
    userAgent: 'kubectl/v1.24.0',
    objectRef: objectReference({ resource: 'configmaps', namespace: 'team', name: o.name ?? '', apiGroup: '', apiVersion: 'v1', subresource: '' }),
    receivedAt: AT,
  };
  const r = new AuditRequest(init);
  r.setRequestBody({ isObject: true, decode: () => structuredClone(requestObject) });
  r.setResponseBody(() => responseObject);
  return r;
}

function finish(r: AuditRequest): Record<string, unknown> {
  r.responseStatus = { metadata: {}, code: 201 };
  return JSON.parse(r.event(Stage.ResponseComplete, AT + 5)!.json('audit.platform.io/v1')) as Record<string, unknown>;
}

test('audit event - what each level records', () => {
  const cases: Array<[Level, boolean, boolean]> = [
    [Level.Metadata, false, false],
    [Level.Request, true, false],
    [Level.RequestResponse, true, true],
  ];
  for (const [level, withRequest, withResponse] of cases) {
    const ev = finish(request(level));
    assert.equal(ev.level, level);
    assert.equal('requestObject' in ev, withRequest, `${level}: requestObject`);
    assert.equal('responseObject' in ev, withResponse, `${level}: responseObject`);
    assert.deepEqual(ev.responseStatus, { metadata: {}, code: 201 });
    // Every level completes objectRef from the created object, as upstream's creates.
    assert.deepEqual(ev.objectRef, { resource: 'configmaps', namespace: 'team', name: 'cm', apiVersion: 'v1' }, level);
  }
});

test('audit event - fields, order and timestamps as upstream writes them', () => {
  const r = request(Level.Metadata, { verb: 'get', name: 'cm' });
  r.annotate('authorization.platform.io/decision', 'allow');
  r.annotate('authorization.platform.io/decision', 'forbid');
  const received = JSON.parse(r.event(Stage.RequestReceived, AT + 9)!.json('audit.k8s.io/v1')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(received), [
    'kind',
    'apiVersion',
    'level',
    'auditID',
    'stage',
    'requestURI',
    'verb',
    'user',
    'sourceIPs',
    'userAgent',
    'objectRef',
    'requestReceivedTimestamp',
    'stageTimestamp',
    'annotations',
  ]);
  assert.equal(received.apiVersion, 'audit.k8s.io/v1');
  assert.equal(received.requestReceivedTimestamp, '2024-05-01T10:00:00.123456Z');
  assert.equal(received.stageTimestamp, received.requestReceivedTimestamp, 'RequestReceived is stamped when the request arrived');
  assert.deepEqual(received.annotations, { 'authorization.platform.io/decision': 'allow' }, 'the first value of a key is kept');
  r.impersonatedUser = { username: 'bob', groups: ['system:authenticated'] };
  r.annotate('platform.io/deprecated', 'true');
  const done = finish(r);
  assert.equal(done.stageTimestamp, '2024-05-01T10:00:00.128456Z');
  assert.deepEqual(done.impersonatedUser, { username: 'bob', groups: ['system:authenticated'] });
  assert.deepEqual(Object.keys(done.annotations as object), ['authorization.platform.io/decision', 'platform.io/deprecated']);
  assert.equal(formatMicroTime(Date.UTC(2024, 0, 1) + 0.5), '2024-01-01T00:00:00.000500Z');
  assert.equal(formatMicroTime(Date.UTC(2024, 0, 1) + 999.999), '2024-01-01T00:00:00.999999Z');
  assert.equal(formatMicroTime(Date.UTC(2024, 0, 1) + 999.9999), '2024-01-01T00:00:01.000000Z', 'rounding carries into the second');
});

test('audit event - a stage takes a snapshot: later annotations and status do not reach it', () => {
  const r = request(Level.Metadata);
  const received = r.event(Stage.RequestReceived, AT)!;
  r.annotate('authorization.platform.io/decision', 'forbid');
  r.responseStatus = { metadata: {}, status: 'Failure', message: 'no', reason: 'Forbidden', code: 403 };
  const json = JSON.parse(received.json('audit.platform.io/v1')) as Record<string, unknown>;
  assert.equal(json.annotations, undefined);
  assert.equal(json.responseStatus, undefined);
  assert.equal(json.requestObject, undefined, 'objects come with the last stage only');
});

test('audit event - omitted stages produce no event', () => {
  const r = request(Level.Metadata, { omitStages: [Stage.RequestReceived, Stage.Panic] });
  assert.equal(r.event(Stage.RequestReceived, AT), null);
  assert.equal(r.event(Stage.Panic, AT), null);
  assert.notEqual(r.event(Stage.ResponseComplete, AT), null);
});

test('audit event - omitManagedFields drops managedFields from request and response objects, never from the cached object', () => {
  const kept = finish(request(Level.RequestResponse));
  assert.deepEqual((kept.requestObject as typeof requestObject).metadata.managedFields, managed);
  assert.deepEqual((kept.responseObject as typeof responseObject).metadata.managedFields, managed);
  const omitted = finish(request(Level.RequestResponse, { omitManagedFields: true }));
  assert.deepEqual(omitted.requestObject, { ...requestObject, metadata: { name: 'cm', namespace: 'team' } });
  assert.deepEqual(omitted.responseObject, { ...responseObject, metadata: { name: 'cm', namespace: 'team', uid: 'u-1', resourceVersion: '7' } });
  assert.deepEqual(responseObject.metadata.managedFields, managed, 'the shared object is untouched');

  const list: { items: Array<{ metadata: Record<string, unknown> }> } = { items: [responseObject, { metadata: { name: 'plain' } }] };
  const stripped = withoutManagedFields(list) as typeof list;
  assert.equal('managedFields' in stripped.items[0]!.metadata, false);
  assert.equal(stripped.items[1], list.items[1], 'an item with nothing to drop is not copied');
  assert.equal(list.items[0]!.metadata.managedFields, managed);
  assert.equal(withoutManagedFields('text'), 'text');
});

test('audit event - truncation drops the objects of a large Request-level event, then the event', () => {
  const r = request(Level.RequestResponse);
  r.responseStatus = { metadata: {}, code: 201 };
  const ev = r.event(Stage.ResponseComplete, AT)!;
  const full = ev.json('audit.platform.io/v1');
  assert.deepEqual(boundedJson(ev, 'audit.platform.io/v1', full.length), { text: full, truncated: false });
  const small = boundedJson(ev, 'audit.platform.io/v1', full.length - 1)!;
  assert.equal(small.truncated, true);
  const parsed = JSON.parse(small.text) as Record<string, unknown>;
  assert.equal(parsed.requestObject, undefined);
  assert.equal(parsed.responseObject, undefined);
  assert.deepEqual(parsed.annotations, { 'audit.platform.io/truncated': 'true' });
  assert.equal(boundedJson(ev, 'audit.platform.io/v1', 50), null, 'metadata alone too large: dropped');
  // A Metadata event has nothing to drop.
  const meta = request(Level.Metadata).event(Stage.ResponseComplete, AT)!;
  assert.equal(boundedJson(meta, 'audit.platform.io/v1', 100), null);
});

test('audit event - a body that cannot be decoded is left out, not thrown', () => {
  const r = request(Level.Request);
  r.setRequestBody({ isObject: true, decode: () => JSON.parse('{') as unknown });
  const ev = finish(r);
  assert.equal(ev.requestObject, undefined);
  assert.deepEqual(ev.objectRef, { resource: 'configmaps', namespace: 'team', apiVersion: 'v1' });
});

test("audit event - upstream's legacy line", () => {
  const r = request(Level.Metadata, { verb: 'get' });
  r.impersonatedUser = { username: 'bob', groups: ['a', 'b'] };
  r.responseStatus = { metadata: {}, code: 200 };
  assert.equal(
    legacyLine(r.event(Stage.ResponseComplete, AT)!),
    '2024-05-01T10:00:00.123Z AUDIT: id="a-1" stage="ResponseComplete" ip="10.0.0.1" method="get" user="jane" groups="\\"developers\\",\\"system:authenticated\\"" as="bob" asgroups="\\"a\\",\\"b\\"" user-agent="kubectl/v1.24.0" namespace="team" uri="/api/v1/namespaces/team/configmaps" response="200"',
  );
});

test('audit event - at Metadata the request body is read when the request ends, then let go', () => {
  let reads = 0;
  const r = request(Level.Metadata);
  r.setRequestBody({ isObject: true, decode: () => (reads++, structuredClone(requestObject)) });
  r.settle();
  assert.equal(reads, 1);
  assert.equal(r.decodedRequest(), undefined, 'the body is no longer held');
  const ev = finish(r);
  assert.deepEqual(ev.objectRef, { resource: 'configmaps', namespace: 'team', name: 'cm', apiVersion: 'v1' });
  assert.equal(reads, 1, 'not read again when serialized');
  // Request and above keep reading it only when an event is serialized (it is recorded then).
  const lazy = request(Level.Request);
  lazy.settle();
  assert.deepEqual(finish(lazy).requestObject, requestObject);
});
