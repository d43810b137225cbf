import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../log.js';
import { AuditRequest, objectReference, type AuditEvent } from '../event.js';
import { Auditor, BackendMode, BufferedBackend, createBackend, type AuditErrors, type AuditMetrics, type AuditWriter, type BatchOptions } from '../backend.js';
import { parsePolicy, PolicyChecker } from '../policy.js';
import { Level, Stage, stageSet } from '../types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function event(id: string): AuditEvent {
  const r = new AuditRequest({
    config: { level: Level.Metadata, omitStages: stageSet([]), omitManagedFields: false },
    auditID: id,
    requestURI: '/api/v1/pods',
    verb: 'list',
    user: { username: 'jane', groups: [] },
    sourceIPs: [],
    userAgent: undefined,
    objectRef: objectReference({ resource: 'pods', namespace: '', name: '', apiGroup: '', apiVersion: 'v1', subresource: '' }),
    receivedAt: Date.now(),
  });
  return r.event(Stage.ResponseComplete, Date.now())!;
}

/** A writer that records its batches; `gate` holds writes until released, `fail` rejects them. */
function recordingWriter() {
  const batches: string[][] = [];
  let release: (() => void) | null = null;
  let gate: Promise<void> | null = null;
  const w = {
    batches,
    fail: false,
    closed: false,
    hold() {
      gate = new Promise((r) => (release = r));
    },
    release() {
      release?.();
      gate = null;
    },
    writer: {
      name: 'test',
      async write(events: readonly AuditEvent[]) {
        batches.push(events.map((e) => e.auditID));
        if (gate) await gate;
        if (w.fail) throw new Error('disk on fire');
      },
      async close() {
        w.closed = true;
      },
    } satisfies AuditWriter,
  };
  return w;
}

function countingErrors() {
  const counted = new Map<string, number>();
  const reported: Array<{ plugin: string; ids: string[] }> = [];
  const errors: AuditErrors = {
    count: (plugin, n) => counted.set(plugin, (counted.get(plugin) ?? 0) + n),
    report: (plugin, events) => {
      counted.set(plugin, (counted.get(plugin) ?? 0) + events.length);
      reported.push({ plugin, ids: events.map((e) => e.auditID) });
    },
  };
  return { counted, reported, errors };
}

const batch = (o: Partial<BatchOptions> = {}): BatchOptions => ({ bufferSize: 100, maxBatchSize: 3, maxBatchWaitMs: 0, throttle: null, concurrency: 1, ...o });

test('audit buffered backend - with no wait, what is queued in one turn goes in one write, up to the batch size', async () => {
  const w = recordingWriter();
  const b = new BufferedBackend(w.writer, batch(), countingErrors().errors, silentLogger());
  for (const id of ['a', 'b', 'c', 'd', 'e']) assert.equal(b.process(event(id)), undefined, 'a request never waits in batch mode');
  assert.deepEqual(w.batches, [], 'nothing is written on the request path');
  await sleep(20);
  assert.deepEqual(w.batches, [
    ['a', 'b', 'c'],
    ['d', 'e'],
  ]);
});

test('audit buffered backend - a full batch goes at once, a smaller one after the wait', async () => {
  const w = recordingWriter();
  const b = new BufferedBackend(w.writer, batch({ maxBatchWaitMs: 150 }), countingErrors().errors, silentLogger());
  for (const id of ['a', 'b', 'c', 'd']) b.process(event(id));
  await sleep(20);
  assert.deepEqual(w.batches, [['a', 'b', 'c']]);
  await sleep(200);
  assert.deepEqual(w.batches, [['a', 'b', 'c'], ['d']]);
  await b.shutdown();
});

test('audit buffered backend - a full buffer drops and counts, never blocks; a failed write is reported with its events', async () => {
  const w = recordingWriter();
  const e = countingErrors();
  const b = new BufferedBackend(w.writer, batch({ bufferSize: 4, maxBatchSize: 2 }), e.errors, silentLogger());
  w.hold();
  b.process(event('a'));
  b.process(event('b'));
  await sleep(10); // [a, b] is being written and hangs
  for (const id of ['c', 'd', 'e', 'f', 'g', 'h']) b.process(event(id));
  assert.equal(e.counted.get('buffered'), 2, 'the buffer holds 4: g and h are dropped');
  w.fail = true;
  w.release();
  await sleep(20);
  assert.deepEqual(w.batches, [
    ['a', 'b'],
    ['c', 'd'],
    ['e', 'f'],
  ]);
  assert.deepEqual(
    e.reported.map((r) => r.ids),
    [
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ],
  );
  assert.equal(e.counted.get('test'), 6);
});

