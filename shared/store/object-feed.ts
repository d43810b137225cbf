// Keeps a service's in-memory view of some resources current from the object bucket, as parsed
// objects, on the shared restartable feed (kv-feed.ts). After a restart the replay is reconciled
// against the keys seen before, so a delete missed while the watch was down is still delivered: a
// consumer only ever sees upserts and deletes, never a reset. Used by services that decide from cluster state
// (authn's bootstrap and service-account lookups, authz's RBAC and node graph, admission's
// namespaces).

import type { NatsConnection } from '@nats-io/nats-core';
import type { KvEntry } from '@nats-io/kv';
import type { ApiObject, ObjectRef } from '../api/types.js';
import type { Logger } from '../log.js';
import { decodeKey, escapeToken, resourcePrefix } from './key-codec.js';
import { bindBucket, startKvFeed } from './kv-feed.js';

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
  const log = opts.log;
  let revision = 0;
  // Keys currently present per filter, as last reported to the consumer.
  const live = new Map<string, Set<string>>(opts.filters.map((f) => [f, new Set<string>()]));

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

  const track = (filter: string, e: KvEntry) => {
    const keys = live.get(filter)!;
    if (deliver(e)) keys.add(e.key);
    else keys.delete(e.key);
  };

  const feed = startKvFeed({
    kv: bindBucket(opts.nc, opts.bucket),
    filters: opts.filters,
    log,
    ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
    onEntry: (e, filter) => track(filter, e),
    onResync(filter, replay) {
      // A consumer only ever sees upserts and deletes, never a reset: replay what is there, then
      // delete whatever was live before but is gone now (deleted while the watch was down).
      const before = live.get(filter)!;
      live.set(filter, new Set());
      for (const e of replay) track(filter, e);
      const now = live.get(filter)!;
      for (const key of before) if (!now.has(key)) opts.onEvent({ key, ref: decodeKey(key), revision, object: null });
    },
  });

  return {
    synced: feed.synced,
    revision: () => revision,
    healthy: feed.healthy,
    stop: feed.stop,
  };
}
