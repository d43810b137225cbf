// Keeps a service's in-memory view of some resources current from the object bucket: one KV
// watch per key filter (latest value of every key first, then every change in stream order),
// restarted after any failure. After a restart the replay is reconciled against the keys seen
// before, so a delete missed while the watch was down is still delivered: a consumer only ever
// sees upserts and deletes, never a reset. Used by services that decide from cluster state
// (authn's bootstrap and service-account lookups, authz's RBAC and node graph, admission's
// namespaces).

import type { NatsConnection } from '@nats-io/nats-core';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { ApiObject } from '../api/types.js';
import type { ObjectRef } from '../bus/messages.js';
import type { Logger } from '../log.js';
import { decodeKey, escapeToken, resourcePrefix } from './key-codec.js';

export interface FeedEvent {
  key: string;
  ref: ObjectRef;
  revision: number;
  /** The object as stored; null when it was deleted. */
  object: ApiObject | null;
}

export interface ObjectFeedOptions {
  nc: NatsConnection;
  bucket: string;
  /** KV subject filters, one watch each: see `resourceFilter` and `groupFilter`. */
  filters: string[];
  /** Called synchronously, in revision order per filter. Must not throw. */
  onEvent(e: FeedEvent): void;
  log: Logger;
  /** Delay between attempts to bind the bucket or restart a watch. */
  retryMs?: number;
}

export interface ObjectFeed {
  /** Resolves once every filter has delivered its initial state (the first time). */
  readonly synced: Promise<void>;
  /** Highest revision delivered so far across the filters. */
  revision(): number;
  /** Every watch is running. */
  healthy(): boolean;
  stop(): Promise<void>;
}

/** Every object of one resource. */
export function resourceFilter(group: string, resource: string): string {
  return `${resourcePrefix(group, resource)}>`;
}

/** Every object of every resource of one API group. */
export function groupFilter(group: string): string {
  return `${group ? escapeToken(group) : 'core'}.>`;
}

const decoder = new TextDecoder();

export function startObjectFeed(opts: ObjectFeedOptions): ObjectFeed {
  const retryMs = opts.retryMs ?? 1_000;
  const log = opts.log;
  let running = true;
  let revision = 0;
  let kv: KV | null = null;
  let binding: Promise<KV> | null = null;
  const stoppers = new Set<() => void>();
  const healthy = new Map<string, boolean>();

  const bind = (): Promise<KV> => {
    if (kv) return Promise.resolve(kv);
    binding ??= (async () => {
      const b = await new Kvm(opts.nc).open(opts.bucket, { bindOnly: true, timeout: 2_000 });
      // Binding does not look at the server; reading the stream's info proves the bucket exists.
      await b.status();
      return (kv = b);
    })().finally(() => (binding = null));
    return binding;
  };

  const deliver = (e: KvEntry): boolean => {
    let ref: ObjectRef;
    try {
      ref = decodeKey(e.key);
    } catch {
      log.warn({ key: e.key }, 'ignoring an entry with a malformed key');
      return false;
    }
    let object: ApiObject | null = null;
    if (e.operation === 'PUT') {
      try {
        const parsed = JSON.parse(decoder.decode(e.value)) as unknown;
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        object = parsed as ApiObject;
        object.metadata = { ...(object.metadata ?? {}), resourceVersion: String(e.revision) };
      } catch {
        // Delivered as a deletion: a consumer must not keep deciding from the key's older state.
        log.warn({ key: e.key }, 'an entry that is not an object is treated as deleted');
      }
    }
    if (e.revision > revision) revision = e.revision;
    opts.onEvent({ key: e.key, ref, revision: e.revision, object });
    return object !== null;
  };

  const watchOne = (filter: string): Promise<void> => {
    let markSynced!: () => void;
    const synced = new Promise<void>((r) => (markSynced = r));
    // Keys currently present, as this watch last reported them.
    let live = new Set<string>();
    healthy.set(filter, false);

    void (async () => {
      while (running) {
        try {
          const store = await bind();
          const iter = await store.watch({ key: filter });
          const stop = () => iter.stop();
          stoppers.add(stop);
          if (!running) iter.stop();
          // The number of entries in the initial replay, as the watch itself counted them.
          const info = await (iter as unknown as { _data: { info(cached: boolean): Promise<{ num_pending: number }> } })._data.info(true);
          let replaying = info.num_pending > 0;
          const seen = new Set<string>();
          const endReplay = () => {
            replaying = false;
            // Whatever was live before but not replayed was deleted while the watch was down.
            for (const key of live) if (!seen.has(key)) opts.onEvent({ key, ref: decodeKey(key), revision, object: null });
            live = seen;
            markSynced();
          };
          if (!replaying) endReplay();
          healthy.set(filter, true);
          for await (const e of iter) {
            const present = deliver(e);
            const set = replaying ? seen : live;
            if (present) set.add(e.key);
            else set.delete(e.key);
            if (replaying && (e.isUpdate || e.delta === 0)) endReplay();
          }
          stoppers.delete(stop);
          if (running) log.warn({ filter }, 'object watch ended; restarting');
        } catch (err) {
          if (running) log.warn({ err, filter, bucket: opts.bucket }, 'object watch unavailable; retrying');
        }
        healthy.set(filter, false);
        if (running) await new Promise((r) => setTimeout(r, retryMs).unref());
      }
    })();
    return synced;
  };

  const synced = Promise.all(opts.filters.map(watchOne)).then(() => undefined);
  return {
    synced,
    revision: () => revision,
    healthy: () => running && [...healthy.values()].every(Boolean),
    stop: async () => {
      running = false;
      for (const s of stoppers) s();
      stoppers.clear();
    },
  };
}
