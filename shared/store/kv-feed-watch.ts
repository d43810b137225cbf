// One watch of one key filter of the object bucket, from its start to its end; the feed
// (kv-feed.ts) starts the next one after any failure. In order: replay the latest entry of every
// key, up to the stream's last sequence when the watch started (`lastBefore`), and check against
// the stream's leader that the replay is not behind; follow the changes; after a quiet moment hand
// over to a consumer that starts after the replay; retire each consumer when done with it. Its
// liveness check (kv-feed-liveness.ts) ends a watch that stopped receiving.
//
// Two consumers in turn: a last-per-subject one replays the latest entry of every key, then one that
// starts after the replay follows the changes. One consumer could do both, but nats-server (2.9)
// counts a last-per-subject consumer's pending messages by walking every subject its filter matches,
// again for each message it delivers once caught up: tens of milliseconds per write for a filter
// over tens of thousands of objects, paid in the server's CPU and in every change reaching the watch
// that much later. A consumer that starts at a sequence counts from its position instead.

import type { KV, KvEntry, KvWatchEntry } from '@nats-io/kv';
import type { QueuedIterator } from '@nats-io/nats-core';
import type { Logger } from '../log.js';
import { withTimeout } from '../ground/with-timeout.js';
import { consumerOf, retireConsumer } from './nats-internals.js';
import { entryUpTo, FilterStream } from './kv-feed-stream.js';
import { Liveness, type Watched } from './kv-feed-liveness.js';

/** How long a stopping feed waits for the server to delete a watch's consumer. */
const DELETE_ON_STOP_MS = 2_000;

/** The filter a watch serves: what outlives one watch of it (kv-feed.ts). */
export interface WatchOwner {
  readonly filter: string;
  /** The filter's first replay is still to be delivered: its entries go out one by one. */
  readonly firstReplay: boolean;
  /** False once the feed is stopping. */
  running(): boolean;
  /** An entry of the first replay, or a live one. */
  entry(e: KvEntry): void;
  /** A replay is complete and not behind the stream; `replay` is empty for the first one. */
  replayed(replay: KvEntry[], through: number): void;
}

export interface WatchSettings {
  log: Logger;
  /** How often the liveness check runs (KvFeedOptions.livenessMs). */
  livenessMs: number;
  /** How long after its replay the watch hands over to a follower. */
  handOverMs: number;
}

/** One watch of a filter: `open` makes its replay's consumer, `run` replays, follows and retires. */
export class FilterWatch implements Watched {
  readonly filter: string;
  /** Until the replay is complete and checked against the stream. */
  replaying = false;
  /** Between the replay's stop and the follower's start. */
  handingOver = false;
  /** The last entry handed over (or a position the filter has no entry before; see Liveness). */
  lastSeen = 0;
  /** The last sequence the replay covers. */
  private through: number;
  /** A replay after a restart, handed over whole when complete. */
  private readonly replay: KvEntry[] = [];
  private handOverTimer: NodeJS.Timeout | undefined;
  private readonly stream: FilterStream;
  private readonly liveness: Liveness;

  /** Starts a watch at the stream's last sequence: its replay's consumer is made, nothing is delivered before `run`. */
  static async open(kv: KV, owner: WatchOwner, settings: WatchSettings): Promise<FilterWatch> {
    const lastBefore = (await kv.status()).streamInfo.state.last_seq;
    return new FilterWatch(kv, await kv.watch({ key: owner.filter }), lastBefore, owner, settings);
  }

  private constructor(
    private readonly kv: KV,
    /** The iterator followed now: the replay's, then the follower's after the hand-over. */
    public iter: QueuedIterator<KvWatchEntry>,
    private readonly lastBefore: number,
    private readonly owner: WatchOwner,
    private readonly settings: WatchSettings,
  ) {
    this.filter = owner.filter;
    this.through = lastBefore;
    this.stream = new FilterStream(kv, owner.filter, settings.log);
    this.liveness = new Liveness(this, this.stream, settings.log, settings.livenessMs);
  }

  /** Ends the watch: `run` returns once its consumer is retired. */
  stop(): void {
    this.iter.stop();
  }

