// The one way a service follows the object bucket: a KV watch per key filter (the latest entry of
// every key first, then every change in stream order) that is restarted after any failure — a
// consumer deleted under it, NATS restarted, the bucket not there yet — with a bounded retry rate.
// Each watch replays from a last-per-subject consumer and, once caught up, hands over to one that
// starts after the replay (cheaper for nats-server to keep delivering from; see kv-feed-watch.ts,
// which holds a watch's steps, and kv-feed-liveness.ts, its check that it still receives).
// The first replay is delivered entry by entry; a replay after a restart is handed over whole, so
// the consumer can reconcile it against what it already holds (deletes missed while down, changes
// whose intermediate revisions are gone). The gateway's watch cache and the services' object feeds
// (object-feed.ts) both sit on it.

import type { NatsConnection } from '@nats-io/nats-core';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { Logger } from '../log.js';
import { WatchCache, type KvChange } from './watch-cache.js';
import type { ChangeLogRead } from './change-log.js';
import { FilterWatch, type WatchOwner, type WatchSettings } from './kv-feed-watch.js';
import { OrderedSteps } from './ordered-steps.js';

export interface KvFeedOptions {
  /** The bucket, or how to bind it (retried until it exists). */
  kv: KV | (() => Promise<KV>);
  /** KV key filters, one watch each (`>` for everything). */
  filters: string[];
  /** Entries of the first replay and every live change, in stream order per filter. */
  onEntry(e: KvEntry, filter: string): void;
  /** A filter's first replay has been delivered; `through` is the last sequence it covers. */
  onSynced?(filter: string, through: number): void;
  /** After a restart: the filter's whole replay, then live entries resume through `onEntry`. */
  onResync(filter: string, replay: KvEntry[], through: number): void;
  log: Logger;
  /** Delay before the first retry; doubles per consecutive failure up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /**
   * How often a running watch checks that its consumer still exists. A consumer deleted under it
   * (or lost in a NATS restart) does not end the iteration: without this the feed would stand
   * still while claiming to run. One small request per period, the only cost of an idle feed.
   */
  livenessMs?: number;
  /** How long after its replay a watch hands over to a consumer that follows the changes. */
  handOverMs?: number;
}

export interface KvFeed {
  /** Resolves once every filter has delivered its first replay. */
  readonly synced: Promise<void>;
  /** Every watch is running. */
  healthy(): boolean;
  stop(): Promise<void>;
}

export function bindBucket(nc: NatsConnection, bucket: string): () => Promise<KV> {
  let kv: KV | null = null;
  return async () => {
    if (kv) return kv;
    const b = await new Kvm(nc).open(bucket, { bindOnly: true, timeout: 2_000 });
    // Binding does not look at the server; reading the stream's info proves the bucket exists.
    await b.status();
    return (kv = b);
  };
}

/** The feed's state its filters share. */
interface FeedState {
  running: boolean;
  readonly opts: KvFeedOptions;
  readonly bind: () => Promise<KV>;
  readonly retryMs: number;
  readonly maxRetryMs: number;
  readonly settings: WatchSettings;
  /** The watches running now, for a stopping feed to end. */
  readonly watches: Set<FilterWatch>;
  /** The filters waiting out a back-off, for a stopping feed to wake. */
  readonly wakers: Set<() => void>;
}

export function startKvFeed(opts: KvFeedOptions): KvFeed {
  const feed: FeedState = {
    running: true,
    opts,
    bind: typeof opts.kv === 'function' ? opts.kv : alreadyBound(opts.kv),
    retryMs: opts.retryMs ?? 1_000,
    maxRetryMs: opts.maxRetryMs ?? 5_000,
    settings: { log: opts.log, livenessMs: opts.livenessMs ?? 5_000, handOverMs: opts.handOverMs ?? 5_000 },
    watches: new Set(),
    wakers: new Set(),
  };
  const filters = opts.filters.map((filter) => new FilterFeed(filter, feed));
  return {
    synced: Promise.all(filters.map((f) => f.synced)).then(() => undefined),
    healthy: () => feed.running && filters.every((f) => f.healthy),
    stop: async () => {
      feed.running = false;
      for (const w of feed.watches) w.stop();
      feed.watches.clear();
      for (const wake of [...feed.wakers]) wake();
      await Promise.allSettled(filters.map((f) => f.done));
    },
  };
}

