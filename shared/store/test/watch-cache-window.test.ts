// The window rebuilt from the change log while the cache already serves (watch-cache.ts
// markLoaded/restoreHistory, watch-cache-window.ts): the same snapshots and watch events as a cache
// that lived through every change, whatever arrived during the rebuild; reads of older revisions
// told to wait until then; logged objects parsed only when read.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchCache, type WatchSink } from '../watch-cache.js';
import { resourceKey } from '../../api/resource-key.js';
import { jsonWatchEncoder } from '../../codec/json.js';
import { encodeKey } from '../key-codec.js';
import type { LoggedChange } from '../change-log.js';
import { keptAfter } from '../watch-cache-window.js';
import { DeletedObject, LoggedObject, looksLikeObject } from '../logged-object.js';

const enc = new TextEncoder();
const CM = resourceKey('', 'configmaps');
const keyOf = (name: string) => encodeKey({ group: '', resource: 'configmaps', namespace: 'default', name });

type Op = [name: string, v: string | null];

/** Writes `ops` (v null: a delete) at revisions 1.., as the bucket and the log take them. */
/** `count` rounds of writes to objects o0…o<objects-1>, each round writing its number as the value. */
function rounds(objects: number, count: number): Op[] {
  const ops: Op[] = [];
  for (let r = 0; r < count; r++) for (let i = 0; i < objects; i++) ops.push([`o${i}`, String(r)]);
  return ops;
}

function history(ops: Op[]): { changes: LoggedChange[]; entries: Array<{ key: string; revision: number; operation: 'PUT' | 'DEL'; value?: Uint8Array }> } {
  const live = new Map<string, number>();
  const changes: LoggedChange[] = [];
  const entries: Array<{ key: string; revision: number; operation: 'PUT' | 'DEL'; value?: Uint8Array }> = [];
  ops.forEach(([name, v], i) => {
    const revision = i + 1;
    const value = v === null ? new Uint8Array() : enc.encode(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } }));
    const before = live.get(name);
    changes.push({ key: keyOf(name), revision, operation: v === null ? 'DEL' : 'PUT', value, replaced: before === undefined ? 'none' : { revision: before }, at: 1_000 + i });
    entries.push({ key: keyOf(name), revision, operation: v === null ? 'DEL' : 'PUT', ...(v === null ? {} : { value }) });
    if (v === null) live.delete(name);
    else live.set(name, revision);
  });
  return { changes, entries };
}

function sink() {
  const events: string[] = [];
  const s: WatchSink = {
    write(chunk) {
      const e = JSON.parse(String(chunk));
      events.push(e.type === 'ERROR' ? `ERROR ${e.object.code}` : `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}=${e.object.data?.v}`);
      return true;
    },
    close() {},
  };
  return { s, events };
}

const view = (c: WatchCache, revision: number) => c.snapshot(CM, revision).map((o) => `${o.sortKey}@${o.revision}=${(o.object.data as { v: string }).v}`);
const watched = (c: WatchCache, after: number) => {
  const w = sink();
  c.watch(CM, { afterRevision: after, encoder: jsonWatchEncoder, sink: w.s });
  return w.events;
};

const OPS: Op[] = [
  ['a', '1'],
  ['b', '1'],
  ['a', '2'],
  ['c', '1'],
  ['b', null],
  ['d', '1'],
  ['a', '3'],
  ['b', '2'],
  ['c', null],
  ['d', '2'],
  // loaded at 10; the rest arrives while the window is rebuilt
  ['a', '4'],
  ['e', '1'],
  ['d', null],
  ['b', '3'],
];
const LOADED = 10;

