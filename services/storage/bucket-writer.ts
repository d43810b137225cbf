// The storage verbs over the KV bucket: compare-and-swap create, update and delete, and get.
// The stored value is the object's JSON without `metadata.resourceVersion`; the revision (stream
// sequence) of the entry is the resourceVersion, set on every object handed back.

import { headers, Empty, type NatsConnection } from '@nats-io/nats-core';
import { PubHeaders } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';
import { alreadyExists, badRequest, conflict, CONFLICT_MODIFIED, notFound, requestEntityTooLarge, type GroupResource } from '../../shared/api/status.js';
import type { ApiObject, ObjectRef } from '../../shared/api/types.js';
import type { Storage, StorageDeleteReply, StorageGetReply, StorageWriteReply } from '../../shared/contracts/storage.js';
import { encodeKey } from '../../shared/store/key-codec.js';
import { keySubject, MAX_OBJECT_BYTES } from '../../shared/store/kv-bucket.js';
import { KV_OPERATION_HEADER, logChange, prevHeader } from '../../shared/store/change-log.js';
import { DEFAULT_WINDOW_MS } from '../../shared/store/watch-cache.js';
import { isWrongLastSequence, kvFailureStatus } from '../../shared/store/kv-errors.js';
import { linkOf } from '../../shared/bus/link.js';
import { checkObject, encodeStoredValue, stampForCreate, withRevision } from '../../shared/contracts/stored-value.js';
import { recentRevisions } from './recent-revisions.js';
import { publishToStream } from '../../shared/store/jetstream-request.js';

/**
 * The writes and the read over values already encoded as stored (shared/contracts/stored-value.ts):
 * what the storage service's endpoints call, writing the bytes a caller sent without parsing them.
 */
export interface EncodedStorage {
  /** The write's revision; 409 AlreadyExists when the key holds a live object. */
  createEncoded(ref: ObjectRef, data: Uint8Array): Promise<number>;
  updateEncoded(ref: ObjectRef, data: Uint8Array, expectedRevision: number): Promise<number>;
  /** The stored bytes and their revision; 404 NotFound when missing or deleted. */
  getEncoded(ref: ObjectRef): Promise<{ data: Uint8Array; revision: number }>;
}

/** The storage contract (shared/contracts/storage.ts) over the bucket, on objects and on encoded values. */
export type BucketWriter = Storage & EncodedStorage;

export interface BucketWriterDeps {
  /** Bound so that `get` reads from the stream leader (see openObjectBucket). */
  kv: KV;
  /** The writes go to the bucket's stream on it (jetstream-request.ts), then to its change log. */
  nc: NatsConnection;
  bucket: string;
  maxObjectBytes?: number;
  /**
   * The watch window: a write whose key was last written longer ago than this carries the previous
   * object (change-log.ts), so a gateway rebuilding its window from the change log can roll it back.
   */
  windowMs?: number;
  /** Clock for creationTimestamp and the previous write's age, replaceable in tests. */
  now?: () => Date;
  /** Told of every delete marker written (the compactor purges it once older than the window). */
  onMarker?: (key: string, revision: number, writtenAtMs: number) => void;
}

// Bounds the retries of a create racing deletes/purges of the same key, and of an unconditional
// delete racing updates; either only repeats when another writer got in between.
const MAX_ATTEMPTS = 5;

