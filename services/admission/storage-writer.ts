// Writes a plugin makes through the storage service (the one writer of the bucket): ResourceQuota
// charges usage to the quota's status with the revision it read (a lost race is a 409 the plugin
// retries from a fresh read), NamespaceAutoProvision creates the namespace a request names.

import type { NatsConnection } from '@nats-io/nats-core';
import type { ApiObject, ObjectRef } from '../../shared/api/types.js';
import { busRequest } from '../../shared/bus/client.js';
import type { StorageCreateRequest, StorageUpdateRequest, StorageWriteReply } from '../../shared/bus/messages.js';
import { Subjects } from '../../shared/bus/subjects.js';

export interface StorageWriter {
  /** Stores a new object; 409 AlreadyExists when the key is taken. */
  create(ref: ObjectRef, object: ApiObject): Promise<StorageWriteReply>;
  /** Replaces the object if it is still at `expectedRevision`; 409 Conflict otherwise. */
  update(ref: ObjectRef, object: ApiObject, expectedRevision: number): Promise<StorageWriteReply>;
}

export function storageWriter(nc: NatsConnection, timeoutMs: number): StorageWriter {
  return {
    create: (ref, object) => busRequest<StorageWriteReply>(nc, Subjects.storageCreate, { ref, object } satisfies StorageCreateRequest, timeoutMs),
    update: (ref, object, expectedRevision) => busRequest<StorageWriteReply>(nc, Subjects.storageUpdate, { ref, object, expectedRevision } satisfies StorageUpdateRequest, timeoutMs),
  };
}
