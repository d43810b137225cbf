// Storage service lifecycle against a real nats-server: tombstone compaction never destroys a
// re-created object, and the service binary starts, answers and stops cleanly on SIGTERM.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import type { KV, KvWatchEntry } from '@nats-io/kv';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { natsStorage } from '../../../shared/bus/storage-client.js';
import { StatusError } from '../../../shared/api/status.js';
import { openObjectBucket } from '../../../shared/store/kv-bucket.js';
import { streamName } from '../../../shared/bus/streams.js';
import { startMarkerCompactor } from '../marker-compactor.js';

let nats: TestNats;
let nc: NatsConnection;
const buckets: string[] = [];

describe('storage lifecycle', () => {
  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('lifecycle');
  });

  after(async () => {
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    for (const b of buckets) await jsm.streams.delete(streamName(b)).catch(() => undefined);
    await nats.stop();
  });

  test('compaction - a key re-created after its delete marker was scanned is not purged', async () => {
    const bucket = `compact-race-${process.pid}`;
    buckets.push(bucket);
    const kv = await openObjectBucket(nc, { bucket, create: true });
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    await kv.create('core.configmaps.default.x', '{"v":"old"}');
    await kv.delete('core.configmaps.default.x');
    // The scan sees the marker...
    const scanned: KvWatchEntry[] = [];
    for await (const e of await kv.history({ key: '>' })) scanned.push(e);
    assert.equal(scanned.length, 1);
    assert.equal(scanned[0]!.operation, 'DEL');
    // ...then the object is re-created before the purge runs.
    const rev = await kv.create('core.configmaps.default.x', '{"v":"new"}');
    // A bucket view whose scan replays that stale result (the library's iterator has stop()).
    const staleHistory = async () =>
      Object.assign(
        (async function* () {
          yield* scanned;
        })(),
        { stop() {} },
      );
    const staleView = Object.create(kv, { history: { value: staleHistory } }) as KV;
    const compactor = startMarkerCompactor({ kv: staleView, jsm, bucket, ttlMs: 0, intervalMs: null });
    await compactor.runOnce();
    await compactor.stop();
    const e = await kv.get('core.configmaps.default.x');
    assert.equal(e?.operation, 'PUT');
    assert.equal(e?.revision, rev);
    assert.equal(e?.string(), '{"v":"new"}');
  });

  test('compaction - a pass leaves no consumer behind', async () => {
    const bucket = `compact-consumers-${process.pid}`;
    buckets.push(bucket);
    const kv = await openObjectBucket(nc, { bucket, create: true });
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    for (let i = 0; i < 5; i++) await kv.create(`core.configmaps.default.k${i}`, '{}');
    await kv.delete('core.configmaps.default.k0');
    const compactor = startMarkerCompactor({ kv, jsm, bucket, ttlMs: 0, intervalMs: null });
    try {
      for (let pass = 0; pass < 3; pass++) await compactor.runOnce();
    } finally {
      await compactor.stop();
    }
    assert.equal((await kv.get('core.configmaps.default.k0'))?.operation ?? 'gone', 'gone', 'the expired marker was purged');
    // Each pass scans with a consumer of its own; left alone they would linger for minutes.
    assert.equal((await jsm.streams.info(streamName(bucket))).state.consumer_count, 0);
  });

  test('compaction - noted markers are purged when due without reading the bucket; one that could not be noted is found by a scan then', async () => {
    const bucket = `compact-noted-${process.pid}`;
    buckets.push(bucket);
    const kv = await openObjectBucket(nc, { bucket, create: true });
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    const scans = { count: 0 };
    const counted = Object.create(kv, { history: { value: (...a: Parameters<KV['history']>) => (scans.count++, kv.history(...a)) } }) as KV;
    const ttlMs = 300;
    const compactor = startMarkerCompactor({ kv: counted, jsm, bucket, ttlMs, intervalMs: null, maxNoted: 1 });
    const marker = async (key: string) => {
      await kv.create(key, '{}');
      await kv.delete(key);
      const e = (await kv.get(key))!;
      compactor.noteMarker(key, e.revision, Date.now());
      return e.revision;
    };
    try {
      await marker('core.configmaps.default.a');
      await marker('core.configmaps.default.b'); // beyond maxNoted: not noted
      assert.equal(await compactor.runOnce({ scan: false }), 0, 'nothing is due yet');
      await new Promise((r) => setTimeout(r, ttlMs + 50));
      // `a` from its note; `b` needs the scan its dropped note scheduled for when it became due.
      assert.equal(await compactor.runOnce({ scan: false }), 2);
      assert.equal(scans.count, 1);
      assert.equal(await kv.get('core.configmaps.default.a'), null);
      assert.equal(await kv.get('core.configmaps.default.b'), null);
      // A noted marker whose key was written again meanwhile: the new write replaced it (history
      // 1), and the purge, bounded by the marker's revision, leaves the new write alone.
      await marker('core.configmaps.default.c');
      const again = await kv.create('core.configmaps.default.c', '{"v":"again"}');
      await new Promise((r) => setTimeout(r, ttlMs + 50));
      assert.equal(await compactor.runOnce({ scan: false }), 0);
      assert.equal(scans.count, 1, 'no scan without a dropped note');
      assert.equal((await kv.get('core.configmaps.default.c'))?.revision, again);
    } finally {
      await compactor.stop();
    }
  });

  test('main - starts from flags, answers on the bus, and exits 0 on SIGTERM', async () => {
    const bucket = `main-${process.pid}`;
    buckets.push(bucket);
    const main = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'main.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', main, '--nats-url', `${nats.url},${nats.url}`, '--bucket', bucket, '--delete-marker-ttl', '2m', '--log-level', 'warn'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const until = Date.now() + 20_000;
      let answered = false;
      while (!answered && Date.now() < until) {
        try {
          await natsStorage(nc, 1_000).get({ group: '', resource: 'configmaps', namespace: 'default', name: 'probe' });
        } catch (err) {
          if (err instanceof StatusError && err.status.code === 404) answered = true;
          else await new Promise((r) => setTimeout(r, 100));
        }
      }
      assert.ok(answered, `the service never answered; output:\n${output}`);
      child.kill('SIGTERM');
      // The bound's timer is cleared: left running, it would keep this file's process alive for 10 s after its tests.
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 10_000)))]);
      clearTimeout(timer);
      assert.equal(code, 0, `exit ${String(code)}; output:\n${output}`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