test('window rebuilt in the background - snapshots and watches from every older revision as a cache that saw every change', async () => {
  const { changes, entries } = history(OPS);
  const reference = new WatchCache({ now: () => 2_000 });
  reference.markSynced(0);
  for (const e of entries) reference.apply(e);

  const c = new WatchCache({ now: () => 2_000 });
  // The bucket's state at the load: each key's last entry (b's deletion shows as a marker only if it is the last).
  const last = new Map(entries.slice(0, LOADED).map((e) => [e.key, e]));
  for (const e of [...last.values()].sort((x, y) => x.revision - y.revision)) c.apply(e);
  c.markLoaded(LOADED, true);
  assert.equal(c.synced, true, 'serves once the state is loaded');
  for (const e of entries.slice(LOADED)) c.apply(e);
  // Before the rebuild: what needs older history is told to wait; the rest is served.
  assert.equal(c.awaitsHistory(3), true);
  assert.equal(c.awaitsHistory(LOADED), false);
  assert.deepEqual(view(c, LOADED), view(reference, LOADED));
  assert.deepEqual(view(c, 12), view(reference, 12));
  assert.throws(() => c.snapshot(CM, 3), /too old/);
  const waiting = c.whenHistory(5_000);
  const liveWatch = watched(c, LOADED);

  const restored = await c.restoreHistory({ changes: changes.slice(0, LOADED), complete: true });
  assert.equal(await waiting, true);
  assert.equal(c.awaitsHistory(3), false);
  assert.equal(restored, LOADED);
  assert.equal(c.compactedRevision, 0);
  for (let r = 1; r <= OPS.length; r++) {
    assert.deepEqual(view(c, r), view(reference, r), `snapshot at ${r}`);
    assert.deepEqual(watched(c, r), watched(reference, r), `watch from ${r}`);
  }
  assert.deepEqual(watched(c, 0), watched(reference, 0));
  // A watcher that started during the rebuild goes on as before.
  put(c, OPS.length + 1, 'f');
  assert.deepEqual(liveWatch, [...watched(reference, LOADED), `ADDED f@${OPS.length + 1}=1`]);
});

function put(c: WatchCache, revision: number, name: string) {
  c.apply({ key: keyOf(name), revision, operation: 'PUT', value: enc.encode(JSON.stringify({ metadata: { name, namespace: 'default' }, data: { v: '1' } })) });
}

test('window rebuilt in the background - a resync meanwhile ends the wait with nothing restored; a log not read restores nothing', async () => {
  const { changes, entries } = history(OPS);
  const c = new WatchCache();
  for (const e of entries.slice(0, LOADED)) c.apply(e);
  c.markLoaded(LOADED, true);
  assert.equal(await c.whenHistory(10), false, 'a wait that outlasts its bound says so');
  const waiting = c.whenHistory(5_000);
  c.resync([{ key: keyOf('z'), revision: 20, operation: 'PUT', value: enc.encode('{"metadata":{"name":"z"}}') }], 20);
  assert.equal(await waiting, true);
  assert.equal(c.awaitsHistory(3), false);
  assert.equal(await c.restoreHistory({ changes: changes.slice(0, LOADED), complete: true }), 0);
  assert.equal(c.compactedRevision, 20);

  const d = new WatchCache();
  for (const e of entries.slice(0, LOADED)) d.apply(e);
  d.markLoaded(LOADED, true);
  assert.equal(await d.restoreHistory({ changes: [], complete: false }), 0);
  assert.equal(d.compactedRevision, LOADED);
  assert.equal(d.awaitsHistory(3), false, 'nothing to wait for: older reads are 410');
  assert.deepEqual(watched(d, 3), ['ERROR 410']);
});

test('window rebuilt in the background - only the last changes that fit are kept, and their objects are not parsed until read', async () => {
  const { changes, entries } = history(OPS.slice(0, LOADED));
  const c = new WatchCache({ maxLogEvents: 4, now: () => 2_000 });
  for (const e of entries) c.apply(e);
  c.markLoaded(LOADED, true);
  assert.equal(await c.restoreHistory({ changes, complete: true }), 4);
  assert.equal(c.compactedRevision, LOADED - 4);
  assert.throws(() => c.snapshot(CM, LOADED - 5), /too old/);
  const older = c.snapshot(CM, LOADED - 4);
  const logged = older.filter((o) => o instanceof LoggedObject);
  assert.ok(logged.length > 0, 'an older state comes from the log');
  assert.ok(
    logged.every((o) => (o as unknown as { parsed?: unknown }).parsed === undefined),
    'not parsed before read',
  );
  assert.deepEqual(
    older.map((o) => `${o.sortKey}@${o.object.metadata.resourceVersion}=${(o.object.data as { v: string }).v}`),
    ['default/a@3=2', 'default/c@4=1', 'default/d@6=1'],
  );
});

