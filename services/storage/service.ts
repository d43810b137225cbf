// The storage service: the only writer of the object bucket. Provisions the bucket, answers the
// storage subjects (create/update/delete/get, in the `platform-storage` queue group so replicas
// share the load), compacts old delete markers and keeps the bucket's consumers to what
// consumer-rules.ts allows (consumer-warden.ts).

import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { ServiceName, Subjects } from '../../shared/bus/subjects.js';
import { protoEndpoint, startJsonService } from '../../shared/bus/service.js';
import { StorageMessages as M } from '../../shared/bus/storage-messages.js';
import { uint64 } from '../../shared/bus/codec.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { MAX_VALUE_BYTES, openObjectBucket } from '../../shared/store/kv-bucket.js';
import { createBucketWriter, type BucketWriter } from './bucket-writer.js';
import { checkCompactorTiming, startMarkerCompactor } from './marker-compactor.js';
import { ensureChangeLog } from '../../shared/store/change-log.js';
import { waitForJetStream } from '../../shared/store/wait-for-jetstream.js';
import { DEFAULT_WINDOW_MS } from '../../shared/store/watch-cache.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { instrumentBus } from '../../shared/bus/client.js';
import { BusMetrics } from '../../shared/bus/metrics.js';
import { MetricsRegistry } from '../../shared/metrics/registry.js';
import { StorageMetrics } from './metrics.js';
import { ConsumerWarden } from './consumer-warden.js';
import { streamName } from '../../shared/bus/streams.js';

export const STORAGE_SERVICE_VERSION = '0.1.0';

/** The watch window: how long delete markers stay for resuming watchers. */
export const DEFAULT_DELETE_MARKER_TTL_MS = 5 * 60_000;
export const DEFAULT_PURGE_INTERVAL_MS = 60_000;

export interface StorageServiceDeps {
  nc: NatsConnection;
  bucket?: string;
  replicas?: number;
  /** The gateways' watch window, which the change log covers (change-log.ts). */
  watchWindowMs?: number;
  deleteMarkerTtlMs?: number;
  purgeIntervalMs?: number;
  log?: Logger;
  /** Where the operations are counted (main.ts serves it at /metrics); default: a registry of its own. */
  metrics?: MetricsRegistry;
  /** How long start-up waits for JetStream to provision the bucket and the change log (default a minute). */
  startDeadlineMs?: number;
}

export interface StorageService {
  kv: KV;
  store: BucketWriter;
  /** Runs one delete-marker compaction pass now (the timer runs them periodically). */
  compact(): Promise<number>;
  stop(): Promise<void>;
}

export async function createStorageService(deps: StorageServiceDeps): Promise<StorageService> {
  const { nc } = deps;
  const bucket = deps.bucket ?? DEFAULT_BUCKET;
  const log = deps.log ?? silentLogger();

  const ttlMs = deps.deleteMarkerTtlMs ?? DEFAULT_DELETE_MARKER_TTL_MS;
  const intervalMs = deps.purgeIntervalMs ?? DEFAULT_PURGE_INTERVAL_MS;
  // Before anything touches NATS: a TTL of 0 would purge what resuming watchers need.
  if (deps.watchWindowMs !== undefined && !(deps.watchWindowMs > 0 && Number.isFinite(deps.watchWindowMs)))
    throw new RangeError(`watch window must be a positive duration, got ${deps.watchWindowMs} ms`);
  if (!(ttlMs > 0)) throw new RangeError(`delete-marker TTL must be positive, got ${ttlMs} ms`);
  checkCompactorTiming(ttlMs, intervalMs);

  const maxPayload = nc.info?.max_payload;
  if (maxPayload !== undefined && maxPayload < MAX_VALUE_BYTES) {
    log.warn({ maxPayload, needed: MAX_VALUE_BYTES }, 'NATS max_payload is below the object size limit; large objects will be refused with 413 (raise max_payload in the server configuration)');
  }

  const windowMs = deps.watchWindowMs ?? DEFAULT_WINDOW_MS;
  const replicas = deps.replicas ?? 1;
  const onConfigDrift = (message: string) => log.warn({ bucket }, message);
  // Both steps are idempotent, so a retry after a half-done attempt just repeats them.
  const provision = async () => {
    const kv = await openObjectBucket(nc, { bucket, create: true, replicas, onConfigDrift });
    await ensureChangeLog(nc, bucket, { windowMs, replicas, onConfigDrift });
    return kv;
  };
  const kv = await waitForJetStream(nc, provision, { what: `provision bucket ${bucket}`, log, ...(deps.startDeadlineMs !== undefined ? { deadlineMs: deps.startDeadlineMs } : {}) });
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const compactor = startMarkerCompactor({ kv, jsm, bucket, ttlMs, intervalMs, log });
  const store = createBucketWriter({ kv, nc, bucket, windowMs, onMarker: compactor.noteMarker });
  const registry = deps.metrics ?? new MetricsRegistry();
  const metrics = new StorageMetrics(registry, kv, bucket);
  instrumentBus(nc, new BusMetrics(registry));
  const warden = new ConsumerWarden({ nc, jsm, stream: streamName(bucket), log, metrics: registry });
  warden.start();

  const service = await startJsonService(nc, {
    name: ServiceName.storage,
    version: STORAGE_SERVICE_VERSION,
    description: 'object store: compare-and-swap writes to the revisioned KV bucket',
    endpoints: [
      // The object's bytes are written as they came (shared/contracts/stored-value.ts): never parsed here.
      protoEndpoint(Subjects.storageCreate, M.createRequest, M.writeReply, (req) => metrics.time('create', req.ref, async () => ({ revision: await store.createEncoded(req.ref, req.objectJson) }))),
      protoEndpoint(Subjects.storageUpdate, M.updateRequest, M.writeReply, (req) =>
        metrics.time('update', req.ref, async () => ({ revision: await store.updateEncoded(req.ref, req.objectJson, uint64(req.expectedRevision)) })),
      ),
      protoEndpoint(Subjects.storageDelete, M.deleteRequest, M.deleteReply, (req) => metrics.time('delete', req.ref, () => store.delete(req.ref, uint64(req.expectedRevision) || undefined))),
      protoEndpoint(Subjects.storageGet, M.getRequest, M.getReply, (req) =>
        metrics.time('get', req.ref, async () => {
          const { data, revision } = await store.getEncoded(req.ref);
          return { objectJson: data, revision };
        }),
      ),
    ],
    log,
  });

  log.info({ bucket, service: ServiceName.storage }, 'storage service started');
  return {
    kv,
    store,
    compact: () => compactor.runOnce(),
    async stop() {
      // Answers what it took before the caller drains the connection.
      await service.stop();
      await compactor.stop();
      await warden.stop();
    },
  };
}
