// Feeds a WatchCache from the object bucket: one KV watch (an ordered consumer) that first
// delivers the latest entry of every key, then every change in stream order.

import type { KV } from '@nats-io/kv';
import type { Logger } from 'pino';
import { WatchCache } from './watch-cache.js';

export interface CacheFeed {
  /** Resolves once the initial state is loaded. */
  readonly synced: Promise<void>;
  /** Whether the watch is running (for readiness). */
  healthy(): boolean;
  stop(): Promise<void>;
}

export interface CacheFeedOptions {
  /** Restrict to keys matching this subject filter (e.g. `core.namespaces.>`). */
  key?: string;
  log?: Logger;
  /** Called after each change is applied (e.g. to invalidate decisions derived from it). */
  onChange?(key: string, revision: number): void;
}

export async function startCacheFeed(kv: KV, cache: WatchCache, opts: CacheFeedOptions = {}): Promise<CacheFeed> {
  let running = true;
  let failed = false;
  const status = await kv.status();
  const initialLast = status.streamInfo.state.last_seq;
  const empty = status.streamInfo.state.messages === 0;
  const iter = await kv.watch({ key: opts.key ?? '>' });

  let markSynced!: () => void;
  const synced = new Promise<void>((r) => (markSynced = r));
  const finishSync = (revision: number) => {
    if (cache.synced) return;
    // Everything up to the last sequence seen before the watch started is now reflected, even
    // sequences whose messages were purged and will never be delivered.
    cache.markSynced(Math.max(revision, initialLast));
    markSynced();
  };
  if (empty) finishSync(initialLast);

  const loop = (async () => {
    try {
      for await (const e of iter) {
        cache.apply({ key: e.key, revision: e.revision, operation: e.operation, value: e.value });
        opts.onChange?.(e.key, e.revision);
        if (!cache.synced && (e.delta === 0 || e.isUpdate)) finishSync(e.revision);
      }
    } catch (err) {
      failed = true;
      opts.log?.error({ err }, 'watch cache feed stopped');
    }
  })();

  return {
    synced,
    healthy: () => running && !failed,
    stop: async () => {
      running = false;
      iter.stop();
      await loop;
    },
  };
}

/**
 * Coalesces consistent-read barriers: a read that arrives while a revision fetch is in flight
 * waits for the NEXT fetch (the one in flight may predate a write the reader already saw), so
 * at most two fetches are outstanding however many readers there are.
 */
export class RevisionBarrier {
  private inFlight: Promise<number> | null = null;
  private next: Promise<number> | null = null;

  constructor(private readonly fetch: () => Promise<number>) {}

  latest(): Promise<number> {
    if (!this.inFlight) return (this.inFlight = this.run());
    return (this.next ??= this.inFlight.then(
      () => this.promote(),
      () => this.promote(),
    ));
  }

  private promote(): Promise<number> {
    this.next = null;
    return (this.inFlight = this.run());
  }

  private run(): Promise<number> {
    const p = this.fetch();
    void p.then(
      () => this.settle(p),
      () => this.settle(p),
    );
    return p;
  }

  private settle(p: Promise<number>): void {
    if (this.inFlight === p) this.inFlight = null;
  }
}
