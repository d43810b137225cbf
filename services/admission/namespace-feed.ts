// Keeps a NamespaceCache current from the object bucket: one KV watch on `core.namespaces.>`
// (latest value of every namespace first, then every change in stream order), and the live
// reader used on a cache miss. The bucket belongs to the storage service, so it is only bound,
// never created; until it exists the watch retries and live reads answer 503.

import type { NatsConnection } from '@nats-io/nats-core';
import { Kvm, type KV } from '@nats-io/kv';
import type { Logger } from '../../shared/log.js';
import { internalError, serviceUnavailable } from '../../shared/api/status.js';
import { encodeKey, resourcePrefix } from '../../shared/store/key-codec.js';
import { NamespaceCache, namespaceStateFromJson, type NamespaceState } from './namespace-cache.js';

export interface NamespaceFeedOptions {
  nc: NatsConnection;
  bucket: string;
  log: Logger;
  /** Delay between attempts to bind the bucket or restart the watch. */
  retryMs?: number;
  /** Timeout of one live read. */
  readTimeoutMs?: number;
}

export interface NamespaceFeed {
  cache: NamespaceCache;
  /** Resolves once the watch has been established (the first time). */
  readonly watching: Promise<void>;
  stop(): Promise<void>;
}

const NAMESPACE_KEYS = `${resourcePrefix('', 'namespaces')}>`;

export function startNamespaceFeed(opts: NamespaceFeedOptions): NamespaceFeed {
  const retryMs = opts.retryMs ?? 1_000;
  const log = opts.log;
  let running = true;
  let kv: KV | null = null;
  let binding: Promise<KV> | null = null;
  let stopIter: (() => void) | null = null;
  let wake: (() => void) | null = null;

  const bind = (): Promise<KV> => {
    if (kv) return Promise.resolve(kv);
    binding ??= (async () => {
      const b = await new Kvm(opts.nc).open(opts.bucket, { bindOnly: true, timeout: opts.readTimeoutMs ?? 2_000 });
      // Binding does not look at the server; reading the stream's info is what proves it exists.
      await b.status();
      return (kv = b);
    })().finally(() => (binding = null));
    return binding;
  };

  const readLive = async (name: string): Promise<NamespaceState | null> => {
    let store: KV;
    try {
      store = await bind();
    } catch (err) {
      log.warn({ err, bucket: opts.bucket }, 'object bucket is not available for a namespace lookup');
      throw serviceUnavailable(`namespace lifecycle: the object store ${JSON.stringify(opts.bucket)} is not available yet`);
    }
    try {
      const e = await store.get(encodeKey({ group: '', resource: 'namespaces', name }));
      if (!e || e.operation !== 'PUT') return null;
      return namespaceStateFromJson(name, e.value, e.revision);
    } catch (err) {
      log.error({ err, namespace: name }, 'live namespace read failed');
      throw internalError(`unable to read namespace ${JSON.stringify(name)}`);
    }
  };

  const cache = new NamespaceCache(readLive, (key) => log.warn({ key }, 'ignoring a malformed namespace entry'));

  let markWatching!: () => void;
  const watching = new Promise<void>((r) => (markWatching = r));

  const pause = () =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, retryMs);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });

  const loop = (async () => {
    while (running) {
      try {
        const store = await bind();
        const iter = await store.watch({ key: NAMESPACE_KEYS });
        stopIter = () => iter.stop();
        if (!running) iter.stop();
        markWatching();
        for await (const e of iter) cache.apply({ key: e.key, revision: e.revision, operation: e.operation, value: e.value });
        if (running) log.warn('namespace watch ended; restarting');
      } catch (err) {
        if (running) log.warn({ err, bucket: opts.bucket }, 'namespace watch unavailable; retrying');
      }
      stopIter = null;
      // A restarted watch replays every namespace; starting empty means a delete missed in
      // between cannot leave a stale entry behind (misses fall back to live reads meanwhile).
      cache.reset();
      if (running) await pause();
    }
  })();

  return {
    cache,
    watching,
    stop: async () => {
      running = false;
      stopIter?.();
      wake?.();
      await loop;
    },
  };
}