function alreadyBound(kv: KV): () => Promise<KV> {
  return async () => kv;
}

/** One filter of a feed: its watches (kv-feed-watch.ts) one after another until the feed stops. */
class FilterFeed implements WatchOwner {
  firstReplay = true;
  /** A watch is running and its replay has been delivered. */
  healthy = false;
  readonly synced: Promise<void>;
  /** Settles when the feed has stopped and the filter's last watch is retired. */
  readonly done: Promise<void>;
  private markSynced!: () => void;
  /** Restarts since the last complete replay: what the back-off grows with. */
  private failures = 0;

  constructor(
    readonly filter: string,
    private readonly feed: FeedState,
  ) {
    this.synced = new Promise<void>((r) => (this.markSynced = r));
    this.done = this.retry();
  }

  running(): boolean {
    return this.feed.running;
  }

  entry(e: KvEntry): void {
    this.feed.opts.onEntry(e, this.filter);
  }

  replayed(replay: KvEntry[], through: number): void {
    if (this.firstReplay) {
      this.firstReplay = false;
      this.feed.opts.onSynced?.(this.filter, through);
      this.markSynced();
    } else {
      this.feed.opts.onResync(this.filter, replay, through);
    }
    this.healthy = true;
    this.failures = 0;
  }

  /** Watches the filter until the feed stops, starting over after any failure. */
  private async retry(): Promise<void> {
    while (this.feed.running) {
      try {
        await this.watchOnce();
      } catch (err) {
        if (this.feed.running) this.feed.opts.log.warn({ err, filter: this.filter }, 'bucket watch failed; restarting');
      }
      this.healthy = false;
      if (!this.feed.running) break;
      await this.backOff();
    }
  }

  private async watchOnce(): Promise<void> {
    const watch = await FilterWatch.open(await this.feed.bind(), this, this.feed.settings);
    this.feed.watches.add(watch);
    // The feed stopped while the watch was being made.
    if (!this.feed.running) watch.stop();
    await watch.run();
    this.feed.watches.delete(watch);
    if (this.feed.running) this.feed.opts.log.warn({ filter: this.filter }, 'bucket watch ended; restarting');
  }

  /** Each attempt opens a consumer: never faster than the back-off allows. A stopping feed wakes it. */
  private backOff(): Promise<void> {
    const delay = Math.min(this.feed.retryMs * 2 ** this.failures, this.feed.maxRetryMs);
    this.failures++;
    const wakers = this.feed.wakers;
    return new Promise<void>((r) => {
      const wake = () => {
        clearTimeout(t);
        wakers.delete(wake);
        r();
      };
      const t = setTimeout(wake, delay);
      wakers.add(wake);
    });
  }
}

export interface CacheFeed {
  /** Resolves once the initial state is loaded: the cache serves from then on. */
  readonly synced: Promise<void>;
  /** Resolves once the window before the initial state has been rebuilt from the change log (or could not be). */
  readonly windowRestored: Promise<void>;
  /** Whether the watch is running (for readiness). */
  healthy(): boolean;
  stop(): Promise<void>;
}

export interface CacheFeedOptions {
  log: Logger;
  /**
   * The bucket's logged changes up to a revision (change-log.ts readChangeLog), from `since` on
   * when given: read once the first state is loaded, to rebuild the window from before this
   * cache's start, and after a restart of the watch, for the changes it missed.
   */
  history?(through: number, since?: Date): Promise<ChangeLogRead>;
  /** Called after each change is applied (e.g. to invalidate decisions derived from it). */
  onChange?(key: string, revision: number): void;
  retryMs?: number;
  /** As startKvFeed's (tests shorten them). */
  livenessMs?: number;
  handOverMs?: number;
}

const asChange = (e: KvEntry): KvChange => ({ key: e.key, revision: e.revision, operation: e.operation, value: e.value });

/** The log is read from this long before the last change applied when a watch restarted. */
const CATCH_UP_MARGIN_MS = 60_000;

/**
 * Feeds the gateway's watch cache from the whole bucket. With the change log (`history`), the
 * window is rebuilt from it at start and changes missed while the watch was down are filled in
 * from it; without it, or when the log cannot account for them, the cache resyncs (watchers get
 * 410 Expired).
 */
