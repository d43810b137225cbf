// Objects the cluster always has: the system namespaces. Created through the storage service
// once the cache is synced; several gateways racing to create them is harmless (409 ignored).

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { StatusError } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import { NODE_LEASE_NAMESPACE } from '../../shared/api/node-identity.js';
import { busRequest } from '../../shared/bus/client.js';
import { Subjects } from '../../shared/bus/subjects.js';
import type { StorageWriteReply } from '../../shared/bus/messages.js';
import { resourceKey, type WatchCache } from '../../shared/store/watch-cache.js';
import { nowTimestamp } from './object-prep.js';

export const SYSTEM_NAMESPACES = ['default', 'platform-system', 'platform-public', NODE_LEASE_NAMESPACE] as const;
export const NAMESPACE_NAME_LABEL = 'platform.io/metadata.name';

export function systemNamespace(name: string, now: string): ApiObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, creationTimestamp: now, labels: { [NAMESPACE_NAME_LABEL]: name } },
    spec: { finalizers: ['platform'] },
    status: { phase: 'Active' },
  };
}

export async function ensureSystemNamespaces(nc: NatsConnection, cache: WatchCache, log: Logger, timeoutMs = 5_000): Promise<void> {
  const key = resourceKey('', 'namespaces');
  for (const name of SYSTEM_NAMESPACES) {
    if (cache.get(key, undefined, name)) continue;
    try {
      await busRequest<StorageWriteReply>(nc, Subjects.storageCreate, { ref: { group: '', resource: 'namespaces', name }, object: systemNamespace(name, nowTimestamp()) }, timeoutMs);
      log.info({ namespace: name }, 'created system namespace');
    } catch (err) {
      if (err instanceof StatusError && err.status.reason === 'AlreadyExists') continue;
      throw err;
    }
  }
}
