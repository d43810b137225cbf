// The object as the bucket stores it: its JSON without `metadata.resourceVersion` (the entry's
// revision is that), with uid and creationTimestamp set on create. Made by whoever hands an object
// to storage (the storage client, shared/bus/storage-client.ts, or the bucket writer called in
// process), so the storage service writes the bytes it receives without parsing them.

import { randomUUID } from 'node:crypto';
import { badRequest } from '../api/status.js';
import { formatTime } from '../api/time.js';
import type { ApiObject, ObjectRef } from '../api/types.js';

/** Refuses an object that is not one, or whose name or namespace is not its ref's. */
export function checkObject(ref: ObjectRef, object: ApiObject | undefined): void {
  if (!object || typeof object !== 'object' || Array.isArray(object)) throw badRequest('storage request without object');
  if (!object.metadata || typeof object.metadata !== 'object') throw badRequest('object.metadata is required');
  // A mismatch would store an object under another object's key: a caller bug, refused loudly.
  if (object.metadata.name !== undefined && object.metadata.name !== ref.name) {
    throw badRequest(`metadata.name ${JSON.stringify(object.metadata.name)} does not match ${JSON.stringify(ref.name)}`);
  }
  const ns = ref.namespace || undefined;
  if (object.metadata.namespace && object.metadata.namespace !== ns) {
    throw badRequest(`metadata.namespace ${JSON.stringify(object.metadata.namespace)} does not match ${JSON.stringify(ns ?? '')}`);
  }
}

/** A new object as created: uid and creationTimestamp filled in when absent. */
export function stampForCreate(object: ApiObject, now: Date): ApiObject {
  const metadata = { ...object.metadata };
  metadata.uid ??= randomUUID();
  metadata.creationTimestamp ??= formatTime(now);
  return { ...object, metadata };
}

/** The bytes stored: the object's JSON without its resourceVersion. */
export function encodeStoredValue(object: ApiObject): Uint8Array {
  const { resourceVersion: _omit, ...metadata } = object.metadata;
  // Buffer.from: several times faster than TextEncoder.encode for object-sized strings.
  return Buffer.from(JSON.stringify({ ...object, metadata }), 'utf8');
}

/** The object as handed back: its resourceVersion is the revision of its last write. */
export function withRevision(object: ApiObject, revision: number): ApiObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
}
