// Tombstone compaction: delete markers stay in the bucket for the watch window (so a watcher that
// resumes shortly after a delete still learns of it) and are purged once older than that.
//
// The markers this replica writes are noted as it writes them and purged when due, with no read
// of the bucket. A scan of the whole bucket finds the others (written by a replica that stopped
// before their time, or by an earlier process); it runs at start, once an hour, and when more
// markers were written than the notes hold. Scanning every pass would read every message each
// time, and nats-server keeps each block a scan touches in memory for seconds afterwards: with a
// large bucket, a memory spike the size of the bucket's blocks every pass.
//
// Not KV's purgeDeletes: it purges a marker's subject with `keep: 0`, and an object re-created on
// that key between its scan and its purge would be purged with the marker — lost data. Here each
// purge is bounded by the marker's own sequence (`seq: revision + 1` purges only messages before
// it), so a later write on the key always survives.

import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV, KvWatchEntry } from '@nats-io/kv';
import type { Logger } from '../../shared/log.js';
import { keySubject } from '../../shared/store/kv-bucket.js';
import { streamName } from '../../shared/bus/streams.js';
import { headersOnlyHistory, retireConsumer } from '../../shared/store/nats-internals.js';

export interface MarkerCompactorOptions {
  kv: KV;
  jsm: JetStreamManager;
  bucket: string;
  /** Markers older than this are purged (the watch window). */
  ttlMs: number;
  /** How often to purge what is due; null disables the timer (passes then only run through `runOnce`). */
  intervalMs: number | null;
  /** Noted markers kept at most (default 100,000, about 100 bytes each); beyond, a scan finds the rest. */
  maxNoted?: number;
  log?: Logger;
}

export interface MarkerCompactor {
  /** This replica wrote a delete marker on `key` at `revision`: purge it once older than the TTL. */
  noteMarker(key: string, revision: number, writtenAtMs: number): void;
  /** One pass: purges the noted markers that are due and, unless `scan: false`, every expired one the bucket holds. Resolves to the number purged. */
  runOnce(opts?: { scan?: boolean }): Promise<number>;
  stop(): Promise<void>;
}

/** Each pass may open a consumer on the stream: passes may never come faster than this. */
export const MIN_INTERVAL_MS = 100;
/** How often a timer pass also scans the whole bucket (besides the first pass). */
export const SCAN_EVERY_MS = 60 * 60_000;
const MAX_NOTED = 100_000;
/** A failing pass is retried after the interval doubled per failure, up to this. */
const MAX_BACKOFF_MS = 10 * 60_000;

/** Refuses settings that would make the timer spin (NaN or 0 fire at once) or never purge. */
export function checkCompactorTiming(ttlMs: number, intervalMs: number | null): void {
  if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new RangeError(`delete-marker TTL must be a finite, non-negative duration, got ${ttlMs} ms`);
  if (intervalMs !== null && (!Number.isFinite(intervalMs) || intervalMs < MIN_INTERVAL_MS)) {
    throw new RangeError(`delete-marker purge interval must be a finite duration of at least ${MIN_INTERVAL_MS} ms, got ${intervalMs} ms`);
  }
}

export function startMarkerCompactor(opts: MarkerCompactorOptions): MarkerCompactor {
  const { kv, jsm, bucket, ttlMs, intervalMs, log } = opts;
  checkCompactorTiming(ttlMs, intervalMs);
  const stream = streamName(bucket);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | null = null;
  // Noted markers, oldest first (a queue: `head` is the next one).
  let noted: Array<{ key: string; revision: number; at: number }> = [];
  let head = 0;
  // When a marker could not be noted: the time it becomes due, for a scan then (0: none).
  let unnotedDueAt = 0;
  let lastScan = -Infinity;

  function noteMarker(key: string, revision: number, writtenAtMs: number): void {
    if (stopped) return;
    if (noted.length - head >= (opts.maxNoted ?? MAX_NOTED)) {
      unnotedDueAt = Math.max(unnotedDueAt, writtenAtMs + ttlMs);
      return;
    }
    noted.push({ key, revision, at: writtenAtMs });
  }

  /** Purges the noted markers older than the TTL. */
  async function purgeNoted(cutoff: number): Promise<number> {
    let purged = 0;
    while (!stopped && head < noted.length && noted[head]!.at < cutoff) {
      const m = noted[head]!;
      purged += await purgeMarker(m.key, m.revision);
      head++;
    }
    if (head > 1024 && head * 2 > noted.length) {
      noted = noted.slice(head);
      head = 0;
    }
    return purged;
  }

  async function purgeMarker(key: string, revision: number): Promise<number> {
    return (await jsm.streams.purge(stream, { filter: keySubject(bucket, key), seq: revision + 1 })).purged;
  }

  async function pass(scan: boolean): Promise<number> {
    const cutoff = Date.now() - ttlMs;
    let purged = await purgeNoted(cutoff);
    const unnoted = unnotedDueAt;
    if (scan || (unnoted > 0 && Date.now() >= unnoted)) {
      const started = Date.now();
      purged += await scanAndPurge(cutoff);
      lastScan = started;
      // Markers dropped meanwhile are due later: their own scan comes then.
      if (unnotedDueAt === unnoted) unnotedDueAt = 0;
    }
    if (purged > 0) log?.debug({ purged }, 'purged expired delete markers');
    return purged;
  }

  async function scanAndPurge(cutoff: number): Promise<number> {
    // The scan's consumer also delivers writes made after it started, and the library ends the
    // iteration only once nothing is pending: under steady writes it would chase the tail for
    // seconds. Entries up to the last sequence at the start are all a pass needs.
    const { state } = await jsm.streams.info(stream);
    if (state.messages === 0) return 0;
    const bound = state.last_seq;
    const expired: KvWatchEntry[] = [];
    // With history 1 the stream holds one message per key, so this reads each key's latest entry.
    // Headers only: a pass must not transfer every object's value.
    const iter = await headersOnlyHistory(kv, '>');
    try {
      for await (const e of iter) {
        if (e.revision > bound) break;
        if ((e.operation === 'DEL' || e.operation === 'PURGE') && e.created.getTime() < cutoff) expired.push(e);
        if (e.revision === bound) break;
      }
    } finally {
      iter.stop();
      // Stopping the iterator leaves its consumer on the server until its inactivity threshold
      // (minutes): one more idle consumer per pass. The pass is done with it, so it goes now.
      await retireConsumer(iter);
    }
    let purged = 0;
    for (const e of expired) {
      if (stopped) break;
      purged += await purgeMarker(e.rawKey, e.revision);
    }
    return purged;
  }

  function runOnce(opts: { scan?: boolean } = {}): Promise<number> {
    // Passes never overlap: a timer tick during a long pass joins it.
    running ??= pass(opts.scan ?? true).finally(() => {
      running = null;
    });
    return running;
  }

  function schedule(failures: number): void {
    if (stopped || intervalMs === null) return;
    const delay = failures === 0 ? intervalMs : Math.min(intervalMs * 2 ** failures, Math.max(intervalMs, MAX_BACKOFF_MS));
    timer = setTimeout(() => {
      runOnce({ scan: Date.now() - lastScan >= SCAN_EVERY_MS }).then(
        () => schedule(0),
        (err: unknown) => {
          log?.warn({ err, retryInMs: Math.min(intervalMs * 2 ** (failures + 1), Math.max(intervalMs, MAX_BACKOFF_MS)) }, 'delete marker compaction failed; backing off');
          schedule(failures + 1);
        },
      );
    }, delay);
    // Compaction alone must not keep the process alive.
    timer.unref();
  }
  schedule(0);

  return {
    noteMarker,
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
