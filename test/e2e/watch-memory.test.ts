// End to end: a watch's initial events cost the gateway a bounded amount of memory however large
// the namespace, many watchers that never read cannot exhaust it (a budget turns new watches away
// with 429), and the memory comes back once they close.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { defaultHandlerOptions } from '../../services/gateway/handlers/context.js';
import { assertOk, configMap, createNamespace, openWatch, sleep, summary, uniq, type WatchStream } from './helpers.js';

const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const MB = 1024 * 1024;
const OBJECTS = 300;
const OBJECT_BYTES = 10_000;
const WATCHES = 200;
// Small enough that 200 watchers that never read spend it (each holds about a high-water mark
// once the kernel's socket buffers are full), far above what one watcher holds.
const BUDGET = 1 * MB;

// The gateway runs in this process: its memory is this process's, measured after full collections.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Memory {
  rss: number;
  heap: number;
}

async function memory(): Promise<Memory> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(50);
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external };
}

const fmt = (m: Memory) => `rss ${(m.rss / MB).toFixed(0)} MB, heap+external ${(m.heap / MB).toFixed(0)} MB`;

describe('watch memory', () => {
  let c: TestCluster;
  let ns: string;
  const opened: WatchStream[] = [];

  before(async () => {
    c = await startTestCluster({ gateway: { handlers: { ...defaultHandlerOptions, maxWatchBufferedBytes: BUDGET } } });
    ns = uniq('wmem');
    await createNamespace(c, ns);
    const payload = 'x'.repeat(OBJECT_BYTES);
    for (let i = 0; i < OBJECTS; i += 20) {
      await Promise.all(Array.from({ length: Math.min(20, OBJECTS - i) }, (_, j) => c.request('POST', cmPath(ns), { body: configMap(`cm-${i + j}`, { payload }) }).then((r) => assertOk(r, 201))));
    }
  });

  after(async () => {
    for (const w of opened) w.close();
    await c?.stop();
  });

  it('watch - many watchers that never read hold bounded memory, beyond the budget get 429, and it returns when they close', async () => {
    const path = `${cmPath(ns)}?watch=true`;
    // A first watch settles the lazily built state (sorted keys, serialized objects) every watch shares.
    const warm = await openWatch(c, path);
    await warm.waitForCount(OBJECTS, 20_000);
    warm.close();
    await sleep(200);
    const base = await memory();

    const answers: WatchStream[] = [];
    for (let i = 0; i < WATCHES; i += 20) {
      const batch = await Promise.all(Array.from({ length: Math.min(20, WATCHES - i) }, () => openWatch(c, path, { paused: true })));
      answers.push(...batch);
      opened.push(...batch);
      await sleep(20);
    }
    await sleep(500);
    const peak = await memory();

    const accepted = answers.filter((w) => w.status === 200);
    const refused = answers.filter((w) => w.status === 429);
    const growth = peak.heap - base.heap;
    const rssGrowth = peak.rss - base.rss;
    const report = `base ${fmt(base)}; with ${accepted.length} paused watchers (${refused.length} refused) ${fmt(peak)}`;
    console.log(`watch memory: ${report}`);
    assert.equal(accepted.length + refused.length, WATCHES, `every watch is 200 or 429: ${answers.map((w) => w.status).join(',')}`);
    assert.ok(accepted.length >= 40, `at least 40 watches fit in the budget: ${report}`);
    assert.ok(refused.length > 0, `watches beyond the budget are refused: ${report}`);
    for (const w of refused) {
      assert.ok(Number(w.headers['retry-after']) >= 1, `429 carries Retry-After: ${JSON.stringify(w.headers)}`);
    }
    // Buffering every watcher's initial events would be accepted x 3 MB.
    assert.ok(growth < 150 * MB && rssGrowth < 150 * MB, `memory growth bounded: ${report}`);

    for (const w of answers) w.close();
    opened.length = 0;
    await sleep(500);
    const done = await memory();
    console.log(`watch memory: after closing ${fmt(done)}`);
    assert.ok(done.heap - base.heap < 30 * MB && done.rss - base.rss < 60 * MB, `memory returns after the watches close: base ${fmt(base)}, after ${fmt(done)}`);
    assert.equal(c.gateway.cache.watcherCount(), 0, 'no watcher left registered');

    // The budget is free again: a reading watcher gets every object, then live changes.
    const w = await openWatch(c, path);
    opened.push(w);
    assert.equal(w.status, 200, summary(w.events));
    const init = await w.waitForCount(OBJECTS, 20_000);
    assert.ok(
      init.every((e) => e.type === 'ADDED'),
      summary(init),
    );
    assert.equal(new Set(init.map((e) => e.object.metadata.name)).size, OBJECTS);
    assert.equal(init[0]!.object.data.payload.length, OBJECT_BYTES);
    assertOk(await c.request('POST', cmPath(ns), { body: configMap('live') }), 201);
    const live = await w.waitFor((e) => e.object?.metadata?.name === 'live', 5000, 'the live event');
    assert.equal(live.type, 'ADDED');
    w.close();
  });
});
