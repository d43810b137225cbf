// One object read through the storage service, for plugins that judge a request by another
// object's current state (the pod a node evicts or asks a token for, the Node a mirror pod names
// as its owner). These are rare requests, so a live read beats keeping a cache of every pod.

import type { NatsConnection } from '@nats-io/nats-core';
import { StatusError } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import { busRequest } from '../../shared/bus/client.js';
import type { ObjectRef, StorageGetReply, StorageGetRequest } from '../../shared/bus/messages.js';
import { Subjects } from '../../shared/bus/subjects.js';

/** The stored object, or null when it does not exist; any other failure is thrown as a Status. */
export type ObjectReader = (ref: ObjectRef) => Promise<ApiObject | null>;

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
