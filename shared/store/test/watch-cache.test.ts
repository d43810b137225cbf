import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchCache, namespaceFacts, type WatchSink } from '../watch-cache.js';
import { resourceKey } from '../../api/resource-key.js';
import { jsonWatchEncoder } from '../../codec/json.js';
import { encodeKey } from '../key-codec.js';

const enc = new TextEncoder();
const CM = resourceKey('', 'configmaps');

function put(cache: WatchCache, rev: number, name: string, data: Record<string, string> = {}, labels?: Record<string, string>, ns = 'default') {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data };
  cache.apply({ key: encodeKey({ group: '', resource: 'configmaps', namespace: ns, name }), revision: rev, operation: 'PUT', value: enc.encode(JSON.stringify(obj)) });
}
function del(cache: WatchCache, rev: number, name: string, ns = 'default') {
  cache.apply({ key: encodeKey({ group: '', resource: 'configmaps', namespace: ns, name }), revision: rev, operation: 'DEL' });
}
function sink(limit = Infinity) {
  const events: Array<{ type: string; object: any }> = [];
  let closed = false;
  const s: WatchSink = {
    write(chunk) {
      if (events.length >= limit) return false;
      events.push(JSON.parse(String(chunk)));
      return true;
    },
    close() {
      closed = true;
    },
  };
  return { s, events, closed: () => closed };
}
function synced(now = () => 0) {
  const c = new WatchCache({ now });
  c.markSynced(0);
  return c;
}

test('watch cache - current state in key order with resourceVersion from the revision', () => {
  const c = synced();
  put(c, 1, 'b');
  put(c, 2, 'a');
  put(c, 3, 'c', {}, undefined, 'aaa');
  assert.deepEqual(
    c.current(CM).map((o) => o.sortKey),
    ['aaa/c', 'default/a', 'default/b'],
  );
  assert.equal(c.get(CM, 'default', 'a')?.object.metadata.resourceVersion, '2');
  assert.equal(c.revision, 3);
});

const vOf = (o: { object: unknown } | undefined) => (o?.object as { data?: { v?: string } } | undefined)?.data?.v;

test('watch cache - current state follows modifications, creates and deletes; an array already read never changes', () => {
  const c = synced();
  for (let i = 0; i < 20; i++) put(c, i + 1, `o${String(i).padStart(2, '0')}`, { v: '1' });
  const before = c.current(CM);
  const frozen = before.map((o) => o.object.data);
  put(c, 21, 'o05', { v: '2' });
  put(c, 22, 'o17', { v: '2' });
  const after = c.current(CM);
  assert.notEqual(after, before, 'a modified view is a new array');
  assert.deepEqual(
    before.map((o) => o.object.data),
    frozen,
    'the array read before is untouched',
  );
  assert.deepEqual(
    after.filter((o) => vOf(o) === '2').map((o) => o.sortKey),
    ['default/o05', 'default/o17'],
  );
  assert.equal(c.current(CM), after, 'unchanged state: the same array again');
  put(c, 23, 'o05', { v: '3' });
  put(c, 24, 'a-first', { v: '1' });
  del(c, 25, 'o10');
  const keys = c.current(CM).map((o) => o.sortKey);
  assert.equal(keys.length, 20);
  assert.equal(keys[0], 'default/a-first');
  assert.ok(!keys.includes('default/o10'));
  assert.equal(vOf(c.get(CM, 'default', 'o05')), '3');
  assert.equal(vOf(c.current(CM).find((o) => o.sortKey === 'default/o05')), '3');
});

test('watch cache - redelivered revisions are dropped', () => {
  const c = synced();
  put(c, 5, 'a', { v: '1' });
  put(c, 5, 'a', { v: 'dup' });
  put(c, 4, 'a', { v: 'old' });
  assert.deepEqual(c.get(CM, 'default', 'a')?.object.data, { v: '1' });
});

