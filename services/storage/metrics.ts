// What the storage service's /metrics shows besides the process's own metrics: the latency of each
// storage operation per object type — this service's equivalent of upstream's
// etcd_request_duration_seconds — and the bucket's size, read from JetStream when scraped.

import type { KV } from '@nats-io/kv';
import type { ObjectRef } from '../../shared/api/types.js';
import { SeriesIndex, type HistogramCell } from '../../shared/metrics/families.js';
import type { MetricsRegistry } from '../../shared/metrics/registry.js';
import { StabilityLevel } from '../../shared/metrics/stability.js';
import { withTimeout } from '../../shared/ground/with-timeout.js';

export type StorageOperation = 'create' | 'update' | 'delete' | 'get';

// KV operations take a millisecond or less; etcd's buckets (5 ms first) would put them all in one.
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 15, 30, 60];

export class StorageMetrics {
  /** Cells by operation, group and resource: no key string built per request. */
  private readonly cells: SeriesIndex<HistogramCell>;
  private readonly key = ['', '', ''];

  constructor(registry: MetricsRegistry, kv: KV, bucket: string) {
    const operations = registry.histogram({
      name: 'platform_storage_operation_duration_seconds',
      help: "Storage operation latency in seconds for each operation and object type (the storage service's etcd_request_duration_seconds).",
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['operation', 'type'],
      buckets: BUCKETS,
    });
    // Upstream's type label names the object type; here its group-resource (`deployments.apps`).
    this.cells = new SeriesIndex(3, ([op, group, resource]) => operations.with([op!, group ? `${resource}.${group}` : resource!]));
    // Both gauges read one status per scrape (the registry reads its metrics concurrently).
    let status: Promise<{ size: number; values: number } | undefined> | undefined;
    const read = () => {
      if (!status) {
        status = bucketStatus(kv);
        void status.then(() => (status = undefined));
      }
      return status;
    };
    const size = registry.gauge({
      name: 'platform_storage_bucket_size_bytes',
      help: "Bytes the object bucket's stream holds (live objects, delete markers, history), at the time of the scrape.",
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['bucket'],
      collect: async () => {
        const s = await read();
        if (s) size.with([bucket]).set(s.size);
      },
    });
    const values = registry.gauge({
      name: 'platform_storage_bucket_values',
      help: "Entries the object bucket's stream holds (live objects, delete markers, history), at the time of the scrape.",
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['bucket'],
      collect: async () => {
        const s = await read();
        if (s) values.with([bucket]).set(s.values);
      },
    });
  }

  /** Runs one operation on `ref` and observes how long it took, failed or not. */
  async time<T>(operation: StorageOperation, ref: ObjectRef | undefined, run: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await run();
    } finally {
      this.cell(operation, ref).observe((performance.now() - start) / 1000);
    }
  }

  private cell(operation: StorageOperation, ref: ObjectRef | undefined): HistogramCell {
    this.key[0] = operation;
    this.key[1] = typeof ref?.group === 'string' ? ref.group : '';
    this.key[2] = typeof ref?.resource === 'string' ? ref.resource : '';
    return this.cells.get(this.key);
  }
}

/** The bucket's size, or nothing when JetStream does not answer in time (the rest of the scrape still works). */
async function bucketStatus(kv: KV): Promise<{ size: number; values: number } | undefined> {
  try {
    const status = await withTimeout(kv.status(), 2_000);
    return { size: status.size, values: status.values };
  } catch {
    return undefined;
  }
}
