import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { checkCompactorTiming, startMarkerCompactor } from '../marker-compactor.js';

test('marker compactor - timings that would spin or never purge are refused at start', () => {
  const bad: Array<[string, number, number | null]> = [
    ['NaN interval (a duration default left as text)', 300_000, Number.NaN],
    ['zero interval', 300_000, 0],
    ['negative interval', 300_000, -1],
    ['infinite interval', 300_000, Number.POSITIVE_INFINITY],
    ['interval below the floor', 300_000, 1],
    ['NaN TTL', Number.NaN, 60_000],
    ['negative TTL', -5, 60_000],
  ];
  for (const [name, ttl, interval] of bad) assert.throws(() => checkCompactorTiming(ttl, interval), RangeError, name);
  assert.doesNotThrow(() => checkCompactorTiming(300_000, 60_000));
  assert.doesNotThrow(() => checkCompactorTiming(0, null), 'manual passes only');
});

test('marker compactor - a failing pass backs off instead of retrying at once', async () => {
  let attempts = 0;
  // Fails before any consumer is made: only the timer's schedule is under test here.
  const jsm = {
    streams: {
      info: async () => {
        attempts++;
        throw new Error('stream unavailable');
      },
    },
  } as unknown as JetStreamManager;
  const compactor = startMarkerCompactor({ kv: {} as KV, jsm, bucket: 'objects', ttlMs: 1_000, intervalMs: 100 });
  await new Promise((r) => setTimeout(r, 1_600));
  await compactor.stop();
  // Without back-off: ~16 attempts. With doubling from 100 ms: 100, 200, 400, 800 → at most 4.
  assert.ok(attempts >= 2 && attempts <= 4, `attempts in 1.6 s: ${attempts}`);
});