test('watch cache - snapshot rolls back creates, updates and deletes exactly', () => {
  const c = synced();
  put(c, 1, 'a', { v: '1' });
  put(c, 2, 'b', { v: '1' });
  put(c, 3, 'a', { v: '2' });
  del(c, 4, 'b');
  put(c, 5, 'c');
  const at2 = c.snapshot(CM, 2);
  assert.deepEqual(
    at2.map((o) => [o.ref.name, o.object.data]),
    [
      ['a', { v: '1' }],
      ['b', { v: '1' }],
    ],
  );
  assert.deepEqual(
    c.snapshot(CM, 4).map((o) => o.ref.name),
    ['a'],
  );
  assert.deepEqual(
    c.snapshot(CM, 5).map((o) => o.ref.name),
    ['a', 'c'],
  );
});

test('watch cache - exact reads before the window are 410 Expired', () => {
  let t = 0;
  const c = synced(() => t);
  put(c, 1, 'a');
  t = 10 * 60_000;
  put(c, 2, 'a');
  c.compact();
  assert.equal(c.compactedRevision, 1);
  assert.throws(
    () => c.snapshot(CM, 0),
    (e: any) => e.status.code === 410 && e.status.reason === 'Expired',
  );
  assert.equal(c.snapshot(CM, 1).length, 1);
});

test('watch cache - watch replays after a revision, then follows live changes', () => {
  const c = synced();
  put(c, 1, 'a');
  put(c, 2, 'b');
  const w = sink();
  c.watch(CM, { afterRevision: 1, encoder: jsonWatchEncoder, sink: w.s });
  put(c, 3, 'a', { x: 'y' });
  del(c, 4, 'b');
  assert.deepEqual(
    w.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
    [
      ['ADDED', 'b', '2'],
      ['MODIFIED', 'a', '3'],
      ['DELETED', 'b', '4'],
    ],
  );
});

test('watch cache - an object leaving the selector is DELETED, entering is ADDED', () => {
  const c = synced();
  put(c, 1, 'a', {}, { app: 'x' });
  const w = sink();
  const initial = c.current(CM);
  c.watch(CM, { afterRevision: c.revision, initial, filter: (o) => o.metadata.labels?.app === 'x', encoder: jsonWatchEncoder, sink: w.s });
  put(c, 2, 'a', {}, { app: 'y' });
  put(c, 3, 'a', {}, { app: 'x' });
  put(c, 4, 'b', {}, { app: 'z' });
  assert.deepEqual(
    w.events.map((e) => `${e.type}@${e.object.metadata.resourceVersion}`),
    ['ADDED@1', 'DELETED@2', 'ADDED@3'],
  );
});

test('watch cache - too old a revision yields an ERROR event with 410', () => {
  let t = 0;
  const c = synced(() => t);
  put(c, 1, 'a');
  t = 10 * 60_000;
  put(c, 2, 'a');
  put(c, 3, 'a');
  c.compact();
  const w = sink();
  c.watch(CM, { afterRevision: 0, encoder: jsonWatchEncoder, sink: w.s });
  assert.equal(w.events[0]?.type, 'ERROR');
  assert.equal(w.events[0]?.object.code, 410);
  assert.ok(w.closed());
});

test('watch cache - a slow watcher is closed without affecting the others', () => {
  const c = synced();
  const slow = sink(1);
  const fast = sink();
  c.watch(CM, { afterRevision: 0, encoder: jsonWatchEncoder, sink: slow.s });
  c.watch(CM, { afterRevision: 0, encoder: jsonWatchEncoder, sink: fast.s });
  for (let i = 1; i <= 5; i++) put(c, i, `o${i}`);
  assert.ok(slow.closed());
  assert.equal(fast.events.length, 5);
  assert.equal(c.watcherCount(), 1);
});

