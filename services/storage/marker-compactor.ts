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

/** One replica's compactor: the markers it noted, its passes (never overlapping) and their timer. */
class Compactor {
  private readonly stream: string;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | null = null;
  // Noted markers, oldest first (a queue: `head` is the next one).
  private noted: Array<{ key: string; revision: number; at: number }> = [];
  private head = 0;
  // When a marker could not be noted: the time it becomes due, for a scan then (0: none).
  private unnotedDueAt = 0;
  private lastScan = -Infinity;

  constructor(private readonly opts: MarkerCompactorOptions) {
    this.stream = streamName(opts.bucket);
  }

  noteMarker(key: string, revision: number, writtenAtMs: number): void {
    if (this.stopped) return;
    if (this.noted.length - this.head >= (this.opts.maxNoted ?? MAX_NOTED)) {
      this.unnotedDueAt = Math.max(this.unnotedDueAt, writtenAtMs + this.opts.ttlMs);
      return;
    }
    this.noted.push({ key, revision, at: writtenAtMs });
  }

  runOnce(opts: { scan?: boolean } = {}): Promise<number> {
    // Passes never overlap: a timer tick during a long pass joins it.
    this.running ??= this.pass(opts.scan ?? true).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  schedule(failures: number): void {
    const { intervalMs, log } = this.opts;
    if (this.stopped || intervalMs === null) return;
    const delay = failures === 0 ? intervalMs : Math.min(intervalMs * 2 ** failures, Math.max(intervalMs, MAX_BACKOFF_MS));
    this.timer = setTimeout(() => {
      this.runOnce({ scan: Date.now() - this.lastScan >= SCAN_EVERY_MS }).then(
        () => this.schedule(0),
        (err: unknown) => {
          log?.warn({ err, retryInMs: Math.min(intervalMs * 2 ** (failures + 1), Math.max(intervalMs, MAX_BACKOFF_MS)) }, 'delete marker compaction failed; backing off');
          this.schedule(failures + 1);
        },
      );
    }, delay);
    // Compaction alone must not keep the process alive.
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private async pass(scan: boolean): Promise<number> {
    const cutoff = Date.now() - this.opts.ttlMs;
    let purged = await this.purgeNoted(cutoff);
    const unnoted = this.unnotedDueAt;
    if (scan || (unnoted > 0 && Date.now() >= unnoted)) {
      const started = Date.now();
      purged += await this.scanAndPurge(cutoff);
      this.lastScan = started;
      // Markers dropped meanwhile are due later: their own scan comes then.
      if (this.unnotedDueAt === unnoted) this.unnotedDueAt = 0;
    }
    if (purged > 0) this.opts.log?.debug({ purged }, 'purged expired delete markers');
    return purged;
  }

  /** Purges the noted markers older than the TTL. */
  private async purgeNoted(cutoff: number): Promise<number> {
    let purged = 0;
    while (!this.stopped && this.head < this.noted.length && this.noted[this.head]!.at < cutoff) {
      const m = this.noted[this.head]!;
      purged += await this.purgeMarker(m.key, m.revision);
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.noted.length) {
      this.noted = this.noted.slice(this.head);
      this.head = 0;
    }
    return purged;
  }

  private async purgeMarker(key: string, revision: number): Promise<number> {
    return (await this.opts.jsm.streams.purge(this.stream, { filter: keySubject(this.opts.bucket, key), seq: revision + 1 })).purged;
  }

  private async scanAndPurge(cutoff: number): Promise<number> {
    // The scan's consumer also delivers writes made after it started, and the library ends the
    // iteration only once nothing is pending: under steady writes it would chase the tail for
    // seconds. Entries up to the last sequence at the start are all a pass needs.
    const { state } = await this.opts.jsm.streams.info(this.stream);
    if (state.messages === 0) return 0;
    const bound = state.last_seq;
    const expired: KvWatchEntry[] = [];
    // With history 1 the stream holds one message per key, so this reads each key's latest entry.
    // Headers only: a pass must not transfer every object's value.
    const iter = await headersOnlyHistory(this.opts.kv, '>');
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
      if (this.stopped) break;
      purged += await this.purgeMarker(e.rawKey, e.revision);
    }
    return purged;
  }
}

export function startMarkerCompactor(opts: MarkerCompactorOptions): MarkerCompactor {
  checkCompactorTiming(opts.ttlMs, opts.intervalMs);
  const compactor = new Compactor(opts);
  compactor.schedule(0);
  // Functions that need no `this`: the bucket writer is handed `noteMarker` on its own.
  return {
    noteMarker: (key, revision, writtenAtMs) => compactor.noteMarker(key, revision, writtenAtMs),
    runOnce: (o) => compactor.runOnce(o),
    stop: () => compactor.stop(),
  };
}
