// The storage subjects' protobuf messages (proto/bus/v1/storage.proto), one type per body.

import { busType } from './codec.js';
import type { StorageCreateRequest, StorageDeleteRequest, StorageGetMessage, StorageGetRequest, StorageRevisionMessage, StorageUpdateRequest } from './messages.js';

export const StorageMessages = {
  createRequest: busType<StorageCreateRequest>('StorageCreateRequest'),
  updateRequest: busType<StorageUpdateRequest>('StorageUpdateRequest'),
  deleteRequest: busType<StorageDeleteRequest>('StorageDeleteRequest'),
  getRequest: busType<StorageGetRequest>('StorageGetRequest'),
  writeReply: busType<StorageRevisionMessage>('StorageWriteReply'),
  deleteReply: busType<StorageRevisionMessage>('StorageDeleteReply'),
  getReply: busType<StorageGetMessage>('StorageGetReply'),
} as const;