test('watch cache - bookmarks carry the current revision only when asked for', () => {
  const c = synced();
  const withB = sink();
  const without = sink();
  c.watch(CM, { afterRevision: 0, encoder: jsonWatchEncoder, sink: withB.s, bookmarks: { apiVersion: 'v1', kind: 'ConfigMap' } });
  c.watch(CM, { afterRevision: 0, encoder: jsonWatchEncoder, sink: without.s });
  put(c, 7, 'a');
  c.sendBookmarks();
  c.sendBookmarks();
  assert.deepEqual(
    withB.events.map((e) => e.type),
    ['ADDED', 'BOOKMARK'],
  );
  assert.equal(withB.events[1]!.object.metadata.resourceVersion, '7');
  assert.deepEqual(
    without.events.map((e) => e.type),
    ['ADDED'],
  );
});

test('watch cache - waitFor resolves on apply and times out with 504', async () => {
  const c = synced();
  const p = c.waitFor(3, 1000);
  put(c, 3, 'a');
  await p;
  await assert.rejects(c.waitFor(10, 20), (e: any) => e.status.code === 504);
});

/** A transport with a high-water mark: takes writes, is ready below the mark, drains on demand. */
function pacedSink(highWaterMark: number) {
  const events: Array<{ type: string; object: any }> = [];
  let pending = 0;
  let maxPending = 0;
  let closed = false;
  let waiting: Array<() => void> = [];
  const s: WatchSink = {
    write(chunk) {
      events.push(JSON.parse(String(chunk)));
      pending += chunk.length;
      maxPending = Math.max(maxPending, pending);
      return true;
    },
    close() {
      closed = true;
    },
    ready: () => pending < highWaterMark,
    onReady(fn) {
      waiting.push(fn);
    },
  };
  return {
    s,
    events,
    closed: () => closed,
    pending: () => pending,
    maxPending: () => maxPending,
    waiters: () => waiting.length,
    /** The client read everything: the transport is empty and says so. */
    drain() {
      pending = 0;
      const fns = waiting;
      waiting = [];
      for (const fn of fns) fn();
    },
  };
}

function bigState(c: WatchCache, n: number, bytes = 1000) {
  for (let i = 0; i < n; i++) put(c, c.revision + 1, `o${String(i).padStart(3, '0')}`, { payload: 'x'.repeat(bytes) });
}

test('watch cache - initial events are produced only as the sink drains, about one high-water mark at a time', () => {
  const c = synced();
  bigState(c, 100);
  const hwm = 4096;
  const w = pacedSink(hwm);
  const event = JSON.stringify({ type: 'ADDED', object: c.current(CM)[0]!.object }).length + 1;
  c.watch(CM, { afterRevision: c.revision, initial: c.current(CM), encoder: jsonWatchEncoder, sink: w.s });
  assert.ok(w.events.length > 0 && w.events.length <= Math.ceil(hwm / event), `${w.events.length} events before any drain`);
  assert.equal(w.waiters(), 1, 'waits for the transport');
  let drains = 0;
  while (w.waiters() > 0) {
    // A change while catching up comes after the initial state, exactly once.
    if (drains === 3) put(c, c.revision + 1, 'o000', { payload: 'changed' });
    w.drain();
    drains++;
    assert.ok(drains < 100, 'catching up ends');
  }
  assert.ok(w.maxPending() < hwm + event, `never more than a high-water mark ahead: ${w.maxPending()}`);
  assert.ok(drains >= (100 * event) / (hwm + event), `${drains} drains`);
  assert.deepEqual(
    w.events.slice(0, 100).map((e) => e.type),
    Array(100).fill('ADDED'),
  );
  assert.deepEqual(
    w.events.slice(0, 100).map((e) => e.object.metadata.name),
    c.current(CM).map((o) => o.ref.name),
  );
  assert.equal(w.events[0]!.object.data.payload.length, 1000, 'the initial state is the one at the watch');
  assert.deepEqual(
    w.events.slice(100).map((e) => `${e.type}:${e.object.metadata.name}:${e.object.data.payload}`),
    ['MODIFIED:o000:changed'],
  );
  assert.equal(c.watcherCount(), 1, 'live once caught up');
  put(c, c.revision + 1, 'live');
  assert.equal(w.events.at(-1)!.object.metadata.name, 'live');
});