export function startCacheFeed(kv: KV | (() => Promise<KV>), cache: WatchCache, opts: CacheFeedOptions): CacheFeed {
  const log = opts.log;
  // What the watch delivers is handled in order; while a step reads the change log, the steps
  // after it wait. A step that fails is logged, and the next one handled (an entry the cache
  // cannot take must not stop the feed).
  const steps = new OrderedSteps((err) => log.error({ err }, 'applying a bucket change to the watch cache failed'));
  const readLog = (through: number, since?: Date): Promise<ChangeLogRead | undefined> =>
    opts.history!(through, since).catch((err: unknown) => {
      log.warn({ err }, 'reading the change log failed');
      return undefined;
    });

  /** When the bucket took the last change applied. */
  let lastApplied: Date | undefined;
  let restored!: () => void;
  const windowRestored = new Promise<void>((r) => (restored = r));
  let loaded!: () => void;
  const cacheLoaded = new Promise<void>((r) => (loaded = r));
  const changed = (key: string, revision: number) => opts.onChange?.(key, revision);

  const resync = (replay: KvChange[], through: number) => {
    const missed = cache.resync(replay, through);
    if (missed > 0) {
      log.warn({ missed, revision: cache.revision }, 'bucket watch resumed after missing changes; watchers were sent 410 Expired');
      // Whatever derives decisions from changes must look again: report every replayed key.
      for (const e of replay) changed(e.key, cache.revision);
    } else {
      log.info({ revision: cache.revision }, 'bucket watch resumed; nothing was missed');
    }
  };

  // A restarted watch's replay: the changes missed meanwhile come from the change log when it
  // accounts for them; otherwise the cache resyncs.
  const catchUp = async (entries: KvEntry[], through: number) => {
    const replay = entries.map(asChange);
    for (const e of entries) if (!lastApplied || e.created > lastApplied) lastApplied = e.created;
    // The missed changes came after the last one applied (a margin for the log's own clock).
    const since = lastApplied && new Date(lastApplied.getTime() - CATCH_UP_MARGIN_MS);
    const history = opts.history && cache.revision < through ? await readLog(through, since) : undefined;
    const applied = history?.complete ? cache.catchUp(history.changes, replay, through) : null;
    if (!applied) return resync(replay, through);
    for (const c of applied) changed(c.key, c.revision);
    log.info({ caughtUp: applied.length, revision: cache.revision }, 'bucket watch resumed; the changes missed meanwhile came from the change log');
  };

  const feed = startKvFeed({
    kv,
    filters: ['>'],
    log,
    ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
    ...(opts.livenessMs !== undefined ? { livenessMs: opts.livenessMs } : {}),
    ...(opts.handOverMs !== undefined ? { handOverMs: opts.handOverMs } : {}),
    onEntry: (e) =>
      steps.run(() => {
        cache.apply(asChange(e), () => changed(e.key, e.revision));
        lastApplied = e.created;
      }),
    // Everything up to the last sequence before the watch started is now reflected, even
    // sequences whose messages were purged and will never be delivered.
    onSynced(_filter, through) {
      if (!opts.history) {
        cache.markSynced(through);
        loaded();
        restored();
        return;
      }
      // The cache serves once the state is loaded; the window before it is rebuilt from the log
      // meanwhile (changes arriving are applied as they come), and only what needs it waits for it.
      steps.run(() => {
        cache.markLoaded(through, true);
        loaded();
        // Up to what the cache holds: entries after `through` may have come with the replay.
        const loadedAt = cache.revision;
        // The restore is not a step the changes wait for: the cache takes them while the log is
        // walked, and holds them back (with what follows them) while the window is put in.
        void readLog(loadedAt).then((read) =>
          steps.run(() => {
            void cache.restoreHistory(read ?? { changes: [], complete: false }).then(
              (n) => {
                log.info({ revision: loadedAt, restored: n, windowStart: cache.compactedRevision, ...cache.restoreReport }, 'watch window restored from the change log');
                restored();
              },
              (err: unknown) => {
                log.error({ err }, 'restoring the watch window from the change log failed');
                restored();
              },
            );
          }),
        );
      });
    },
    onResync: (_filter, entries, through) => steps.run(() => catchUp(entries, through)),
  });
  return { ...feed, synced: feed.synced.then(() => cacheLoaded), windowRestored };
}
