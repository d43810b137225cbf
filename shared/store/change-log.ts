// The bucket's change log: every write of the object bucket, kept in JetStream for a while after
// the bucket itself has replaced it (the bucket keeps one entry per key). A stream of its own,
// limited by age, that storage publishes each write to once the bucket has taken it.
//
// Not a mirror or a source of the bucket's stream: nats-server (2.9) re-checks a copied message's
// expected-last-subject-sequence against the copy, so a CAS write whose predecessor the copy no
// longer holds (aged out) would be dropped from it — exactly the writes the log exists for.
//
// A gateway that starts rebuilds its watch window from it (watch-cache.ts `markSynced`), so a
// client resumes a watch or reads an Exact list from before that gateway's start. Rolling the
// window back needs each change's previous state, so every logged write says what it replaced
// (`PREV_HEADER`): nothing live (a create), or the revision it replaced — and, when that revision
// is older than the window, the replaced object itself. The log, kept for twice the window and a
// margin, thus knows the previous state of every change inside the last window. Whatever it cannot
// know (a write by another client, a log entry lost with a storage replica that died between the
// bucket's ack and the log's publish, an object too large to carry its predecessor) only shortens
// the rebuilt window.

import type { NatsConnection } from '@nats-io/nats-core';
import { headers } from '@nats-io/nats-core';
import { DeliverPolicy, DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type ConsumerMessages, type StreamConfig } from '@nats-io/jetstream';
import type { Logger } from '../log.js';
import { sleep } from '../ground/sleep.js';
import { isStreamNotFound, kvErrorKind, KvErrorKind } from './kv-errors.js';
import { changeLogStream, changeLogSubject } from '../bus/streams.js';

/** What a write replaced: `PREV_NONE`, `<revision>`, or `<revision> <the replaced object's JSON>`. */
export const PREV_HEADER = 'Platform-Prev';
/** What a create replaced: nothing live. */
export const PREV_NONE = 'none';
/** The bucket revision of a logged write. */
export const REVISION_HEADER = 'Platform-Revision';
export const KV_OPERATION_HEADER = 'KV-Operation';

/** Beyond twice the window: clocks of storage and NATS may differ by this much. */
const CLOCK_MARGIN_MS = 60_000;

/** How long the log keeps a change: the window, the carrying threshold (also the window), a margin. */
export function changeLogMaxAgeMs(windowMs: number): number {
  return 2 * windowMs + CLOCK_MARGIN_MS;
}

export function changeLogConfig(bucket: string, windowMs: number, replicas: number): Partial<StreamConfig> & { name: string } {
  return {
    name: changeLogStream(bucket),
    subjects: [changeLogSubject(bucket, '>')],
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    storage: StorageType.File,
    num_replicas: replicas,
    max_age: changeLogMaxAgeMs(windowMs) * 1_000_000,
    max_msg_size: -1,
  };
}

/**
 * Logs one write the bucket has taken. A plain publish, not awaited: the write is already
 * durable and acknowledged by the bucket, and a log entry lost on the way only shortens a
 * rebuilt window (see above).
 */
export function logChange(nc: NatsConnection, bucket: string, change: { key: string; revision: number; data: Uint8Array; replaced: string; operation?: 'DEL' }): void {
  const h = headers();
  h.set(REVISION_HEADER, String(change.revision));
  h.set(PREV_HEADER, change.replaced);
  if (change.operation) h.set(KV_OPERATION_HEADER, change.operation);
  nc.publish(changeLogSubject(bucket, change.key), change.data, { headers: h });
}

/** The header a write carries: what it replaced (see `PREV_HEADER`). */
export function prevHeader(replaced: { revision: number; json?: string | undefined } | null): string {
  if (!replaced) return PREV_NONE;
  return replaced.json === undefined ? String(replaced.revision) : `${replaced.revision} ${replaced.json}`;
}

/** What a logged write says it replaced; undefined when it does not say (another writer). */
export type Replaced = { revision: number; json?: string } | 'none' | undefined;

