// The data of the scale figures, put in place faster than the API could: the object bucket and its
// change log as a system leaves them after running a while at a steady write rate. Every object is
// written `rounds` times (a create, then updates), so the log holds objects × rounds changes and the
// bucket the last round. Only the last round goes into the bucket (its revisions are real); the
// earlier rounds exist only in the log, at revisions the bucket's stream skipped (`jumpBucket`
// purges the empty stream up to a sequence, which moves its next sequence there) — the bucket keeps
// one entry per key, so a reader cannot tell them from writes it no longer holds. Log entries are
// published with the storage service's own `logChange` (subject, headers, what each write
// replaced), as raw publishes in batches with a flush after each.

import type { NatsConnection } from '@nats-io/nats-core';
import { headers } from '@nats-io/nats-core';
import { jetstream, jetstreamManager, PubHeaders } from '@nats-io/jetstream';
import { changeLogStream, streamName } from '../shared/bus/streams.js';
import { ensureChangeLog, logChange, prevHeader } from '../shared/store/change-log.js';
import { keySubject, openObjectBucket } from '../shared/store/kv-bucket.js';
import { configMapKey } from './objects.js';

export interface ScaleShape {
  objects: number;
  namespaces: number;
  /** Writes per object in the log (the last one is the bucket's). */
  rounds: number;
}

const BATCH = 5_000;
const IN_FLIGHT = 1_000;

export function scaleNamespace(shape: ScaleShape, i: number): string {
  return `scale-${String(i % shape.namespaces).padStart(3, '0')}`;
}

function scaleName(i: number): string {
  return `cm-${String(i).padStart(6, '0')}`;
}

// About 1 KiB of JSON once stored: the size of a typical application's settings.
const SETTINGS = Array.from({ length: 12 }, (_, i) => `setting.${i}=value-${'x'.repeat(30)}`).join('\n');

/** Object `i` as the storage service stores its `round`-th write: server-owned metadata set, no resourceVersion. */
function storedObject(shape: ScaleShape, i: number, round: number): Uint8Array {
  const hex = i.toString(16).padStart(12, '0');
  const object = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: scaleName(i),
      namespace: scaleNamespace(shape, i),
      uid: `5ca1e000-0000-4000-8000-${hex}`,
      creationTimestamp: '2026-11-28T10:00:00Z',
      labels: { app: `app-${i % 50}`, tier: 'backend', 'app.kubernetes.io/managed-by': 'bench' },
      annotations: { 'bench/round': String(round) },
    },
    data: { 'application.properties': SETTINGS, 'log-level': round % 2 ? 'debug' : 'info', revision: String(round) },
  };
  return Buffer.from(JSON.stringify(object));
}

function keyOf(shape: ScaleShape, i: number): string {
  return configMapKey(scaleNamespace(shape, i), scaleName(i));
}

/** The encoded size of one object (for the report). */
export function objectBytes(shape: ScaleShape): number {
  return storedObject(shape, 0, 0).length;
}

/** Revision of object `i`'s write in `round` for every round but the last (they are numbered from 1 up). */
function earlierRevision(shape: ScaleShape, i: number, round: number): number {
  return round * shape.objects + i + 1;
}

/**
 * Before any service starts: the bucket and the change log provisioned as the storage service
 * does, and the empty bucket's next revision moved past the log's earlier rounds.
 */
export async function jumpBucket(nc: NatsConnection, bucket: string, shape: ScaleShape, windowMs: number): Promise<void> {
  await openObjectBucket(nc, { bucket, create: true });
  await ensureChangeLog(nc, bucket, { windowMs, replicas: 1 });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.purge(streamName(bucket), { seq: (shape.rounds - 1) * shape.objects + 1 });
  const { state } = await jsm.streams.info(streamName(bucket));
  if (state.first_seq !== (shape.rounds - 1) * shape.objects + 1) throw new Error(`the bucket's stream starts at ${state.first_seq} after the purge`);
}