test('window - the revision at or before which logged changes are not kept: older than the window, beyond the room left', () => {
  const at = [100, 200, 300, 400, 500];
  const changes = at.map((t, i) => ({ key: 'k', revision: 10 + i, operation: 'PUT', value: new Uint8Array(), replaced: 'none', at: t }) as LoggedChange);
  for (const [cutoffAt, budget, want] of [
    [0, 10, 0],
    [250, 10, 11],
    [0, 2, 12],
    [450, 2, 13],
    [0, 0, 14],
  ] as const) {
    assert.equal(keptAfter(changes, cutoffAt, budget), want, `cutoff ${cutoffAt}, budget ${budget}`);
  }
});

test('logged objects - bytes that can be an object, parsed once when read and stamped with their revision; a deletion shows the last state', () => {
  for (const [json, want] of [
    ['{"a":1}', true],
    ['  \n{}', true],
    ['[1]', false],
    ['"x"', false],
    ['', false],
    ['null', false],
  ] as const) {
    assert.equal(looksLikeObject(json), want, json);
    assert.equal(looksLikeObject(enc.encode(json)), want, json);
  }
  const ref = { group: '', resource: 'configmaps', namespace: 'default', name: 'a' };
  const o = new LoggedObject(ref, 'default/a', 7, enc.encode('{"metadata":{"name":"a","resourceVersion":"3"},"data":{"v":"1"}}'));
  assert.equal(o.object, o.object, 'parsed once');
  assert.deepEqual(o.object, { metadata: { name: 'a', resourceVersion: '7' }, data: { v: '1' } });
  const gone = new DeletedObject(o, 9);
  assert.equal(gone.sortKey, 'default/a');
  assert.equal(gone.object.metadata.resourceVersion, '9');
  assert.equal(o.object.metadata.resourceVersion, '7', 'the previous state is not changed');
  const broken = new LoggedObject(ref, 'default/a', 8, '{"metadata":');
  assert.deepEqual(broken.object, { metadata: { name: 'a', namespace: 'default', resourceVersion: '8' } });
});

test('window rebuilt in the background - an object the load missed (superseded as it began) is taken from the log when the log says what replaced it', async () => {
  const { changes, entries } = history([...OPS.slice(0, LOADED), ['d', '3']]);
  const build = async (following: LoggedChange[]) => {
    const c = new WatchCache({ now: () => 2_000 });
    const last = new Map(entries.slice(0, LOADED).map((e) => [e.key, e]));
    // The load saw each key's last entry but d's (at 10): d's next write, at 11, superseded it just before.
    const missed = keyOf('d');
    for (const e of [...last.values()].sort((x, y) => x.revision - y.revision)) if (e.key !== missed) c.apply(e);
    c.markLoaded(LOADED, true);
    c.apply(entries[LOADED]!);
    return { c, restored: await c.restoreHistory({ changes: changes.slice(0, LOADED), complete: true, following }) };
  };
  const told = await build([changes[LOADED]!]);
  assert.equal(told.restored, LOADED);
  assert.deepEqual(view(told.c, LOADED), ['default/a@7=3', 'default/b@8=2', 'default/d@10=2']);
  assert.deepEqual(watched(told.c, 9).slice(-1), ['MODIFIED d@11=3']);
  const untold = await build([]);
  assert.equal(untold.restored, 0, 'without what replaced it, nothing before the load is trusted');
  assert.equal(untold.c.compactedRevision, LOADED);
});

test('window rebuilt in the background - a long log is walked in slices: the event loop turns meanwhile, and changes applied then are accounted for', async () => {
  // 200,000 logged writes of 2,000 objects, loaded at the last; the walk takes well over one slice.
  const OBJECTS = 2_000;
  const ops = rounds(OBJECTS, 100);
  const { changes, entries } = history(ops);
  const loaded = ops.length;
  const c = new WatchCache({ now: () => 2_000 });
  const last = new Map(entries.map((e) => [e.key, e]));
  for (const e of [...last.values()].sort((x, y) => x.revision - y.revision)) c.apply(e);
  c.markLoaded(loaded, true);
  let turns = 0;
  const ticker = setInterval(() => turns++, 1);
  const restoring = c.restoreHistory({ changes, complete: true });
  // Served and changed while the window is rebuilt: a modification and a creation after the load.
  await new Promise((r) => setImmediate(r));
  put(c, loaded + 1, 'o0');
  put(c, loaded + 2, 'new');
  assert.equal(c.awaitsHistory(loaded - 1), true, 'an older read still waits');
  const restored = await restoring;
  clearInterval(ticker);
  assert.ok(turns > 0, 'the event loop turned during the walk');
  assert.ok(restored > 0);
  assert.equal(c.awaitsHistory(loaded - 1), false);
  // The state at the load, at the revision before, and now.
  const at = (rv: number) => c.snapshot(CM, rv).length;
  assert.equal(at(loaded), OBJECTS);
  assert.equal(at(loaded + 2), OBJECTS + 1);
  assert.deepEqual(c.snapshot(CM, loaded).find((o) => o.sortKey === 'default/o0')?.object.data, { v: '99' });
  assert.deepEqual(c.snapshot(CM, loaded + 1).find((o) => o.sortKey === 'default/o0')?.object.data, { v: '1' });
  const older = c.snapshot(CM, loaded - 1).find((o) => o.sortKey === `default/o${OBJECTS - 1}`);
  assert.deepEqual(older?.object.data, { v: '98' }, 'rolled back through the window');
});