export function parsePrevHeader(value: string | undefined): Replaced {
  if (!value) return undefined;
  if (value === PREV_NONE) return 'none';
  const space = value.indexOf(' ');
  const revision = Number(space < 0 ? value : value.slice(0, space));
  if (!Number.isSafeInteger(revision) || revision <= 0) return undefined;
  return space < 0 ? { revision } : { revision, json: value.slice(space + 1) };
}

/** Creates the log (storage, at start) or brings an existing one's age limit to the window's. */
export async function ensureChangeLog(nc: NatsConnection, bucket: string, opts: { windowMs: number; replicas: number; onConfigDrift?: (message: string) => void }): Promise<void> {
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const want = changeLogConfig(bucket, opts.windowMs, opts.replicas);
  try {
    const { config } = await jsm.streams.info(want.name);
    if (config.max_age !== want.max_age) {
      await jsm.streams.update(want.name, { ...config, max_age: want.max_age! });
      opts.onConfigDrift?.(`change log ${want.name} now keeps changes for ${changeLogMaxAgeMs(opts.windowMs) / 1000} s`);
    }
    if (config.num_replicas !== opts.replicas) opts.onConfigDrift?.(`change log ${want.name} has ${config.num_replicas} replicas (configured ${opts.replicas})`);
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
    await jsm.streams.add(want);
  }
}

/** One write of the bucket as the log holds it. */
export interface LoggedChange {
  key: string;
  /** The bucket's revision of the write. */
  revision: number;
  operation: 'PUT' | 'DEL' | 'PURGE';
  value: Uint8Array;
  /** What the write replaced. */
  replaced: Replaced;
  /** When the log took it (ms). */
  at: number;
}

export interface ChangeLogRead {
  /** Every logged write up to `through`, in revision order. */
  changes: LoggedChange[];
  /** False when the log could not be read: the caller then knows nothing before `through`. */
  complete: boolean;
  /** Writes after `through` the read came across before it ended, without their objects: what they replaced. */
  following?: LoggedChange[];
}

export interface ReadChangeLogOptions {
  bucket: string;
  /** The bucket revision the reader's state is at: later writes are not returned. */
  through: number;
  /** Only what the log took from this time on (server time); everything when absent. */
  since?: Date;
  /**
   * How long the read may go without progress (JetStream not answering, no message arriving)
   * before it gives up; a read that goes on receiving is not cut off, however long the log.
   */
  timeoutMs?: number;
  log?: Logger;
}

/** Between attempts at a log that JetStream cannot serve right now. */
const RETRY_MS = 500;
const EMPTY = new Uint8Array(0);
/** A consumer's batch: large enough that the pull requests are few beside the messages. */
const BATCH = 5_000;

/** When the read last got anywhere; it gives up once that is `stallMs` ago. */
class Progress {
  private last = Date.now();
  constructor(readonly stallMs: number) {}
  made(): void {
    this.last = Date.now();
  }
  /** How long the read may still go without progress. */
  leftMs(): number {
    return this.last + this.stallMs - Date.now();
  }
}

/**
 * Reads the log up to its end when the read starts and the first write after `through` (the
 * writes that come meanwhile are not chased) and returns the writes up to `through` in revision
 * order (storage replicas publish concurrently, so the log's own order may differ). A write the
 * bucket took but whose entry is still on its way is missing: the reader notices it by the chain
 * of revisions (watch-cache.ts).
 *
 * JetStream being unreachable or without a leader for the log (a NATS node lost, the stream's
 * re-election still going on) is waited out as long as the read may go without progress: giving
 * up costs every watcher of the gateway a 410 and a relist.
 */
