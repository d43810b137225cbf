// The storage contract: what the API machinery needs of the one writer of the bucket, after kine's
// `Backend`. Every write is a compare-and-swap on the bucket's global revision (the resourceVersion).
//
// Implemented over NATS by `natsStorage` (shared/bus/storage-client.ts), whose requests the storage
// service answers with `createBucketWriter` (services/storage/bucket-writer.ts), the same contract
// over the KV bucket. Callers: the generic store (shared/registry/rest/generic-store.ts), the
// Service allocator's claim records, the internal store, admission plugins that write.
//
// List and watch are not here. Each gateway keeps one KV watch on the whole bucket feeding its
// watch cache (shared/store/kv-feed.ts → shared/store/watch-cache.ts), with the change log
// (shared/store/change-log.ts) for the watch window; get/list/watch requests are answered from that
// cache (services/gateway/reads/), and the generic store reads current state through an
// `ObjectSource` over it. Services without a cache read single objects with `get`.

import type { ApiObject, ObjectRef } from '../api/types.js';
import type { Deadline } from '../api/deadline.js';
import { StatusError } from '../api/status.js';

/** The object as stored, with `metadata.resourceVersion` set to the write's revision. */
export interface StorageWriteReply {
  object: ApiObject;
  revision: number;
}

export interface StorageDeleteReply {
  /** The revision of the delete marker: the DELETED event's resourceVersion. */
  revision: number;
}

export interface StorageGetReply {
  object: ApiObject;
  revision: number;
}

/**
 * Every failure is a Status error (shared/api/status.ts); over NATS also 503 (no storage replica
 * answers) and 504 (timeout). `deadline`: the request a call serves; over NATS the call is not sent
 * past it and waits no longer (then the deadline's 504: a write already sent may still land).
 */
export interface Storage {
  /** The live object; 404 NotFound when the key is missing or deleted. Reads the latest write, never a lagging copy. */
  get(ref: ObjectRef, deadline?: Deadline): Promise<StorageGetReply>;
  /** Stores a new object (uid and creationTimestamp filled in when absent); 409 AlreadyExists when the key holds a live object. */
  create(ref: ObjectRef, object: ApiObject, deadline?: Deadline): Promise<StorageWriteReply>;
  /**
   * Replaces the object if it is still at `expectedRevision`, a revision the caller read as a live
   * object; 409 Conflict when another write got there first, 404 NotFound when it is gone.
   */
  update(ref: ObjectRef, object: ApiObject, expectedRevision: number, deadline?: Deadline): Promise<StorageWriteReply>;
  /** Removes the object; with `expectedRevision`, only if it is still at it (409 Conflict otherwise). 404 NotFound when absent. */
  delete(ref: ObjectRef, expectedRevision?: number, deadline?: Deadline): Promise<StorageDeleteReply>;
}

/** `storage.get`, with absence as undefined rather than a 404. */
export async function lookup(storage: Storage, ref: ObjectRef, deadline?: Deadline): Promise<StorageGetReply | undefined> {
  try {
    return await storage.get(ref, deadline);
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    throw err;
  }
}
