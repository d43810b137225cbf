// The storage contract (shared/contracts/storage.ts) over NATS: each call is one request to the
// storage service (services/storage/service.ts), which answers it with the bucket writer. No
// responders is 503, no reply in time 504, an error reply the Status it carries (client.ts). A call
// made for a request with a deadline is not sent past it and waits no longer than what remains.
//
// The bodies are protobuf (storage-messages.ts). The object is encoded here once, as the bucket
// stores it (shared/contracts/stored-value.ts: uid and creationTimestamp set on create, no
// resourceVersion), and storage writes those bytes without parsing them; a write's reply is its
// revision, which the object handed back gets as its resourceVersion.

import type { NatsConnection } from '@nats-io/nats-core';
import type { ApiObject, ObjectRef } from '../api/types.js';
import type { Storage, StorageWriteReply } from '../contracts/storage.js';
import { checkObject, encodeStoredValue, stampForCreate, withRevision } from '../contracts/stored-value.js';
import { busRequestBytes, DEFAULT_BUS_TIMEOUT_MS } from './client.js';
import { uint64, type BusType } from './codec.js';
import { StorageMessages as M } from './storage-messages.js';
import { Subjects } from './subjects.js';

const decoder = new TextDecoder();

/** The stored object a get's reply carries. */
const decodeStoredValue = (data: Uint8Array): ApiObject => JSON.parse(decoder.decode(data)) as ApiObject;

/** The storage service, each request given `timeoutMs` to answer. */
export function natsStorage(nc: NatsConnection, timeoutMs = DEFAULT_BUS_TIMEOUT_MS): Storage {
  const call = async <Req, Res>(subject: string, req: BusType<Req>, body: Req, res: BusType<Res>, deadline: Parameters<Storage['get']>[1]): Promise<Res> =>
    res.decode(await busRequestBytes(nc, subject, req.encode(body), timeoutMs, deadline));
  const write = async (subject: string, ref: ObjectRef, object: ApiObject, expectedRevision: number | undefined, deadline: Parameters<Storage['get']>[1]): Promise<StorageWriteReply> => {
    const objectJson = encodeStoredValue(object);
    const reply =
      expectedRevision === undefined
        ? await call(subject, M.createRequest, { ref, objectJson }, M.writeReply, deadline)
        : await call(subject, M.updateRequest, { ref, objectJson, expectedRevision }, M.writeReply, deadline);
    const revision = uint64(reply.revision);
    return { object: withRevision(object, revision), revision };
  };
  return {
    async get(ref, deadline) {
      const reply = await call(Subjects.storageGet, M.getRequest, { ref }, M.getReply, deadline);
      const revision = uint64(reply.revision);
      return { object: withRevision(decodeStoredValue(reply.objectJson), revision), revision };
    },
    async create(ref, object, deadline) {
      checkObject(ref, object);
      return write(Subjects.storageCreate, ref, stampForCreate(object, new Date()), undefined, deadline);
    },
    async update(ref, object, expectedRevision, deadline) {
      checkObject(ref, object);
      return write(Subjects.storageUpdate, ref, object, expectedRevision, deadline);
    },
    async delete(ref, expectedRevision, deadline) {
      const reply = await call(Subjects.storageDelete, M.deleteRequest, expectedRevision === undefined ? { ref } : { ref, expectedRevision }, M.deleteReply, deadline);
      return { revision: uint64(reply.revision) };
    },
  };
}
