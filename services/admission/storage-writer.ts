// Writes a plugin makes through the storage service (the one writer of the bucket): ResourceQuota
// charges usage to the quota's status with the revision it read (a lost race is a 409 the plugin
// retries from a fresh read), NamespaceAutoProvision creates the namespace a request names.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Storage } from '../../shared/contracts/storage.js';
import { natsStorage } from '../../shared/bus/storage-client.js';

/** The writes of the storage interface (shared/contracts/storage.ts) that plugins make. */
export type StorageWriter = Pick<Storage, 'create' | 'update'>;

export function storageWriter(nc: NatsConnection, timeoutMs: number): StorageWriter {
  const storage = natsStorage(nc, timeoutMs);
  return { create: (ref, object) => storage.create(ref, object), update: (ref, object, expectedRevision) => storage.update(ref, object, expectedRevision) };
}
