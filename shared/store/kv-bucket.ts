// Opening the one JetStream KV bucket that holds every object. The storage service provisions it
// (`create: true`); the gateway's watch cache and other readers bind to it without creating it.
// Also the stream-level facts readers need: the stream's name and its last revision.

import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { isStreamNotFound } from './kv-errors.js';
import { DEFAULT_BUCKET } from '../api/groups.js';
import { streamName } from '../bus/streams.js';
import { DEFAULT_BUS_TIMEOUT_MS } from '../bus/client.js';
import { jetStreamRequest } from './jetstream-request.js';

const EMPTY = new Uint8Array(0);

/** Largest stored object (the encoded value), as with the upstream API server's etcd limit. */
export const MAX_OBJECT_BYTES = 1_572_864;

/**
 * The stream's max message size: the object limit plus room for headers, so that an object at
 * the limit is accepted by JetStream and the 413 comes from our own check, with a clear message.
 */
export const MAX_VALUE_BYTES = 2 * 1024 * 1024;

export interface OpenBucketOptions {
  bucket?: string;
  /** Provision the bucket when missing (storage service only). */
  create?: boolean;
  /** Stream replicas when the bucket is created (R3 in a cluster). */
  replicas?: number;
  /**
   * Read entries with direct get, which any replica may answer (possibly lagging behind the
   * leader). Off by default: `get` then goes to the stream leader, so a read after a write sees
   * it, which the storage service's CAS decisions rely on.
   */
  directGet?: boolean;
  /** Told about an existing bucket whose configuration differs from what we would create. */
  onConfigDrift?: (message: string) => void;
}

export class BucketNotFoundError extends Error {
  override name = 'BucketNotFoundError';
}

/** The subject a key's messages are stored under (no JetStream domain/API prefix is used). */
export function keySubject(bucket: string, key: string): string {
  return `$KV.${bucket}.${key}`;
}

// Managers without the account-info probe: building one does no I/O; one per connection.
const managers = new WeakMap<NatsConnection, JetStreamManager>();
async function manager(nc: NatsConnection): Promise<JetStreamManager> {
  let jsm = managers.get(nc);
  if (!jsm) {
    jsm = await jetstreamManager(nc, { checkAPI: false });
    managers.set(nc, jsm);
  }
  return jsm;
}

export async function openObjectBucket(nc: NatsConnection, opts: OpenBucketOptions = {}): Promise<KV> {
  const bucket = opts.bucket ?? DEFAULT_BUCKET;
  const kvm = new Kvm(nc);
  const jsm = await manager(nc);
  if (opts.create) {
    const replicas = opts.replicas ?? 1;
    // Kvm.create opens an existing bucket as it is; it never reconfigures it.
    await kvm.create(bucket, { history: 1, storage: StorageType.File, replicas, maxValueSize: MAX_VALUE_BYTES });
    const info = await jsm.streams.info(streamName(bucket));
    const cfg = info.config;
    if (cfg.max_msg_size !== -1 && cfg.max_msg_size < MAX_VALUE_BYTES) {
      // Widening is safe and without it objects near the limit would be refused by JetStream.
      await jsm.streams.update(cfg.name, { ...cfg, max_msg_size: MAX_VALUE_BYTES });
      opts.onConfigDrift?.(`raised max value size of bucket ${bucket} from ${cfg.max_msg_size} to ${MAX_VALUE_BYTES} bytes`);
    }
    if (cfg.max_msgs_per_subject !== 1) opts.onConfigDrift?.(`bucket ${bucket} keeps ${cfg.max_msgs_per_subject} revisions per key (expected 1)`);
    if (cfg.num_replicas !== replicas) opts.onConfigDrift?.(`bucket ${bucket} has ${cfg.num_replicas} replicas (configured ${replicas})`);
  } else {
    try {
      await jsm.streams.info(streamName(bucket));
    } catch (err) {
      if (isStreamNotFound(err)) throw new BucketNotFoundError(`KV bucket ${bucket} does not exist (the storage service creates it)`, { cause: err });
      throw err;
    }
  }
  // A binding (not the handle from create) so that how reads are routed is our choice, not a
  // consequence of whether the stream allows direct gets.
  return kvm.open(bucket, { allow_direct: opts.directGet ?? false });
}

interface StreamInfoReply {
  state?: { last_seq: number };
}

/**
 * The stream's last sequence = the newest revision written, answered by the stream leader
 * (STREAM.INFO), never by a possibly lagging direct-get replica. Purges do not lower it. Every
 * consistent read asks it, so it goes through the bus's request mux (jetstream-request.ts) rather than
 * the JetStream manager; failures are the errors kv-errors.ts reads (timeout, no responders).
 */
export async function lastRevision(nc: NatsConnection, bucket: string = DEFAULT_BUCKET, timeoutMs = DEFAULT_BUS_TIMEOUT_MS): Promise<number> {
  const reply = await jetStreamRequest<StreamInfoReply>(nc, `$JS.API.STREAM.INFO.${streamName(bucket)}`, EMPTY, timeoutMs);
  if (typeof reply.state?.last_seq !== 'number') throw new Error(`STREAM.INFO of ${streamName(bucket)} carried no last sequence`);
  return reply.state.last_seq;
}
