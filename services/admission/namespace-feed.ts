// Keeps a NamespaceCache current from the object bucket through the shared object feed (one
// watch on the namespaces, restarted after failures, missed deletes delivered after a restart),
// and provides the live reader used on a cache miss. The bucket belongs to the storage service,
// so it is only bound, never created; until it exists the feed retries and live reads answer 503.

import type { NatsConnection } from '@nats-io/nats-core';
import { Kvm, type KV } from '@nats-io/kv';
import type { Logger } from '../../shared/log.js';
import { internalError, serviceUnavailable } from '../../shared/api/status.js';
import { encodeKey } from '../../shared/store/key-codec.js';
import { resourceFilter, startObjectFeed } from '../../shared/store/object-feed.js';
import { NamespaceCache, namespaceStateFromObject, type NamespaceState } from './namespace-cache.js';

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
  /** Resolves once the cache holds every namespace stored when the watch first started. */
  readonly watching: Promise<void>;
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

export function startNamespaceFeed(opts: NamespaceFeedOptions): NamespaceFeed {
  const log = opts.log;
  let kv: KV | null = null;
  let binding: Promise<KV> | null = null;

  // The live read binds on its own: it must answer (503) even while the feed is still retrying.
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
    let value: Uint8Array;
    let revision: number;
    try {
      const e = await store.get(encodeKey({ group: '', resource: 'namespaces', name }));
      if (!e || e.operation !== 'PUT') return null;
      value = e.value;
      revision = e.revision;
    } catch (err) {
      log.error({ err, namespace: name }, 'live namespace read failed');
      throw internalError(`unable to read namespace ${JSON.stringify(name)}`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(decoder.decode(value));
    } catch {
      doc = null;
    }
    const state = namespaceStateFromObject(name, doc, revision);
    if (!state) log.warn({ namespace: name }, 'stored namespace is not an object; treating it as missing');
    return state;
  };

  const cache = new NamespaceCache(readLive, (key) => log.warn({ key }, 'ignoring a malformed namespace entry'));
  const feed = startObjectFeed({
    nc: opts.nc,
    bucket: opts.bucket,
    filters: [resourceFilter('', 'namespaces')],
    onEvent: (e) => cache.apply(e),
    log,
    retryMs: opts.retryMs,
  });

  return { cache, watching: feed.synced, stop: () => feed.stop() };
}
