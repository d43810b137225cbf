// One object read through the storage service, for services that judge a request by an object's
// current state without keeping it in memory (the pod a node evicts or asks a token for, the
// Node a mirror pod names as its owner) or that must confirm what their in-memory view says
// (authn's service-account lookups, whose feed trails writes by a moment).

import type { NatsConnection } from '@nats-io/nats-core';
import { StatusError } from '../api/status.js';
import type { ApiObject, ObjectRef } from '../api/types.js';
import { busRequest } from './client.js';
import type { StorageGetReply, StorageGetRequest } from './messages.js';
import { Subjects } from './subjects.js';

/** The stored object, or null when it does not exist; any other failure is thrown as a Status. */
export type ObjectReader = (ref: ObjectRef) => Promise<ApiObject | null>;

/** How long one read may take before the caller gives up (and refuses what it was checking). */
export const LIVE_READ_TIMEOUT_MS = 2_000;

export function storageReader(nc: NatsConnection, timeoutMs = LIVE_READ_TIMEOUT_MS): ObjectReader {
  return async (ref) => {
    try {
      const reply = await busRequest<StorageGetReply>(nc, Subjects.storageGet, { ref } satisfies StorageGetRequest, timeoutMs);
      return reply.object;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return null;
      throw err;
    }
  };
}