test('watch cache - the initial-events-end bookmark follows the last paced initial event', () => {
  const c = synced();
  bigState(c, 20);
  const w = pacedSink(2048);
  c.watch(CM, { afterRevision: c.revision, initial: c.current(CM), initialEventsEnd: true, bookmarks: { apiVersion: 'v1', kind: 'ConfigMap' }, encoder: jsonWatchEncoder, sink: w.s });
  assert.ok(!w.events.some((e) => e.type === 'BOOKMARK'));
  while (w.waiters() > 0) w.drain();
  assert.deepEqual(
    w.events.map((e) => e.type),
    [...Array(20).fill('ADDED'), 'BOOKMARK'],
  );
  assert.equal(w.events[20]!.object.metadata.annotations['platform.io/initial-events-end'], 'true');
});

test('watch cache - stopping a watcher mid-way sends nothing more and lets go of its initial state', async () => {
  const v8 = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const c = synced();
  bigState(c, 50);
  const w = pacedSink(2048);
  let initial: unknown[] | undefined = c.current(CM);
  const held = new WeakRef(initial);
  // The transport keeps the handle (as a response's listeners do) after the client went away.
  const handle = c.watch(CM, { afterRevision: c.revision, initial: initial as any, encoder: jsonWatchEncoder, sink: w.s });
  initial = undefined;
  const sent = w.events.length;
  assert.ok(sent < 50);
  handle.stop();
  w.drain();
  put(c, c.revision + 1, 'after-stop');
  assert.equal(w.events.length, sent);
  assert.equal(c.watcherCount(), 0);
  await new Promise((r) => setImmediate(r));
  gc();
  assert.equal(held.deref(), undefined, 'the initial state is no longer held');
  assert.ok(handle);
});