export async function readChangeLog(nc: NatsConnection, opts: ReadChangeLogOptions): Promise<ChangeLogRead> {
  const stream = changeLogStream(opts.bucket);
  const progress = new Progress(opts.timeoutMs ?? 30_000);
  for (let attempt = 1; ; attempt++) {
    try {
      return await readChangeLogOnce(nc, opts, progress);
    } catch (err) {
      const kind = kvErrorKind(err);
      // A connection closing (the process stopping) is not waited out.
      const transient = (kind === KvErrorKind.Timeout || kind === KvErrorKind.Unavailable) && !nc.isClosed() && !nc.isDraining();
      if (!transient || progress.leftMs() <= RETRY_MS) {
        opts.log?.warn({ err, stream, attempt }, 'the change log cannot be read; the watch window starts now');
        return { changes: [], complete: false };
      }
      opts.log?.info({ err: String(err), stream, attempt }, 'the change log cannot be read yet; trying again');
      await sleep(RETRY_MS);
    }
  }
}

/** One attempt; throws what JetStream answered, and gives up reading when it stops making progress (incomplete). */
async function readChangeLogOnce(nc: NatsConnection, opts: ReadChangeLogOptions, progress: Progress): Promise<ChangeLogRead> {
  const stream = changeLogStream(opts.bucket);
  // No request waits past what the read has left (JetStream's own default is 5 s).
  const timeout = Math.max(100, Math.min(5_000, progress.leftMs()));
  const jsm = await jetstreamManager(nc, { checkAPI: false, timeout });
  const { state } = await jsm.streams.info(stream);
  if (state.messages === 0) return { changes: [], complete: true };
  const from = opts.since ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: opts.since.toISOString() } : { deliver_policy: DeliverPolicy.All };
  const consumer = await jetstream(nc, { timeout }).consumers.get(stream, from);
  try {
    // Nothing to read (nothing since `since`): the iteration below would wait for a first message.
    if ((await consumer.info(true)).num_pending === 0) return { changes: [], complete: true };
    progress.made();
    const read = await consumeUpTo(await consumer.consume({ max_messages: BATCH, expires: 2_000 }), state.last_seq, opts, progress);
    if (!read.complete) opts.log?.warn({ stream, read: read.changes.length }, 'the change log was not read to its end in time; the watch window starts now');
    return read.complete ? read : { changes: [], complete: false };
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

/**
 * The writes up to `through`, sorted by revision, of the messages up to sequence `end` (the log's
 * end when the read started) and on until one logs a write after `through`: the entries of the
 * last writes up to `through` may reach the log a moment after the read started (storage logs a
 * write once the bucket has taken it), and one missing would cut the window short there. Also
 * complete once nothing is pending (a log at rest); incomplete when the read stalled.
 */
async function consumeUpTo(messages: ConsumerMessages, end: number, opts: ReadChangeLogOptions, progress: Progress): Promise<ChangeLogRead> {
  const changes: LoggedChange[] = [];
  const following: LoggedChange[] = [];
  const prefix = changeLogSubject(opts.bucket, '').length;
  let complete = false;
  let beyond = false;
  let received = 0;
  let seen = 0;
  // Progress is looked at on a timer, not per message (a million of them at start-up).
  const stall = setInterval(
    () => {
      if (received !== seen) progress.made();
      seen = received;
      if (progress.leftMs() <= 0) void messages.stop();
    },
    Math.min(1_000, progress.stallMs / 4),
  );
  try {
    for await (const m of messages) {
      received++;
      const info = m.info;
      const h = m.headers;
      const revision = Number(h?.get(REVISION_HEADER));
      if (Number.isSafeInteger(revision) && revision > 0) {
        const op = h?.get(KV_OPERATION_HEADER);
        const later = revision > opts.through;
        beyond ||= later;
        (later ? following : changes).push({
          key: m.subject.slice(prefix),
          revision,
          operation: op === 'DEL' || op === 'PURGE' ? op : 'PUT',
          // A copy: the message's bytes are a view of the connection's read buffer, which a kept view would hold whole.
          value: later ? EMPTY : m.data.slice(),
          replaced: parsePrevHeader(h?.get(PREV_HEADER)),
          at: Math.floor(info.timestampNanos / 1e6),
        });
      }
      if ((beyond && info.streamSequence >= end) || info.pending === 0) {
        complete = true;
        break;
      }
    }
  } finally {
    clearInterval(stall);
    void messages.stop();
  }
  if (complete) changes.sort((a, b) => a.revision - b.revision);
  return { changes, complete, following };
}
