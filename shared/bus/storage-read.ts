// One object read through the storage service, for services that judge a request by an object's
// current state without keeping it in memory (the pod a node evicts or asks a token for, the
// Node a mirror pod names as its owner) or that must confirm what their in-memory view says
// (authn's service-account lookups, whose feed trails writes by a moment).

import type { NatsConnection } from '@nats-io/nats-core';
import type { ApiObject, ObjectRef } from '../api/types.js';
import { lookup } from '../contracts/storage.js';
import { natsStorage } from './storage-client.js';

/** The stored object, or null when it does not exist; any other failure is thrown as a Status. */
export type ObjectReader = (ref: ObjectRef) => Promise<ApiObject | null>;

/** How long one read may take before the caller gives up (and refuses what it was checking). */
export const LIVE_READ_TIMEOUT_MS = 2_000;

export function storageReader(nc: NatsConnection, timeoutMs = LIVE_READ_TIMEOUT_MS): ObjectReader {
  const storage = natsStorage(nc, timeoutMs);
  return async (ref) => (await lookup(storage, ref))?.object ?? null;
}