test('watch cache - a log over its cap loses its oldest events, whatever their resource, down to nine tenths of the cap', () => {
  const dropped: number[] = [];
  const c = new WatchCache({ maxLogEvents: 10, onCompacted: (n) => dropped.push(n) });
  c.markSynced(0);
  const SECRETS = resourceKey('', 'secrets');
  for (let rev = 1; rev <= 8; rev++) put(c, rev, `cm${rev}`);
  for (const rev of [9, 10]) {
    const obj = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${rev}`, namespace: 'default' } };
    c.apply({ key: encodeKey({ group: '', resource: 'secrets', namespace: 'default', name: `s${rev}` }), revision: rev, operation: 'PUT', value: enc.encode(JSON.stringify(obj)) });
  }
  assert.deepEqual(dropped, [], 'at the cap nothing goes');
  put(c, 11, 'cm11');
  assert.deepEqual(dropped, [2], 'the two oldest events went, not half of each log');
  assert.equal(c.compactedRevision, 2);
  assert.throws(
    () => c.snapshot(CM, 1),
    (e: any) => e.status.code === 410,
  );
  assert.deepEqual(
    c.snapshot(CM, 2).map((o) => o.ref.name),
    ['cm1', 'cm2'],
  );
  const cms = sink();
  c.watch(CM, { afterRevision: 2, encoder: jsonWatchEncoder, sink: cms.s });
  assert.deepEqual(
    cms.events.map((e) => e.object.metadata.name),
    ['cm3', 'cm4', 'cm5', 'cm6', 'cm7', 'cm8', 'cm11'],
  );
  const secrets = sink();
  c.watch(SECRETS, { afterRevision: 2, encoder: jsonWatchEncoder, sink: secrets.s });
  assert.deepEqual(
    secrets.events.map((e) => e.object.metadata.name),
    ['s9', 's10'],
    'the other resource keeps its recent events',
  );
  for (let rev = 12; rev <= 13; rev++) put(c, rev, `cm${rev}`);
  assert.deepEqual(dropped, [2, 2], 'the next forced compaction comes a tenth of the cap later');
  assert.equal(c.compactedRevision, 4);
});

test('watch cache - changes compacted away while a watcher catches up end it with 410', () => {
  let t = 0;
  const c = synced(() => t);
  bigState(c, 20);
  const w = pacedSink(2048);
  c.watch(CM, { afterRevision: c.revision, initial: c.current(CM), encoder: jsonWatchEncoder, sink: w.s });
  put(c, c.revision + 1, 'missed');
  t = 10 * 60_000;
  put(c, c.revision + 1, 'kept');
  c.compact();
  while (w.waiters() > 0) w.drain();
  assert.equal(w.events.at(-1)!.type, 'ERROR');
  assert.equal(w.events.at(-1)!.object.code, 410);
  assert.ok(w.closed());
  assert.equal(c.watcherCount(), 0);
});

test('watch cache - shutdown closes a watcher still catching up', () => {
  const c = synced();
  bigState(c, 20);
  const w = pacedSink(2048);
  c.watch(CM, { afterRevision: c.revision, initial: c.current(CM), encoder: jsonWatchEncoder, sink: w.s });
  assert.equal(w.waiters(), 1);
  c.closeAll();
  assert.ok(w.closed());
  const sent = w.events.length;
  w.drain();
  assert.equal(w.events.length, sent);
  assert.equal(c.watcherCount(), 0);
});

test('watch cache - per-resource figures for the metrics: objects, watchers, init and dispatched events, slow watchers, initializations', () => {
  const c = new WatchCache();
  put(c, 1, 'a');
  put(c, 2, 'b');
  c.apply({ key: encodeKey({ group: 'apps', resource: 'deployments', namespace: 'default', name: 'd' }), revision: 3, operation: 'PUT', value: enc.encode('{"metadata":{"name":"d"}}') });
  c.markSynced(3);
  const fast = sink();
  const slow = sink(1);
  c.watch(CM, { afterRevision: 3, encoder: jsonWatchEncoder, sink: fast.s });
  c.watch(CM, { afterRevision: 3, encoder: jsonWatchEncoder, sink: slow.s });
  put(c, 4, 'c');
  put(c, 5, 'd');
  del(c, 6, 'a');
  const stats = (group: string, resource: string) => c.resourceStats().find((s) => s.group === group && s.resource === resource);
  assert.deepEqual(stats('', 'configmaps'), { group: '', resource: 'configmaps', objects: 3, watchers: 1, initEvents: 2, dispatched: 3, terminatedWatchers: 1 });
  assert.deepEqual(stats('apps', 'deployments'), { group: 'apps', resource: 'deployments', objects: 1, watchers: 0, initEvents: 1, dispatched: 0, terminatedWatchers: 0 });
  assert.equal(c.initializations, 1);
  // The feed came back after missing a change: the window restarts, a second initialization.
  const replay = ['b', 'c', 'd', 'e'].map((name, i) => ({
    key: encodeKey({ group: '', resource: 'configmaps', namespace: 'default', name }),
    revision: 7 + i,
    operation: 'PUT' as const,
    value: enc.encode(`{"metadata":{"name":"${name}"}}`),
  }));
  c.resync(replay, 10);
  assert.equal(c.initializations, 2);
});

test('watch cache - namespace facts: active namespaces and whether a namespace holds a resource, unknown until synced', () => {
  const c = new WatchCache();
  const facts = namespaceFacts(c);
  const putNs = (rev: number, name: string, extra: Record<string, unknown> = {}) =>
    c.apply({
      key: encodeKey({ group: '', resource: 'namespaces', name }),
      revision: rev,
      operation: 'PUT',
      value: enc.encode(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...extra })),
    });
  const quota = (rev: number, ns: string) =>
    c.apply({ key: encodeKey({ group: '', resource: 'resourcequotas', namespace: ns, name: 'q' }), revision: rev, operation: 'PUT', value: enc.encode('{"metadata":{}}') });
  putNs(1, 'a');
  quota(2, 'ab');
  assert.equal(facts.active('a'), false, 'not synced: nothing is known to be active');
  assert.equal(facts.holds('a', '', 'resourcequotas'), true, 'not synced: anything may be there');
  c.markSynced(2);
  putNs(3, 'b', { status: { phase: 'Terminating' } });
  putNs(4, 'c', { metadata: { name: 'c', deletionTimestamp: '2026-01-01T00:00:00Z' } });
  assert.deepEqual(
    ['a', 'b', 'c', 'd'].map((n) => facts.active(n)),
    [true, false, false, false],
  );
  // "ab/q" must not count for "a": the namespace is matched whole.
  assert.deepEqual(
    ['a', 'ab', 'b'].map((n) => facts.holds(n, '', 'resourcequotas')),
    [false, true, false],
  );
  quota(5, 'a');
  assert.equal(facts.holds('a', '', 'resourcequotas'), true);
  c.apply({ key: encodeKey({ group: '', resource: 'resourcequotas', namespace: 'a', name: 'q' }), revision: 6, operation: 'DEL' });
  assert.equal(facts.holds('a', '', 'resourcequotas'), false);
});

test('watch cache - failWatches ends every watch with an ERROR carrying the status and refuses new ones until followingAgain', () => {
  const c = synced();
  put(c, 1, 'a');
  const open = [sink(), sink()];
  for (const w of open) c.watch(CM, { afterRevision: 1, encoder: jsonWatchEncoder, sink: w.s });
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'lost', reason: 'ServiceUnavailable', code: 503 } as const;
  c.failWatches(status);
  for (const w of open) {
    assert.deepEqual(
      w.events.map((e) => [e.type, e.object.code]),
      [['ERROR', 503]],
    );
    assert.ok(w.closed());
  }
  assert.equal(c.watcherCount(), 0);
  const refused = sink();
  c.watch(CM, { afterRevision: 1, encoder: jsonWatchEncoder, sink: refused.s });
  assert.deepEqual(
    refused.events.map((e) => e.type),
    ['ERROR'],
  );
  assert.ok(refused.closed());
  c.followingAgain();
  const served = sink();
  c.watch(CM, { afterRevision: 1, encoder: jsonWatchEncoder, sink: served.s });
  put(c, 2, 'b');
  assert.deepEqual(
    served.events.map((e) => `${e.type} ${e.object.metadata.name}`),
    ['ADDED b'],
  );
  assert.ok(!served.closed());
});

test('watch cache - resync finds a change the feed skipped while later ones arrived: the window restarts and the cache holds it', () => {
  const c = synced();
  put(c, 1, 'a');
  // Revision 2 (b) never reached the cache; 3 did.
  put(c, 3, 'c');
  const w = sink();
  c.watch(CM, { afterRevision: 3, encoder: jsonWatchEncoder, sink: w.s });
  const entry = (name: string, revision: number) => ({
    key: encodeKey({ group: '', resource: 'configmaps', namespace: 'default', name }),
    revision,
    operation: 'PUT' as const,
    value: enc.encode(`{"metadata":{"name":"${name}","namespace":"default"}}`),
  });
  assert.equal(c.resync([entry('a', 1), entry('b', 2), entry('c', 3)], 3), 1);
  assert.deepEqual(
    w.events.map((e) => [e.type, e.object.code]),
    [['ERROR', 410]],
  );
  assert.deepEqual(
    c.current(CM).map((o) => `${o.object.metadata.name}@${o.revision}`),
    ['default/a@1', 'default/b@2', 'default/c@3'].map((s) => s.slice('default/'.length)),
  );
  // Nothing skipped: watchers go on.
  const w2 = sink();
  c.watch(CM, { afterRevision: c.revision, encoder: jsonWatchEncoder, sink: w2.s });
  assert.equal(c.resync([entry('a', 1), entry('b', 2), entry('c', 3)], c.revision), 0);
  assert.equal(w2.events.length, 0);
  assert.ok(!w2.closed());
});