test('audit buffered backend - batches in flight at once stay within the concurrency; the rate is throttled', async () => {
  const w = recordingWriter();
  const b = new BufferedBackend(w.writer, batch({ maxBatchSize: 1, concurrency: 2, throttle: { qps: 20, burst: 2 } }), countingErrors().errors, silentLogger());
  w.hold();
  for (const id of ['a', 'b', 'c', 'd']) b.process(event(id));
  await sleep(10);
  assert.equal(w.batches.length, 2, 'two in flight');
  w.release();
  await sleep(10);
  assert.equal(w.batches.length, 2, 'the burst is spent: the next waits for a token (20 per second)');
  await sleep(120);
  assert.equal(w.batches.length, 4);
});

test('audit buffered backend - shutdown writes what is buffered, then closes the writer; later events are counted', async () => {
  const w = recordingWriter();
  const e = countingErrors();
  const b = new BufferedBackend(w.writer, batch({ maxBatchWaitMs: 60_000, throttle: { qps: 0.001, burst: 1 } }), e.errors, silentLogger());
  for (const id of ['a', 'b']) b.process(event(id));
  await b.shutdown();
  assert.deepEqual(w.batches, [['a', 'b']], 'neither the wait nor the rate holds shutdown back');
  assert.equal(w.closed, true);
  b.process(event('late'));
  assert.equal(e.counted.get('buffered'), 1);
});

test('audit blocking backends - the request waits for the write; only blocking-strict turns a failure into a refusal', async () => {
  for (const [mode, okOnFailure] of [
    [BackendMode.Blocking, true],
    [BackendMode.BlockingStrict, false],
  ] as const) {
    const w = recordingWriter();
    const e = countingErrors();
    const b = createBackend(w.writer, mode, batch(), e.errors, silentLogger());
    w.hold();
    let done = false;
    const p = b.process(event('a'))!.then((ok) => ((done = true), ok));
    await sleep(10);
    assert.equal(done, false, `${mode}: still waiting for the write`);
    w.release();
    assert.equal(await p, true);
    w.fail = true;
    assert.equal(await b.process(event('b')), okOnFailure, mode);
    assert.deepEqual(e.reported, [{ plugin: 'test', ids: ['b'] }], `${mode}: the failure is counted and logged`);
  }
});

test('audit auditor - every backend gets each event; levels and events are counted; omitted stages are not written', async () => {
  const counts = { events: 0, levels: [] as string[], rejected: 0 };
  const metrics: AuditMetrics = { event: () => counts.events++, level: (l) => counts.levels.push(l), error: () => undefined, rejected: () => counts.rejected++ };
  const one = recordingWriter();
  const two = recordingWriter();
  const errors = countingErrors().errors;
  const checker = new PolicyChecker(parsePolicy('apiVersion: audit.platform.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: Metadata\n    users: [jane]\n'));
  const a = new Auditor(
    checker,
    [createBackend(one.writer, BackendMode.Batch, batch(), errors, silentLogger()), createBackend(two.writer, BackendMode.Blocking, batch(), errors, silentLogger())],
    metrics,
  );
  const attrs = { verb: 'list', isResourceRequest: true, path: '/api/v1/pods', apiGroup: '', resource: 'pods', subresource: '', namespace: '', name: '' };
  const config = a.evaluate({ username: 'jane' }, attrs);
  assert.equal(a.evaluate({ username: 'bob' }, attrs).level, Level.None);
  assert.deepEqual(counts.levels, ['Metadata', 'None']);
  const req = event('x').request;
  assert.equal(config.level, 'Metadata');
  const r2 = new AuditRequest({ ...req.init, config });
  assert.equal(a.emit(r2, Stage.RequestReceived), undefined, 'omitted by the policy');
  assert.equal(await a.emit(r2, Stage.ResponseComplete), true, 'the blocking backend is waited for');
  await sleep(10);
  assert.deepEqual([one.batches, two.batches], [[['x']], [['x']]]);
  assert.equal(counts.events, 1);
});

test('audit auditor - shutdown lets a record still ending (a watch whose response is closing) write its last stage', async () => {
  const metrics: AuditMetrics = { event: () => undefined, level: () => undefined, error: () => undefined, rejected: () => undefined };
  const w = recordingWriter();
  const e = countingErrors();
  const a = new Auditor(
    new PolicyChecker(parsePolicy('apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n')),
    [createBackend(w.writer, BackendMode.Batch, batch(), e.errors, silentLogger())],
    metrics,
  );
  const watch = new AuditRequest({ ...event('w').request.init, verb: 'watch' });
  // A batch backend does not block: there is nothing to wait for, and shutdown flushes the batch.
  void a.emit(watch, Stage.RequestReceived);
  const stopped = a.shutdown();
  await sleep(20);
  assert.equal(w.closed, false, 'the backend waits for the open record');
  void a.emit(watch, Stage.ResponseComplete);
  await stopped;
  assert.deepEqual(w.batches.flat(), ['w', 'w'], 'RequestReceived and ResponseComplete both written');
  assert.equal(w.closed, true);
  assert.equal(e.counted.size, 0, 'nothing dropped');
});
