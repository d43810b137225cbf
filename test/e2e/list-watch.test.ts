// End to end: selectors, chunked lists, resourceVersion semantics of get/list/watch, watch
// events (synthetic ADDED, MODIFIED, DELETED, BOOKMARK, ERROR 410), streaming initial events,
// and fan-out to many watchers including one that never reads.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, createNamespace, endsWithin, names, openWatch, sleep, summary, uniq, type WatchStream } from './helpers.js';

const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const q = encodeURIComponent;

describe('list and watch', () => {
  let c: TestCluster;
  const watches: WatchStream[] = [];
  const watch = async (path: string) => {
    const w = await openWatch(c, path);
    watches.push(w);
    return w;
  };

  before(async () => {
    c = await startTestCluster({ gateway: { bookmarkIntervalMs: 200 } });
  });

  after(async () => {
    for (const w of watches) w.close();
    await c?.stop();
  });

  describe('selectors', () => {
    let ns: string;
    let ns2: string;
    let suite: string;
    before(async () => {
      ns = uniq('sel');
      ns2 = uniq('sel2');
      suite = uniq('suite');
      await createNamespace(c, ns);
      await createNamespace(c, ns2);
      const objs: Array<[string, Record<string, string>]> = [
        ['a', { env: 'prod', tier: 'web', suite }],
        ['b', { env: 'dev', tier: 'web', suite }],
        ['c', { env: 'qa', suite }],
        ['d', { suite }],
      ];
      for (const [n, labels] of objs) assertOk(await c.request('POST', cmPath(ns), { body: configMap(n, {}, labels) }), 201);
      assertOk(await c.request('POST', cmPath(ns2), { body: configMap('a', {}, { env: 'prod', suite }) }), 201);
    });

    it('labelSelector - every operator selects the upstream set', async () => {
      const cases: Array<[string, string[]]> = [
        ['env=prod', ['a']],
        ['env==prod', ['a']],
        ['env!=prod', ['b', 'c', 'd']],
        ['env in (prod,dev)', ['a', 'b']],
        ['env notin (prod,dev)', ['c', 'd']],
        ['tier', ['a', 'b']],
        ['!tier', ['c', 'd']],
        ['env=prod,tier=web', ['a']],
        ['tier=web,env!=prod', ['b']],
        ['env in (none)', []],
        ['', ['a', 'b', 'c', 'd']],
      ];
      for (const [sel, want] of cases) {
        const list = assertOk(await c.request('GET', `${cmPath(ns)}?labelSelector=${q(sel)}`));
        assert.deepEqual(names(list), want, `labelSelector ${JSON.stringify(sel)}`);
      }
    });

    it('labelSelector - an unparsable selector is 400', async () => {
      assertStatus(await c.request('GET', `${cmPath(ns)}?labelSelector=${q('env in (prod')}`), 400, 'BadRequest');
      assertStatus(await c.request('GET', `${cmPath(ns)}?labelSelector=${q('Bad Key=1')}`), 400, 'BadRequest');
    });

    it('fieldSelector - metadata.name, metadata.namespace and a per-type field', async () => {
      assert.deepEqual(names(assertOk(await c.request('GET', `${cmPath(ns)}?fieldSelector=${q('metadata.name=b')}`))), ['b']);
      assert.deepEqual(names(assertOk(await c.request('GET', `${cmPath(ns)}?fieldSelector=${q('metadata.name!=b')}`))), ['a', 'c', 'd']);
      const acrossNs = assertOk(await c.request('GET', `/api/v1/configmaps?fieldSelector=${q(`metadata.namespace=${ns2}`)}`));
      assert.deepEqual(
        acrossNs.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`),
        [`${ns2}/a`],
      );
      const secrets = `/api/v1/namespaces/${ns}/secrets`;
      assertOk(await c.request('POST', secrets, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain' }, data: {} } }), 201);
      assertOk(await c.request('POST', secrets, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'custom' }, type: 'example.com/custom', data: {} } }), 201);
      assert.deepEqual(names(assertOk(await c.request('GET', `${secrets}?fieldSelector=${q('type=example.com/custom')}`))), ['custom']);
      assert.deepEqual(names(assertOk(await c.request('GET', `${secrets}?fieldSelector=${q('type=Opaque')}`))), ['plain']);
      // Label and field selectors combine.
      assert.deepEqual(names(assertOk(await c.request('GET', `${cmPath(ns)}?fieldSelector=${q('metadata.name!=a')}&labelSelector=tier`))), ['b']);
    });

    it('fieldSelector - an unsupported field is 400', async () => {
      const r = assertStatus(await c.request('GET', `${cmPath(ns)}?fieldSelector=${q('data.x=1')}`), 400, 'BadRequest');
      assert.match(r.message, /data\.x/);
      assertStatus(await c.request('GET', `${cmPath(ns)}?fieldSelector=${q('spec.nodeName=n1')}`), 400, 'BadRequest');
    });

    it('list - across all namespaces returns items of every namespace', async () => {
      const list = assertOk(await c.request('GET', `/api/v1/configmaps?labelSelector=${q(`suite=${suite}`)}`));
      assert.equal(list.kind, 'ConfigMapList');
      assert.deepEqual(list.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`).sort(), [`${ns}/a`, `${ns}/b`, `${ns}/c`, `${ns}/d`, `${ns2}/a`].sort());
      assert.equal(list.metadata.remainingItemCount, undefined);
    });
  });

  describe('chunking', () => {
    let ns: string;
    before(async () => {
      ns = uniq('chunk');
      await createNamespace(c, ns);
      for (let i = 0; i < 25; i++) assertOk(await c.request('POST', cmPath(ns), { body: configMap(`item-${String(i).padStart(2, '0')}`, { v: 'original' }) }), 201);
      // Neighbours in key order (namespace/name): `<ns>-a/…` sorts just before `<ns>/…`, `<ns>0/…` just after.
      for (const other of [`${ns}-a`, `${ns}0`]) {
        await createNamespace(c, other);
        for (let i = 0; i < 3; i++) assertOk(await c.request('POST', cmPath(other), { body: configMap(`item-${i}`) }), 201);
      }
    });

    it('chunking - three pages of a consistent snapshot in name order', async () => {
      const p1 = assertOk(await c.request('GET', `${cmPath(ns)}?limit=10`));
      assert.equal(p1.items.length, 10);
      assert.deepEqual(
        p1.items.map((i: any) => i.metadata.name),
        Array.from({ length: 10 }, (_, i) => `item-${String(i).padStart(2, '0')}`),
      );
      assert.equal(p1.metadata.remainingItemCount, 15);
      assert.ok(p1.metadata.continue, 'first page has a continue token');
      const rv = p1.metadata.resourceVersion;

      // Writes between pages must not show in later pages.
      assertOk(await c.request('POST', cmPath(ns), { body: configMap('item-12a', { v: 'new' }) }), 201);
      assertOk(await c.request('PUT', `${cmPath(ns)}/item-15`, { body: configMap('item-15', { v: 'changed' }) }));
      assert.equal((await c.request('DELETE', `${cmPath(ns)}/item-22`)).status, 200);

      const p2 = assertOk(await c.request('GET', `${cmPath(ns)}?limit=10&continue=${q(p1.metadata.continue)}`));
      assert.equal(p2.metadata.resourceVersion, rv, 'same collection resourceVersion on page 2');
      assert.deepEqual(
        p2.items.map((i: any) => i.metadata.name),
        Array.from({ length: 10 }, (_, i) => `item-${String(i + 10).padStart(2, '0')}`),
      );
      assert.equal(p2.items.find((i: any) => i.metadata.name === 'item-15').data.v, 'original');
      assert.equal(p2.metadata.remainingItemCount, 5);
      assert.ok(p2.metadata.continue);

      const p3 = assertOk(await c.request('GET', `${cmPath(ns)}?limit=10&continue=${q(p2.metadata.continue)}`));
      assert.equal(p3.metadata.resourceVersion, rv, 'same collection resourceVersion on page 3');
      assert.deepEqual(
        p3.items.map((i: any) => i.metadata.name),
        ['item-20', 'item-21', 'item-22', 'item-23', 'item-24'],
      );
      assert.ok(!p3.metadata.continue, 'last page has no continue token');
      assert.equal(p3.metadata.remainingItemCount, undefined, 'no remainingItemCount on the last page');

      // A fresh list sees the writes.
      const now = assertOk(await c.request('GET', cmPath(ns)));
      const all = names(now);
      assert.ok(all.includes('item-12a'));
      assert.ok(!all.includes('item-22'));
      assert.equal(all.length, 25);
    });

    it('chunking - continue with a non-zero resourceVersion is 400', async () => {
      const p1 = assertOk(await c.request('GET', `${cmPath(ns)}?limit=5`));
      assertStatus(await c.request('GET', `${cmPath(ns)}?limit=5&continue=${q(p1.metadata.continue)}&resourceVersion=${p1.metadata.resourceVersion}`), 400, 'BadRequest');
    });

    it('chunking - a garbage continue token is 400', async () => {
      assertStatus(await c.request('GET', `${cmPath(ns)}?limit=5&continue=${q('not-a-token')}`), 400, 'BadRequest');
      assertStatus(await c.request('GET', `${cmPath(ns)}?limit=5&continue=${q(Buffer.from('{"v":"x"}').toString('base64'))}`), 400, 'BadRequest');
    });

    it('chunking - with a selector remainingItemCount is omitted but continue still pages', async () => {
      const p1 = assertOk(await c.request('GET', `${cmPath(ns)}?limit=5&fieldSelector=${q('metadata.name!=item-00')}`));
      assert.deepEqual(
        p1.items.map((i: any) => i.metadata.name),
        ['item-01', 'item-02', 'item-03', 'item-04', 'item-05'],
      );
      assert.ok(p1.metadata.continue);
      assert.equal(p1.metadata.remainingItemCount, undefined);
      const p2 = assertOk(await c.request('GET', `${cmPath(ns)}?limit=5&fieldSelector=${q('metadata.name!=item-00')}&continue=${q(p1.metadata.continue)}`));
      assert.equal(p2.items[0].metadata.name, 'item-06');
      assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
    });

    it("chunking - a page that ends at the namespace's last object has no continue, whatever the namespaces beside it hold", async () => {
      const all = names(assertOk(await c.request('GET', cmPath(ns))));
      assert.equal(all.length, 25);
      const p1 = assertOk(await c.request('GET', `${cmPath(ns)}?limit=20`));
      assert.equal(p1.metadata.remainingItemCount, 5);
      const p2 = assertOk(await c.request('GET', `${cmPath(ns)}?limit=5&continue=${q(p1.metadata.continue)}`));
      assert.deepEqual(names(p2), all.slice(20));
      assert.ok(!p2.metadata.continue, 'no continue after the last object of the namespace');
      assert.equal(p2.metadata.remainingItemCount, undefined);
    });

    it('chunking - a limit larger than the collection returns everything without continue', async () => {
      const all = assertOk(await c.request('GET', `${cmPath(ns)}?limit=500`));
      assert.ok(all.items.length >= 25);
      assert.ok(!all.metadata.continue);
      assert.equal(all.metadata.remainingItemCount, undefined);
    });
  });

  describe('resourceVersion semantics', () => {
    let ns: string;
    before(async () => {
      ns = uniq('rv');
      await createNamespace(c, ns);
    });

    it('list - resourceVersion 0 and the current version are served', async () => {
      assertOk(await c.request('POST', cmPath(ns), { body: configMap('x') }), 201);
      const cur = assertOk(await c.request('GET', cmPath(ns)));
      const any = assertOk(await c.request('GET', `${cmPath(ns)}?resourceVersion=0`));
      assert.equal(any.kind, 'ConfigMapList');
      assert.match(any.metadata.resourceVersion, /^\d+$/);
      const notOlder = assertOk(await c.request('GET', `${cmPath(ns)}?resourceVersion=${cur.metadata.resourceVersion}`));
      assert.ok(Number(notOlder.metadata.resourceVersion) >= Number(cur.metadata.resourceVersion));
      assert.ok(names(notOlder).includes('x'));
      const nto = assertOk(await c.request('GET', `${cmPath(ns)}?resourceVersion=${cur.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan`));
      assert.ok(names(nto).includes('x'));
    });

    it('list - resourceVersionMatch=Exact at an older version shows the old state', async () => {
      const v1 = assertOk(await c.request('POST', cmPath(ns), { body: configMap('exact', { v: '1' }) }), 201);
      const old = v1.metadata.resourceVersion;
      assertOk(await c.request('PUT', `${cmPath(ns)}/exact`, { body: configMap('exact', { v: '2' }) }));
      assertOk(await c.request('POST', cmPath(ns), { body: configMap('later') }), 201);
      const list = assertOk(await c.request('GET', `${cmPath(ns)}?resourceVersion=${old}&resourceVersionMatch=Exact`));
      assert.equal(list.metadata.resourceVersion, old, 'collection version equals the requested one');
      const item = list.items.find((i: any) => i.metadata.name === 'exact');
      assert.ok(item, 'object exists at that version');
      assert.deepEqual(item.data, { v: '1' });
      assert.equal(item.metadata.resourceVersion, old);
      assert.ok(!names(list).includes('later'), 'objects created later are absent');
    });

    it('list - resourceVersionMatch without resourceVersion is 400', async () => {
      assertStatus(await c.request('GET', `${cmPath(ns)}?resourceVersionMatch=Exact`), 400, 'BadRequest');
      assertStatus(await c.request('GET', `${cmPath(ns)}?resourceVersionMatch=NotOlderThan`), 400, 'BadRequest');
      assertStatus(await c.request('GET', `${cmPath(ns)}?resourceVersion=1&resourceVersionMatch=Sometimes`), 400, 'BadRequest');
    });

    it('list - NotOlderThan a far-future version is 504 within a few seconds', async () => {
      const cur = assertOk(await c.request('GET', cmPath(ns)));
      const future = Number(cur.metadata.resourceVersion) + 1_000_000;
      const t0 = Date.now();
      const r = await c.request('GET', `${cmPath(ns)}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan`);
      const elapsed = Date.now() - t0;
      const st = assertStatus(r, 504, 'Timeout');
      assert.ok(r.headers.get('retry-after') !== null || /Too large resource version/.test(st.message), `Retry-After or "Too large resource version": ${r.text}`);
      assert.ok(elapsed < 10_000, `answered after ${elapsed} ms`);
    });

    it('get - with resourceVersion 0, the current one, and a far-future one', async () => {
      const created = assertOk(await c.request('POST', cmPath(ns), { body: configMap('getrv', { v: '1' }) }), 201);
      assert.equal(assertOk(await c.request('GET', `${cmPath(ns)}/getrv?resourceVersion=0`)).metadata.name, 'getrv');
      const atRv = assertOk(await c.request('GET', `${cmPath(ns)}/getrv?resourceVersion=${created.metadata.resourceVersion}`));
      assert.equal(atRv.metadata.resourceVersion, created.metadata.resourceVersion);
      const future = Number(created.metadata.resourceVersion) + 1_000_000;
      const t0 = Date.now();
      const r = await c.request('GET', `${cmPath(ns)}/getrv?resourceVersion=${future}`);
      assertStatus(r, 504, 'Timeout');
      assert.ok(Date.now() - t0 < 10_000);
      assertStatus(await c.request('GET', `${cmPath(ns)}/getrv?resourceVersion=abc`), 400, 'BadRequest');
    });
  });

  describe('watch', () => {
    let ns: string;
    before(async () => {
      ns = uniq('watch');
      await createNamespace(c, ns);
      assertOk(await c.request('POST', cmPath(ns), { body: configMap('pre-1', { v: '1' }) }), 201);
      assertOk(await c.request('POST', cmPath(ns), { body: configMap('pre-2', { v: '1' }) }), 201);
    });

    it('watch - without resourceVersion sends the current state as ADDED, then changes', async () => {
      const w = await watch(`${cmPath(ns)}?watch=true`);
      assert.equal(w.status, 200);
      assert.match(String(w.headers['content-type']), /^application\/json/);
      const init = await w.waitForCount(2);
      assert.deepEqual(init.map((e) => `${e.type}:${e.object.metadata.name}`).sort(), ['ADDED:pre-1', 'ADDED:pre-2']);
      assert.equal(init[0]!.object.kind, 'ConfigMap');
      assert.equal(init[0]!.object.apiVersion, 'v1');
      const upd = assertOk(await c.request('PUT', `${cmPath(ns)}/pre-1`, { body: configMap('pre-1', { v: 'watched' }) }));
      const ev = await w.waitFor((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'pre-1');
      assert.equal(ev.object.data.v, 'watched');
      assert.equal(ev.object.metadata.resourceVersion, upd.metadata.resourceVersion);
      w.close();
    });

    it('watch - resourceVersion=0 sends synthetic ADDED events', async () => {
      const w = await watch(`${cmPath(ns)}?watch=1&resourceVersion=0`);
      const init = await w.waitForCount(2);
      assert.ok(
        init.every((e) => e.type === 'ADDED'),
        summary(init),
      );
      assert.deepEqual(init.map((e) => e.object.metadata.name).sort(), ['pre-1', 'pre-2']);
      w.close();
    });

    it('watch - from a resourceVersion gets exactly the later events; DELETED carries the last state', async () => {
      const list = assertOk(await c.request('GET', cmPath(ns)));
      const from = list.metadata.resourceVersion;
      const created = assertOk(await c.request('POST', cmPath(ns), { body: configMap('later', { v: '1' }) }), 201);
      const updated = assertOk(await c.request('PUT', `${cmPath(ns)}/later`, { body: configMap('later', { v: '2' }) }));
      assert.equal((await c.request('DELETE', `${cmPath(ns)}/later`)).status, 200);
      const w = await watch(`${cmPath(ns)}?watch=true&resourceVersion=${from}&timeoutSeconds=2`);
      await w.ended;
      assert.deepEqual(
        w.events.map((e) => `${e.type}:${e.object.metadata.name}`),
        ['ADDED:later', 'MODIFIED:later', 'DELETED:later'],
        summary(w.events),
      );
      const [added, modified, deleted] = w.events;
      assert.equal(added!.object.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.equal(modified!.object.metadata.resourceVersion, updated.metadata.resourceVersion);
      assert.deepEqual(deleted!.object.data, { v: '2' }, 'DELETED carries the last state');
      assert.ok(Number(deleted!.object.metadata.resourceVersion) > Number(updated.metadata.resourceVersion), 'DELETED has the deletion resourceVersion');
    });

    it('watch - BOOKMARK events when allowWatchBookmarks=true', async () => {
      const list = assertOk(await c.request('GET', cmPath(ns)));
      const w = await watch(`${cmPath(ns)}?watch=true&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}`);
      // A change elsewhere moves the store's revision without any event for this watcher.
      const elsewhere = assertOk(await c.request('POST', cmPath('default'), { body: configMap(uniq('elsewhere')) }), 201);
      const bm = await w.waitFor((e) => e.type === 'BOOKMARK' && Number(e.object.metadata.resourceVersion) >= Number(elsewhere.metadata.resourceVersion), 5000, 'a BOOKMARK');
      assert.equal(bm.object.kind, 'ConfigMap');
      assert.equal(bm.object.apiVersion, 'v1');
      assert.equal(bm.object.metadata.name, undefined, 'a bookmark carries only the resourceVersion');
      assert.ok(
        w.events.every((e) => e.type === 'BOOKMARK'),
        summary(w.events),
      );
      // No bookmarks unless asked for.
      const plain = await watch(`${cmPath(ns)}?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=1`);
      assertOk(await c.request('POST', cmPath('default'), { body: configMap(uniq('elsewhere')) }), 201);
      await plain.ended;
      assert.deepEqual(plain.events, []);
      w.close();
    });

    it('watch - an object leaving the label selector is DELETED, returning is ADDED', async () => {
      const w = await watch(`${cmPath(ns)}?watch=true&labelSelector=${q('app=w')}`);
      assertOk(await c.request('POST', cmPath(ns), { body: configMap('sel', {}, { app: 'w' }) }), 201);
      await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'sel');
      const moved = assertOk(await c.request('PATCH', `${cmPath(ns)}/sel`, { body: { metadata: { labels: { app: 'other' } } }, headers: { 'content-type': 'application/merge-patch+json' } }));
      const del = await w.waitFor((e) => e.type === 'DELETED' && e.object.metadata.name === 'sel');
      assert.equal(del.object.metadata.resourceVersion, moved.metadata.resourceVersion);
      assertOk(await c.request('PATCH', `${cmPath(ns)}/sel`, { body: { metadata: { labels: { app: 'w' } } }, headers: { 'content-type': 'application/merge-patch+json' } }));
      await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'sel' && e !== w.events[0]);
      assert.deepEqual(
        w.events.map((e) => e.type),
        ['ADDED', 'DELETED', 'ADDED'],
      );
      w.close();
    });

    it('watch - a metadata.name field selector follows one object', async () => {
      const w = await watch(`${cmPath(ns)}?watch=true&fieldSelector=${q('metadata.name=pre-2')}`);
      await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'pre-2');
      assertOk(await c.request('PUT', `${cmPath(ns)}/pre-1`, { body: configMap('pre-1', { v: 'not-followed' }) }));
      assertOk(await c.request('PUT', `${cmPath(ns)}/pre-2`, { body: configMap('pre-2', { v: 'followed' }) }));
      const ev = await w.waitFor((e) => e.type === 'MODIFIED');
      assert.equal(ev.object.metadata.name, 'pre-2');
      assert.equal(ev.object.data.v, 'followed');
      assert.ok(
        w.events.every((e) => e.object.metadata.name === 'pre-2'),
        summary(w.events),
      );
      w.close();
    });

    it('watch - deletion with a finalizer is MODIFIED, then DELETED when the finalizer goes', async () => {
      const list = assertOk(await c.request('GET', cmPath(ns)));
      const w = await watch(`${cmPath(ns)}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
      assertOk(await c.request('POST', cmPath(ns), { body: configMap('held', {}, undefined, { finalizers: ['example.com/hold'] }) }), 201);
      assert.equal((await c.request('DELETE', `${cmPath(ns)}/held`)).status, 200);
      const marked = await w.waitFor((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'held');
      assert.ok(marked.object.metadata.deletionTimestamp, 'MODIFIED carries deletionTimestamp');
      assertOk(await c.request('PATCH', `${cmPath(ns)}/held`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } }));
      const deleted = await w.waitFor((e) => e.type === 'DELETED' && e.object.metadata.name === 'held');
      assert.ok(deleted.object.metadata.deletionTimestamp);
      assert.deepEqual(
        w.events.map((e) => e.type),
        ['ADDED', 'MODIFIED', 'DELETED'],
      );
      w.close();
    });

    it('watch - timeoutSeconds ends the stream', async () => {
      const t0 = Date.now();
      const w = await watch(`${cmPath(ns)}?watch=true&timeoutSeconds=1`);
      await endsWithin(w, 5000, 'watch with timeoutSeconds=1 still open after 5 s');
      const elapsed = Date.now() - t0;
      assert.ok(elapsed >= 900, `ended after ${elapsed} ms`);
    });

    it('watch - sendInitialEvents streams ADDED then a BOOKMARK marking their end', async () => {
      const w = await watch(`${cmPath(ns)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
      const end = await w.waitFor((e) => e.type === 'BOOKMARK' && e.object.metadata.annotations?.['platform.io/initial-events-end'] === 'true', 5000, 'the initial-events-end bookmark');
      const idx = w.events.indexOf(end);
      const before = w.events.slice(0, idx);
      assert.ok(before.length >= 2, summary(w.events));
      assert.ok(
        before.every((e) => e.type === 'ADDED'),
        summary(before),
      );
      const current = assertOk(await c.request('GET', cmPath(ns)));
      assert.deepEqual(before.map((e) => e.object.metadata.name).sort(), names(current));
      assert.ok(Number(end.object.metadata.resourceVersion) > 0);
      assertOk(await c.request('POST', cmPath(ns), { body: configMap('streamed') }), 201);
      await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'streamed');
      w.close();
    });

    it('watch - sendInitialEvents without resourceVersionMatch is 400', async () => {
      const r = await c.request('GET', `${cmPath(ns)}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true`);
      assertStatus(r, 400, 'BadRequest');
    });

    it('watch - many concurrent watchers all get the event', async () => {
      const ws = await Promise.all(Array.from({ length: 40 }, () => watch(`${cmPath(ns)}?watch=true&resourceVersion=0&labelSelector=fan`)));
      const name = uniq('fan');
      const t0 = Date.now();
      assertOk(await c.request('POST', cmPath(ns), { body: configMap(name, {}, { fan: 'out' }) }), 201);
      await Promise.all(ws.map((w) => w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === name, 5000)));
      assert.ok(Date.now() - t0 < 5000);
      for (const w of ws) w.close();
    });

    it('watch - a watcher that never reads is closed without delaying others', async () => {
      const slowNs = uniq('slow');
      await createNamespace(c, slowNs);
      const slow = await openWatch(c, `${cmPath(slowNs)}?watch=true&resourceVersion=0`, { paused: true });
      watches.push(slow);
      const fast = await watch(`${cmPath(slowNs)}?watch=true&resourceVersion=0`);
      const big = 'x'.repeat(900 * 1024);
      const writes = 40;
      for (let i = 0; i < writes; i++) {
        const t0 = Date.now();
        assertOk(await c.request('POST', cmPath(slowNs), { body: configMap(`big-${i}`, { payload: big }) }), 201);
        const ev = await fast.waitFor((e) => e.object?.metadata?.name === `big-${i}`, 3000, `big-${i} at the fast watcher`);
        assert.equal(ev.type, 'ADDED');
        assert.ok(Date.now() - t0 < 3000);
      }
      const marker = uniq('marker');
      const t0 = Date.now();
      assertOk(await c.request('POST', cmPath(slowNs), { body: configMap(marker) }), 201);
      await fast.waitFor((e) => e.object?.metadata?.name === marker, 2000, 'the marker at the fast watcher');
      assert.ok(Date.now() - t0 < 2000);
      // The slow watcher was closed by the server: draining it ends the stream before the marker.
      slow.res.resume();
      await endsWithin(slow, 10_000, 'the slow watcher was never closed');
      assert.ok(!slow.events.some((e) => e.object?.metadata?.name === marker), 'the slow watcher did not get every event');
      assert.ok(slow.events.length < writes + 1);
    });
  });

  describe('watch too old', () => {
    let small: TestCluster;
    before(async () => {
      small = await startTestCluster({ gateway: { watchWindowMs: 1000 } });
    });
    after(async () => {
      await small?.stop();
    });

    it('chunking - a continue token older than the retained history is 410 Expired with a fresh token', async () => {
      for (let i = 0; i < 4; i++) assertOk(await small.request('POST', cmPath('default'), { body: configMap(`page-${i}`) }), 201);
      const p1 = assertOk(await small.request('GET', `${cmPath('default')}?limit=2`));
      assert.ok(p1.metadata.continue);
      await sleep(2500);
      assertOk(await small.request('POST', cmPath('default'), { body: configMap(uniq('later')) }), 201);
      await sleep(1500);
      const r = await small.request('GET', `${cmPath('default')}?limit=2&continue=${q(p1.metadata.continue)}`);
      const st = assertStatus(r, 410, 'Expired');
      assert.ok(st.metadata?.continue, 'an expired continue answer carries a token to continue inconsistently');
      const rest = assertOk(await small.request('GET', `${cmPath('default')}?limit=100&continue=${q(st.metadata.continue)}`));
      assert.ok(rest.items.length > 0);
      assert.ok(!rest.items.some((i: any) => p1.items.some((j: any) => j.metadata.name === i.metadata.name)), 'the fresh token continues after the first page');
    });

    it('watch - from a version older than the retained history is an ERROR event with 410', async () => {
      for (let i = 0; i < 3; i++) assertOk(await small.request('POST', cmPath('default'), { body: configMap(uniq('old')) }), 201);
      await sleep(2500);
      assertOk(await small.request('POST', cmPath('default'), { body: configMap(uniq('new')) }), 201);
      await sleep(1500);
      const w = await openWatch(small, `${cmPath('default')}?watch=true&resourceVersion=1`);
      try {
        assert.equal(w.status, 200);
        const ev = await w.waitFor((e) => e.type === 'ERROR', 5000, 'an ERROR event');
        assert.equal(ev.object.kind, 'Status');
        assert.equal(ev.object.code, 410);
        assert.ok(['Expired', 'Gone'].includes(ev.object.reason), ev.object.reason);
        assert.match(ev.object.message, /too old resource version/);
        await endsWithin(w, 3000, 'stream stays open after the ERROR event');
        assert.equal(w.events.length, 1, summary(w.events));
      } finally {
        w.close();
      }
      // A list at that version is 410 too, and a fresh list-then-watch works.
      assertStatus(await small.request('GET', `${cmPath('default')}?resourceVersion=1&resourceVersionMatch=Exact`), 410);
      const list = assertOk(await small.request('GET', cmPath('default')));
      const w2 = await openWatch(small, `${cmPath('default')}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
      try {
        const name = uniq('after');
        assertOk(await small.request('POST', cmPath('default'), { body: configMap(name) }), 201);
        await w2.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === name);
      } finally {
        w2.close();
      }
    });
  });
});