/** The log's earlier rounds (every write but each object's last), in revision order; resolves once the log holds them. */
export async function fillEarlierRounds(nc: NatsConnection, bucket: string, shape: ScaleShape): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const before = (await jsm.streams.info(changeLogStream(bucket))).state.messages;
  const total = (shape.rounds - 1) * shape.objects;
  for (let n = 0; n < total; n++) {
    const round = Math.floor(n / shape.objects);
    const i = n % shape.objects;
    const replaced = round === 0 ? prevHeader(null) : prevHeader({ revision: earlierRevision(shape, i, round - 1) });
    logChange(nc, bucket, { key: keyOf(shape, i), revision: earlierRevision(shape, i, round), data: storedObject(shape, i, round), replaced });
    if (n % BATCH === BATCH - 1) await nc.flush();
  }
  await nc.flush();
  await logHolds(nc, bucket, before + total);
  return total;
}

/** The current revision of every object, by index, once `fillLastRound` has written it. */
export type Revisions = number[];

/**
 * The last round: each object written into the bucket with a create (as storage writes one) and its
 * log entry saying it replaced the object's previous round.
 */
export async function fillLastRound(nc: NatsConnection, bucket: string, shape: ScaleShape): Promise<Revisions> {
  const jsm = await jetstreamManager(nc);
  const before = (await jsm.streams.info(changeLogStream(bucket))).state.messages;
  const last = shape.rounds - 1;
  const revisions: Revisions = new Array<number>(shape.objects);
  const writer = bucketWriter(nc, bucket);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < shape.objects; i = next++) {
      const replaced = last === 0 ? prevHeader(null) : prevHeader({ revision: earlierRevision(shape, i, last - 1) });
      revisions[i] = await writer(keyOf(shape, i), storedObject(shape, i, last), 0, replaced);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  await nc.flush();
  await logHolds(nc, bucket, before + shape.objects);
  return revisions;
}

/** A compare-and-swap write of the bucket (as the storage service makes it) and its log entry. */
function bucketWriter(nc: NatsConnection, bucket: string): (key: string, data: Uint8Array, expected: number, replaced: string) => Promise<number> {
  const js = jetstream(nc);
  return async (key, data, expected, replaced) => {
    const h = headers();
    h.set(PubHeaders.ExpectedLastSubjectSequenceHdr, String(expected));
    const { seq } = await js.publish(keySubject(bucket, key), data, { headers: h });
    logChange(nc, bucket, { key, revision: seq, data, replaced });
    return seq;
  };
}

/**
 * Updates of the objects, round after round, at `perSecond` until stopped: the steady write load
 * a joining gateway meets. Each is a compare-and-swap over the object's revision, logged as
 * replacing it. Resolves `stop` to the writes made.
 */
export function steadyWrites(nc: NatsConnection, bucket: string, shape: ScaleShape, revisions: Revisions, perSecond: number): { stop(): Promise<number> } {
  const writer = bucketWriter(nc, bucket);
  const TICK_MS = 20;
  const started = performance.now();
  let issued = 0;
  let done = 0;
  const pending = new Set<Promise<void>>();
  const one = (n: number) => {
    const i = n % shape.objects;
    const p = writer(keyOf(shape, i), storedObject(shape, i, shape.rounds + Math.floor(n / shape.objects)), revisions[i]!, prevHeader({ revision: revisions[i]! })).then((revision) => {
      revisions[i] = revision;
      done++;
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    // Round-robin over many more objects than are ever in flight: an object's previous write has always landed.
    while (issued < due && pending.size < Math.min(IN_FLIGHT, shape.objects)) one(issued++);
  }, TICK_MS);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      await nc.flush();
      return done;
    },
  };
}

/** Waits until the change log holds `count` messages (raw publishes are not acknowledged). */
async function logHolds(nc: NatsConnection, bucket: string, count: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const until = Date.now() + 120_000;
  for (;;) {
    const { messages } = (await jsm.streams.info(changeLogStream(bucket))).state;
    if (messages >= count) return;
    if (Date.now() > until) throw new Error(`the change log holds ${messages} messages, expected ${count}: publishes were lost`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
