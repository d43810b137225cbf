import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchCache, type WatchSink } from '../watch-cache.js';
import { resourceKey } from '../../api/resource-key.js';
import { internalError } from '../../api/status.js';
import type { ApiObject } from '../../api/types.js';
import { jsonWatchEncoder } from '../../codec/json.js';
import { encodeKey } from '../key-codec.js';

const enc = new TextEncoder();
const CR = resourceKey('stable.example.com', 'crontabs');

function put(cache: WatchCache, rev: number, name: string, hostPort = 'db:1') {
  const obj = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name, namespace: 'default' }, spec: { hostPort } };
  cache.apply({ key: encodeKey({ group: 'stable.example.com', resource: 'crontabs', namespace: 'default', name }), revision: rev, operation: 'PUT', value: enc.encode(JSON.stringify(obj)) });
}
function sink() {
  const events: Array<{ type: string; object: any }> = [];
  let closed = false;
  const s: WatchSink = {
    write(chunk) {
      events.push(JSON.parse(String(chunk)));
      return true;
    },
    close() {
      closed = true;
    },
  };
  return { s, events, closed: () => closed };
}
const settle = () => new Promise((r) => setTimeout(r, 30));
/** Waits until `done` holds (conversions take timers of their own). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

/** A converter to v2 whose answers come back in a scrambled order of time; names in `failOn` fail. */
function slowConverter(failOn: string[] = []) {
  const seen: string[] = [];
  let n = 0;
  const convert = async (objs: readonly ApiObject[]): Promise<ApiObject[]> => {
    seen.push(...objs.map((o) => o.metadata.name!));
    await new Promise((r) => setTimeout(r, [9, 1, 5, 0, 3][n++ % 5]));
    if (objs.some((o) => failOn.includes(o.metadata.name!))) throw internalError('conversion webhook for stable.example.com/v1, Kind=CronTab failed: boom');
    return objs.map((o) => {
      const [host, port] = String((o.spec as { hostPort: string }).hostPort).split(':');
      return { ...o, apiVersion: 'stable.example.com/v2', spec: { host, port: Number(port) } };
    });
  };
  return { convert, seen };
}

test('watch conversion - events are converted one at a time and sent in order, bookmarks behind them', async () => {
  const c = new WatchCache();
  c.markSynced(0);
  put(c, 1, 'a');
  put(c, 2, 'b');
  const w = sink();
  const conv = slowConverter();
  c.watch(CR, {
    afterRevision: c.revision,
    encoder: jsonWatchEncoder,
    sink: w.s,
    convert: conv.convert,
    initial: c.current(CR),
    initialEventsEnd: true,
    bookmarks: { apiVersion: 'stable.example.com/v2', kind: 'CronTab' },
  });
  put(c, 3, 'a', 'db:2');
  put(c, 4, 'c', 'db:3');
  c.sendBookmarks();
  await until(() => w.events.length >= 6);
  await settle();
  assert.deepEqual(
    w.events.map((e) => [e.type, e.object.metadata.name ?? '', e.object.metadata.resourceVersion, e.object.apiVersion, e.object.spec?.port]),
    [
      ['ADDED', 'a', '1', 'stable.example.com/v2', 1],
      ['ADDED', 'b', '2', 'stable.example.com/v2', 1],
      ['BOOKMARK', '', '2', 'stable.example.com/v2', undefined],
      ['MODIFIED', 'a', '3', 'stable.example.com/v2', 2],
      ['ADDED', 'c', '4', 'stable.example.com/v2', 3],
      ['BOOKMARK', '', '4', 'stable.example.com/v2', undefined],
    ],
  );
  assert.deepEqual(conv.seen, ['a', 'b', 'a', 'c']);
});

test('watch conversion - an event whose conversion fails ends the watch with an ERROR event carrying the Status', async () => {
  const c = new WatchCache();
  c.markSynced(0);
  const w = sink();
  const conv = slowConverter(['bad']);
  c.watch(CR, { afterRevision: 0, encoder: jsonWatchEncoder, sink: w.s, convert: conv.convert });
  put(c, 1, 'a');
  put(c, 2, 'bad');
  put(c, 3, 'c');
  await until(() => w.closed());
  await settle();
  assert.deepEqual(
    w.events.map((e) => e.type),
    ['ADDED', 'ERROR'],
  );
  assert.equal(w.events[1]!.object.code, 500);
  assert.match(w.events[1]!.object.message, /conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: boom/);
  assert.ok(w.closed());
  // Nothing follows once it ended.
  put(c, 4, 'd');
  await settle();
  assert.equal(w.events.length, 2);
});

test('watch conversion - a large initial state is produced as conversions complete, not queued whole', async () => {
  const c = new WatchCache();
  c.markSynced(0);
  for (let i = 0; i < 50; i++) put(c, i + 1, `o${String(i).padStart(2, '0')}`);
  const w = sink();
  let inFlight = 0;
  let most = 0;
  const convert = async (objs: readonly ApiObject[]) => {
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setImmediate(r));
    inFlight--;
    return objs.map((o) => ({ ...o, apiVersion: 'stable.example.com/v2' }));
  };
  const handle = c.watch(CR, { afterRevision: 50, encoder: jsonWatchEncoder, sink: w.s, convert, initial: c.current(CR) });
  await until(() => w.events.length >= 50);
  assert.equal(w.events.length, 50);
  assert.equal(most, 1, 'one conversion at a time');
  assert.deepEqual(
    w.events.map((e) => e.object.metadata.name),
    c.current(CR).map((o) => o.object.metadata.name),
  );
  handle.stop();
});