// eslint-disable-next-line max-lines-per-function -- a module of short closures (create, update, delete, get and their one write) sharing the bucket connection and the recent-revisions window
export function createBucketWriter(deps: BucketWriterDeps): BucketWriter {
  const { kv, nc, bucket } = deps;
  const maxBytes = deps.maxObjectBytes ?? MAX_OBJECT_BYTES;
  const now = deps.now ?? (() => new Date());
  const windowMs = deps.windowMs ?? DEFAULT_WINDOW_MS;
  const recent = recentRevisions(windowMs);

  /** The key's latest entry if it is a live object (not missing, deleted or purged). */
  async function readLive(key: string): Promise<KvEntry | null> {
    const e = await guard(() => kv.get(key));
    return e && e.operation === 'PUT' ? e : null;
  }

  /** The Status of a store failure (else `err` itself); a JetStream that did not answer has the connection probed. */
  function failure(err: unknown): unknown {
    const status = kvFailureStatus(err, maxBytes);
    if (status?.status.code === 504) void linkOf(nc).probe();
    return status ?? err;
  }

  async function guard<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw failure(err);
    }
  }

  /** An encoded value as the bucket takes it: a JSON object's bytes, within the object limit. */
  function checkValue(data: Uint8Array | null | undefined): Uint8Array {
    // 0x7b: `{`. The value is not parsed; this only refuses what cannot be an object at all.
    if (!data || data.length === 0 || data[0] !== 0x7b) throw badRequest('storage request without object');
    if (data.length > maxBytes) throw requestEntityTooLarge(`Request entity too large: the object is ${data.length} bytes, limit is ${maxBytes}`);
    return data;
  }

  async function create(ref: ObjectRef, object: ApiObject): Promise<StorageWriteReply> {
    checkRef(ref);
    checkObject(ref, object);
    const stored = stampForCreate(object, now());
    const revision = await createEncoded(ref, encodeStoredValue(stored));
    return { object: withRevision(stored, revision), revision };
  }

  async function createEncoded(ref: ObjectRef, value: Uint8Array): Promise<number> {
    const gr = checkRef(ref);
    const data = checkValue(value);
    const key = encodeKey(ref);
    // Expected last subject sequence 0 = "no message on this key". A key whose latest entry is a
    // delete marker (a tombstone kept for watchers) is free too, so retry against the marker's
    // revision; if the marker is purged meanwhile, retry against 0 again. Both stay CAS writes.
    let expected = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        return await write(key, data, expected, prevHeader(null));
      } catch (err) {
        if (!isWrongLastSequence(err)) throw failure(err);
      }
      const latest = await guard(() => kv.get(key));
      if (latest?.operation === 'PUT') throw alreadyExists(gr, ref.name);
      expected = latest ? latest.revision : 0;
    }
    throw conflict(gr, ref.name, CONFLICT_MODIFIED);
  }

  async function update(ref: ObjectRef, object: ApiObject, expectedRevision: number): Promise<StorageWriteReply> {
    checkRef(ref);
    checkObject(ref, object);
    const revision = await updateEncoded(ref, encodeStoredValue(object), expectedRevision);
    return { object: withRevision(object, revision), revision };
  }

  async function updateEncoded(ref: ObjectRef, value: Uint8Array, expectedRevision: number): Promise<number> {
    const gr = checkRef(ref);
    const data = checkValue(value);
    checkRevision(expectedRevision, 'expectedRevision');
    return writeOver(gr, ref, encodeKey(ref), data, expectedRevision);
  }

  /** A compare-and-swap over `expectedRevision`; a lost race is 404 when the object is gone meanwhile, else 409. */
  async function writeOver(gr: GroupResource, ref: ObjectRef, key: string, data: Uint8Array, expectedRevision: number, operation?: 'DEL'): Promise<number> {
    const replaces = await replacing(gr, ref, key, expectedRevision, data.length);
    try {
      return await write(key, data, expectedRevision, replaces, operation);
    } catch (err) {
      if (!isWrongLastSequence(err)) throw failure(err);
    }
    if (!(await readLive(key))) throw notFound(gr, ref.name);
    throw conflict(gr, ref.name, CONFLICT_MODIFIED);
  }

  /**
   * The change log's account of what a write at `expectedRevision` replaces (change-log.ts). The
   * contract: `expectedRevision` is a revision the caller read as a live object (the gateways'
   * caches hold only live objects), so the CAS cannot land on a delete marker. When that revision
   * is certainly within the watch window the log needs no more than the number, and the write
   * makes no read. Otherwise the entry is read: the log must carry an older object itself, and
   * the read also refuses a revision that is not the live one, whoever the caller.
   */
  async function replacing(gr: GroupResource, ref: ObjectRef, key: string, expectedRevision: number, bytes: number): Promise<string> {
    if (recent.writtenWithin(expectedRevision, now().getTime())) return prevHeader({ revision: expectedRevision });
    const current = await readLive(key);
    if (!current) throw notFound(gr, ref.name);
    if (current.revision !== expectedRevision) throw conflict(gr, ref.name, CONFLICT_MODIFIED);
    return replaced(current, bytes);
  }

  async function remove(ref: ObjectRef, expectedRevision?: number): Promise<StorageDeleteReply> {
    const gr = checkRef(ref);
    const key = encodeKey(ref);
    if (expectedRevision !== undefined && expectedRevision !== null) {
      checkRevision(expectedRevision, 'expectedRevision');
      return { revision: await writeOver(gr, ref, key, Empty, expectedRevision, 'DEL') };
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Read first: the write must replace a live object (a marker over a missing or deleted key
      // would be a DELETED event for nothing), and it is a CAS, so it never lands on a re-created
      // object blindly; when someone wrote in between, it deletes whatever is there now.
      const current = await readLive(key);
      if (!current) throw notFound(gr, ref.name);
      try {
        return { revision: await write(key, Empty, current.revision, replaced(current, 0), 'DEL') };
      } catch (err) {
        if (!isWrongLastSequence(err)) throw failure(err);
      }
    }
    throw conflict(gr, ref.name, CONFLICT_MODIFIED);
  }

  /**
   * Every write goes through here: the bucket's message for `key` as @nats-io/kv would publish it
   * (a delete marker is an empty body with `KV-Operation: DEL`), made a CAS by the expected last
   * subject sequence, then logged with what it replaced (change-log.ts). Answers the write's
   * revision (KV.delete resolves to nothing, but callers need a marker's revision: the DELETED
   * event's resourceVersion).
   */
  async function write(key: string, data: Uint8Array, previous: number, replaced: string, operation?: 'DEL'): Promise<number> {
    const h = headers();
    if (operation) h.set(KV_OPERATION_HEADER, operation);
    h.set(PubHeaders.ExpectedLastSubjectSequenceHdr, String(previous));
    const sentAt = now().getTime();
    const seq = await publishToStream(nc, keySubject(bucket, key), data, h);
    recent.record(seq, sentAt);
    if (operation) deps.onMarker?.(key, seq, now().getTime());
    logChange(nc, bucket, { key, revision: seq, data, replaced, ...(operation ? { operation } : {}) });
    return seq;
  }

  /**
   * What an update or delete replaces: the live entry's revision, and the object itself when the
   * change log may no longer hold it (written longer than the window ago) and carrying it keeps
   * the message within the object limit.
   */
  function replaced(current: KvEntry, bytes: number): string {
    let json: string | undefined;
    if (now().getTime() - current.created.getTime() >= windowMs && current.value.length + bytes <= maxBytes) {
      json = Buffer.from(current.value.buffer, current.value.byteOffset, current.value.byteLength).toString('utf8');
      // A header value is one line; stored JSON never holds a raw line break, but it is checked.
      if (/[\r\n]/.test(json)) json = undefined;
    }
    return prevHeader({ revision: current.revision, json });
  }

  async function getEncoded(ref: ObjectRef): Promise<{ data: Uint8Array; revision: number }> {
    const gr = checkRef(ref);
    const entry = await readLive(encodeKey(ref));
    if (!entry) throw notFound(gr, ref.name);
    return { data: entry.value, revision: entry.revision };
  }

  async function get(ref: ObjectRef): Promise<StorageGetReply> {
    const { data, revision } = await getEncoded(ref);
    return { object: withRevision(JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as ApiObject, revision), revision };
  }

  return { create, update, delete: remove, get, createEncoded, updateEncoded, getEncoded };
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

/** Validates a request's ref (it comes off the wire) and returns its group-resource. */
export function checkRef(ref: ObjectRef | undefined): GroupResource {
  if (!ref || typeof ref !== 'object') throw badRequest('storage request without ref');
  if (typeof ref.group !== 'string') throw badRequest('ref.group must be a string ("" for the core group)');
  if (!nonEmpty(ref.resource)) throw badRequest('ref.resource is required');
  if (!nonEmpty(ref.name)) throw badRequest('ref.name is required');
  if (ref.namespace !== undefined && ref.namespace !== null && typeof ref.namespace !== 'string') throw badRequest('ref.namespace must be a string');
  return { group: ref.group, resource: ref.resource };
}

function checkRevision(v: unknown, field: string): void {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) throw badRequest(`${field} must be a positive integer revision`);
}
