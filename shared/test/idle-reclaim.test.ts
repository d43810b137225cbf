import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { memoryReleased, reclaimWhenIdle } from '../idle-reclaim.js';

test('idle reclaim - garbage left by a burst is collected once the process is idle', async () => {
  const collected: Array<{ beforeBytes: number; afterBytes: number }> = [];
  const stop = reclaimWhenIdle({ intervalMs: 200, growthBytes: 32 * 1024 * 1024, onCollect: (e) => collected.push(e) });
  try {
    // A burst: ~100 MB of objects that die at once, as a request's body does when it is answered.
    let burst: unknown[] | undefined = Array.from({ length: 400 }, (_, i) => ({ i, rows: Array.from({ length: 1000 }, (_, j) => `row ${i}.${j} ${'x'.repeat(200)}`) }));
    const heldMiB = v8.getHeapStatistics().used_heap_size / 2 ** 20;
    assert.ok(burst.length === 400 && heldMiB > 64, `the burst holds ${heldMiB.toFixed(0)} MiB`);
    burst = undefined;
    for (let i = 0; i < 50 && collected.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(collected.length >= 1, 'a collection once idle');
    const [c] = collected;
    assert.ok(c!.afterBytes < c!.beforeBytes - 64 * 2 ** 20, `collected ${(c!.beforeBytes / 2 ** 20).toFixed(0)} → ${(c!.afterBytes / 2 ** 20).toFixed(0)} MiB`);
    // Data alive at that collection that dies later, with nothing allocating after it, is
    // collected too once it is garbage.
    let window: unknown[] | undefined = Array.from({ length: 400 }, (_, i) => ({ i, rows: Array.from({ length: 1000 }, (_, j) => `event ${i}.${j} ${'x'.repeat(200)}`) }));
    for (let i = 0; i < 50 && collected.length === 1; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(window.length, 400);
    window = undefined;
    for (let i = 0; i < 50 && collected.length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(collected.length >= 3, `${collected.length} collections`);
    const last = collected[collected.length - 1]!;
    assert.ok(last.afterBytes < last.beforeBytes - 64 * 2 ** 20, 'the window was collected once it died');
    // A heap that stays as it is is collected ever more rarely.
    const count = collected.length;
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(collected.length - count <= 2, `${collected.length - count} collections of a steady heap in 1.5 s`);
  } finally {
    stop();
  }
});

test('idle reclaim - a busy event loop is left to V8', async () => {
  const collected: unknown[] = [];
  const stop = reclaimWhenIdle({ intervalMs: 100, growthBytes: 1, onCollect: (e) => collected.push(e) });
  try {
    const until = Date.now() + 700;
    // Busy: the loop runs work nearly all of the time, yielding only briefly.
    while (Date.now() < until) {
      const end = Date.now() + 20;
      let junk: string[] = [];
      while (Date.now() < end) junk.push('y'.repeat(100));
      junk = [];
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(collected.length, 0);
  } finally {
    stop();
  }
});

test('idle reclaim - memoryReleased ends the back-off, so data that died later is collected at the next look', async () => {
  const collected: Array<{ beforeBytes: number; afterBytes: number; at: number }> = [];
  const stop = reclaimWhenIdle({ intervalMs: 100, growthBytes: 32 * 1024 * 1024, onCollect: (e) => collected.push({ ...e, at: performance.now() }) });
  try {
    // A window's worth of events, alive: each collection frees little, so the waits double.
    let window: unknown[] | undefined = Array.from({ length: 400 }, (_, i) => ({ i, rows: Array.from({ length: 1000 }, (_, j) => `event ${i}.${j} ${'x'.repeat(200)}`) }));
    // Four collections that freed little: the wait is now 1.6 s, and the last one just ran.
    for (let i = 0; i < 200 && collected.length < 4; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(window.length, 400);
    assert.equal(collected.length, 4, `${collected.length} collections while the window was alive`);
    window = undefined;
    const dropped = performance.now();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(collected.filter((c) => c.at > dropped).length, 0, 'backing off: no collection yet');
    memoryReleased();
    for (let i = 0; i < 20 && collected.every((c) => c.at <= dropped); i++) await new Promise((r) => setTimeout(r, 50));
    const after = collected.filter((c) => c.at > dropped);
    assert.equal(after.length, 1, 'one collection after the release');
    assert.ok(after[0]!.afterBytes < after[0]!.beforeBytes - 64 * 2 ** 20, `collected ${(after[0]!.beforeBytes / 2 ** 20).toFixed(0)} → ${(after[0]!.afterBytes / 2 ** 20).toFixed(0)} MiB`);
  } finally {
    stop();
  }
});