  /** Replays, then follows, until the watch is stopped or ends (its consumer gone, a stall, a replay behind). */
  async run(): Promise<void> {
    this.replaying = (await consumerOf(this.iter)!.info(true)).num_pending > 0;
    this.liveness.start();
    try {
      // An empty replay ends at once (after the check that it is not behind).
      if (!this.replaying) await this.endReplay();
      for (;;) {
        await this.follow();
        if (!this.handingOver || !this.owner.running()) break;
        await this.handOver();
      }
    } finally {
      await this.retire();
    }
  }

  /** Delivers the current iterator's entries (the replay's first) until it ends. */
  private async follow(): Promise<void> {
    for await (const e of this.iter) {
      this.lastSeen = e.revision;
      this.liveness.progressed();
      if (!this.replaying) this.owner.entry(e);
      else if (this.takeReplayed(e) && !(await this.endReplay())) break;
    }
  }

  /** Takes an entry of the replay; true when it is the replay's last (delta 0), or one after it. */
  private takeReplayed(e: KvWatchEntry): boolean {
    this.through = Math.max(this.through, e.revision);
    if (this.owner.firstReplay) this.owner.entry(e);
    else this.replay.push(e);
    return e.isUpdate || e.delta === 0;
  }

  /** Hands the complete replay to the filter unless it is behind the stream (then false, and the watch ends). */
  private async endReplay(): Promise<boolean> {
    if (await this.replayIsBehind()) {
      this.iter.stop();
      return false;
    }
    this.replaying = false;
    this.owner.replayed(this.replay.splice(0), this.through);
    this.scheduleHandOver();
    return true;
  }

  /**
   * Whether the replay is behind the stream as its leader knows it (or the leader cannot say).
   * The replay comes from whichever replica holds its consumer (nats-server places these
   * one-replica consumers on any peer of the stream), and a replica still catching up (a node back
   * from a partition, say) replays an older state than the leader's `lastBefore`. Taken as covering
   * `lastBefore`, such a replay made a resync drop objects it had not seen yet and the follower
   * start after entries nobody delivered: acknowledged writes missing from the cache, watchers never
   * told (seen in the compose suite's leader partition). So the leader is asked first: an entry of
   * this filter after the last one replayed, up to `lastBefore`, means the replay is behind, and the
   * watch starts over (its next consumer is current or placed elsewhere).
   */
  private async replayIsBehind(): Promise<boolean> {
    if (this.lastSeen >= this.lastBefore) return false;
    const next = await this.stream.nextEntryFrom(this.lastSeen + 1);
    if (entryUpTo(next, this.lastBefore) === false) return false;
    this.settings.log.warn(
      { filter: this.filter, replayedThrough: this.lastSeen, streamAt: this.lastBefore, next },
      'bucket watch replay is behind the stream (a replica catching up) or could not be checked; restarting the watch',
    );
    return true;
  }

  /**
   * After a quiet moment, not at once: right after a NATS node was lost every feed restarts, and
   * creating twice the consumers then slows JetStream's recovery. Entries already received are still
   * handed over; the follower starts after them.
   */
  private scheduleHandOver(): void {
    this.handOverTimer = setTimeout(() => {
      this.handingOver = true;
      this.iter.stop();
    }, this.settings.handOverMs);
    this.handOverTimer.unref();
  }

  /** The replay's consumer gives way to one that starts after it. */
  private async handOver(): Promise<void> {
    // The replay ended with nothing pending and was checked against the leader (endReplay): every
    // entry of the filter up to lastBefore has been handed over.
    this.lastSeen = Math.max(this.lastSeen, this.lastBefore);
    void retireConsumer(this.iter);
    this.iter = await this.kv.watch({ key: this.filter, resumeFromRevision: this.lastSeen + 1 });
    this.handingOver = false;
    if (!this.owner.running()) this.iter.stop();
  }

  /** Stops the watch's timers and deletes its consumer. A stopping feed waits for that (briefly); a restarting one does not. */
  private async retire(): Promise<void> {
    this.liveness.stop();
    clearTimeout(this.handOverTimer);
    const retired = retireConsumer(this.iter);
    if (!this.owner.running()) await withTimeout(retired, DELETE_ON_STOP_MS).catch(() => undefined);
  }
}
