import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchCache, resourceKey, type WatchSink } from '../watch-cache.js';
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
      events.push(JSON.parse(chunk));
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
  assert.deepEqual(c.current(CM).map((o) => o.sortKey), ['aaa/c', 'default/a', 'default/b']);
  assert.equal(c.get(CM, 'default', 'a')?.object.metadata.resourceVersion, '2');
  assert.equal(c.revision, 3);
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
  assert.deepEqual(at2.map((o) => [o.ref.name, o.object.data]), [['a', { v: '1' }], ['b', { v: '1' }]]);
  assert.deepEqual(c.snapshot(CM, 4).map((o) => o.ref.name), ['a']);
  assert.deepEqual(c.snapshot(CM, 5).map((o) => o.ref.name), ['a', 'c']);
});

test('watch cache - exact reads before the window are 410 Expired', () => {
  let t = 0;
  const c = synced(() => t);
  put(c, 1, 'a');
  t = 10 * 60_000;
  put(c, 2, 'a');
  c.compact();
  assert.equal(c.compactedRevision, 1);
  assert.throws(() => c.snapshot(CM, 0), (e: any) => e.status.code === 410 && e.status.reason === 'Expired');
  assert.equal(c.snapshot(CM, 1).length, 1);
});

test('watch cache - watch replays after a revision, then follows live changes', () => {
  const c = synced();
  put(c, 1, 'a');
  put(c, 2, 'b');
  const w = sink();
  c.watch(CM, { afterRevision: 1, sink: w.s });
  put(c, 3, 'a', { x: 'y' });
  del(c, 4, 'b');
  assert.deepEqual(w.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]), [
    ['ADDED', 'b', '2'],
    ['MODIFIED', 'a', '3'],
    ['DELETED', 'b', '4'],
  ]);
});

test('watch cache - an object leaving the selector is DELETED, entering is ADDED', () => {
  const c = synced();
  put(c, 1, 'a', {}, { app: 'x' });
  const w = sink();
  const initial = c.current(CM);
  c.watch(CM, { afterRevision: c.revision, initial, filter: (o) => o.metadata.labels?.app === 'x', sink: w.s });
  put(c, 2, 'a', {}, { app: 'y' });
  put(c, 3, 'a', {}, { app: 'x' });
  put(c, 4, 'b', {}, { app: 'z' });
  assert.deepEqual(w.events.map((e) => `${e.type}@${e.object.metadata.resourceVersion}`), ['ADDED@1', 'DELETED@2', 'ADDED@3']);
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
  c.watch(CM, { afterRevision: 0, sink: w.s });
  assert.equal(w.events[0]?.type, 'ERROR');
  assert.equal(w.events[0]?.object.code, 410);
  assert.ok(w.closed());
});

test('watch cache - a slow watcher is closed without affecting the others', () => {
  const c = synced();
  const slow = sink(1);
  const fast = sink();
  c.watch(CM, { afterRevision: 0, sink: slow.s });
  c.watch(CM, { afterRevision: 0, sink: fast.s });
  for (let i = 1; i <= 5; i++) put(c, i, `o${i}`);
  assert.ok(slow.closed());
  assert.equal(fast.events.length, 5);
  assert.equal(c.watcherCount(), 1);
});

test('watch cache - bookmarks carry the current revision only when asked for', () => {
  const c = synced();
  const withB = sink();
  const without = sink();
  c.watch(CM, { afterRevision: 0, sink: withB.s, bookmarks: { apiVersion: 'v1', kind: 'ConfigMap' } });
  c.watch(CM, { afterRevision: 0, sink: without.s });
  put(c, 7, 'a');
  c.sendBookmarks();
  c.sendBookmarks();
  assert.deepEqual(withB.events.map((e) => e.type), ['ADDED', 'BOOKMARK']);
  assert.equal(withB.events[1]!.object.metadata.resourceVersion, '7');
  assert.deepEqual(without.events.map((e) => e.type), ['ADDED']);
});

test('watch cache - waitFor resolves on apply and times out with 504', async () => {
  const c = synced();
  const p = c.waitFor(3, 1000);
  put(c, 3, 'a');
  await p;
  await assert.rejects(c.waitFor(10, 20), (e: any) => e.status.code === 504);
});
