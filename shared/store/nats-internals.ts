// Everything this code base reads from nats.js beyond its public types, in one place. Checked
// against @nats-io/kv and @nats-io/jetstream 3.4.0 (package.json pins them exactly); an upgrade
// must run test/integration/nats-internals.test.ts, which fails when one of these changes shape.
//
// Why each is needed:
// - A KV watch or history iterator does not expose its consumer, yet the bucket feed must read the
//   consumer's pending count (an empty replay from one still to come) and delivered position (the
//   liveness check), and every user must delete it when done: left to nats.js's inactivity
//   threshold (5 minutes) it costs nats-server CPU on every write.
// - The KV class knows its stream name, manager and key-to-subject mapping; its interface does not.
// - `history()` forwards `headers_only` to its consumer, which its type does not declare: without
//   it a scan of the bucket transfers every object's value.
// - `getMessage` accepts `next_by_subj` on the wire (JetStream's STREAM.MSG.GET), which its type
//   does not declare.

import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV, KvWatchEntry } from '@nats-io/kv';
import type { QueuedIterator } from '@nats-io/nats-core';

/** The consumer behind a KV watch or history iterator. */
export interface IteratorConsumer {
  /** `cached`: the info nats.js read when it made the consumer, without asking the server again. */
  info(cached: boolean): Promise<{ name: string; num_pending: number; delivered?: { stream_seq: number } }>;
  delete(): Promise<boolean>;
}

/** The consumer of an iterator made by `KV.watch` or `KV.history` (undefined for an empty history, which makes none). */
export function consumerOf(iter: unknown): IteratorConsumer | undefined {
  return (iter as { _data?: IteratorConsumer })._data;
}

/**
 * Deletes an iterator's consumer now rather than at its inactivity threshold: even with no
 * subscriber, a consumer over the bucket costs nats-server 2.9 CPU on each write until it is gone
 * (260 against 90 ms over 20 writes with 57,000 keys), and a rolling restart would leave every
 * stopped replica's. Never fails.
 */
export function retireConsumer(iter: unknown): Promise<unknown> {
  return (
    consumerOf(iter)
      ?.delete()
      .catch(() => undefined) ?? Promise.resolve()
  );
}

/** A bucket's stream as the KV class holds it. */
export interface BucketStream {
  /** The stream's name (`KV_<bucket>`). */
  stream: string;
  jsm: JetStreamManager;
  /** The stream subject of a key, or of a key filter (`a.>` → `$KV.<bucket>.a.>`). */
  subjectForKey(key: string): string;
}

export function bucketStream(kv: KV): BucketStream {
  const b = kv as unknown as BucketStream;
  return { stream: b.stream, jsm: b.jsm, subjectForKey: (key) => b.subjectForKey(key) };
}

/** The sequence of the stream's first message on `subject` at or after `seq`, or null when there is none. Asks the stream's leader. */
export async function nextSequence(b: BucketStream, seq: number, subject: string): Promise<number | null> {
  const m = await b.jsm.streams.getMessage(b.stream, { seq, next_by_subj: subject } as unknown as { seq: number });
  return m === null ? null : m.seq;
}

/** Every entry of the keys `key` matches, oldest first, without their values. */
export function headersOnlyHistory(kv: KV, key: string): Promise<QueuedIterator<KvWatchEntry>> {
  type History = (opts: { key: string; headers_only: boolean }) => Promise<QueuedIterator<KvWatchEntry>>;
  return (kv.history as unknown as History).call(kv, { key, headers_only: true });
}
