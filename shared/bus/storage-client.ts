// The storage contract (shared/contracts/storage.ts) over NATS: each call is one request to the
// storage service (services/storage/service.ts), which answers it with the bucket writer. No
// responders is 503, no reply in time 504, an error reply the Status it carries (client.ts). A call
// made for a request with a deadline is not sent past it and waits no longer than what remains.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Storage, StorageDeleteReply, StorageGetReply, StorageWriteReply } from '../contracts/storage.js';
import { busRequest, DEFAULT_BUS_TIMEOUT_MS } from './client.js';
import type { StorageCreateRequest, StorageDeleteRequest, StorageGetRequest, StorageUpdateRequest } from './messages.js';
import { Subjects } from './subjects.js';

/** The storage service, each request given `timeoutMs` to answer. */
export function natsStorage(nc: NatsConnection, timeoutMs = DEFAULT_BUS_TIMEOUT_MS): Storage {
  return {
    get: (ref, deadline) => busRequest<StorageGetReply>(nc, Subjects.storageGet, { ref } satisfies StorageGetRequest, timeoutMs, deadline),
    create: (ref, object, deadline) => busRequest<StorageWriteReply>(nc, Subjects.storageCreate, { ref, object } satisfies StorageCreateRequest, timeoutMs, deadline),
    update: (ref, object, expectedRevision, deadline) =>
      busRequest<StorageWriteReply>(nc, Subjects.storageUpdate, { ref, object, expectedRevision } satisfies StorageUpdateRequest, timeoutMs, deadline),
    delete: (ref, expectedRevision, deadline) => {
      const request: StorageDeleteRequest = expectedRevision === undefined ? { ref } : { ref, expectedRevision };
      return busRequest<StorageDeleteReply>(nc, Subjects.storageDelete, request, timeoutMs, deadline);
    },
  };
}