test('window rebuilt in the background - while it is put in place the cache holds changes back, then applies them in order with what follows them', async () => {
  const OBJECTS = 2_000;
  const ops = rounds(OBJECTS, 50);
  const { changes, entries } = history(ops);
  const loaded = ops.length;
  // Every step yields at its first chance: the place step takes several turns however fast the machine.
  const c = new WatchCache({ now: () => 2_000, restoreSliceMs: 0 });
  const last = new Map(entries.map((e) => [e.key, e]));
  for (const e of [...last.values()].sort((x, y) => x.revision - y.revision)) c.apply(e);
  c.markLoaded(loaded, true);
  const live = watched(c, loaded);

  // A change on every turn of the event loop while the window is rebuilt, each telling when it is
  // in: in turn a modification, a creation and a deletion (of objects not touched before).
  const change = (revision: number) => {
    const n = Math.floor(revision / 3) % 1_000;
    const kind = revision % 3;
    const name = kind === 0 ? `o${1_000 + n}` : kind === 1 ? `p${revision % 7}` : `o${n}`;
    if (kind === 2) return { key: keyOf(name), revision, operation: 'DEL' as const };
    return { key: keyOf(name), revision, operation: 'PUT' as const, value: enc.encode(JSON.stringify({ metadata: { name, namespace: 'default' }, data: { v: String(revision) } })) };
  };
  let next = loaded;
  let done = false;
  const followed: number[] = [];
  let heldBack = 0;
  let servedWhileHeld = 0;
  const pump = () => {
    if (done) return;
    const revision = ++next;
    let now = false;
    const before = c.revision;
    c.apply(change(revision), () => {
      now = true;
      followed.push(revision);
    });
    if (!now) {
      heldBack++;
      // Held back: the cache stands still, and serves what it holds.
      assert.equal(c.revision, before);
      if (c.snapshot(CM, before).length > OBJECTS / 2) servedWhileHeld++;
    }
    setImmediate(pump);
  };
  setImmediate(pump);
  const restored = await c.restoreHistory({ changes, complete: true });
  done = true;

  assert.ok(restored > 0);
  assert.ok(heldBack > 1, `changes held back while the window was put in: ${heldBack}`);
  assert.equal(servedWhileHeld, heldBack, 'reads were served meanwhile');
  const made = Array.from({ length: next - loaded }, (_, i) => loaded + 1 + i);
  assert.deepEqual(followed, made, 'every change applied, in order, and only then what follows it');
  assert.equal(c.revision, next);
  assert.deepEqual(
    live.map((e) => Number(e.split('@')[1]!.split('=')[0])),
    made,
    'a watcher sees each change once, in order',
  );
  // History before the load, and the changes held back, as a cache that saw every change.
  const reference = new WatchCache({ now: () => 2_000 });
  reference.markSynced(0);
  for (const e of entries) reference.apply(e);
  for (const r of made) reference.apply(change(r));
  for (const r of [loaded - OBJECTS, loaded - 1, loaded, loaded + 1, next - 1, next]) assert.deepEqual(view(c, r), view(reference, r), `snapshot at ${r}`);
  assert.deepEqual(c.snapshot(CM, loaded - 1).find((o) => o.sortKey === `default/o${OBJECTS - 1}`)?.object.data, { v: '48' });
});
