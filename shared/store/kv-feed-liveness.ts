// The periodic check that a running bucket watch (kv-feed-watch.ts) still receives what it should.
// A consumer deleted under a watch, or lost with its node, does not end the iteration, and a
// message lost in flight leaves the watch waiting for ever: without this check the feed would
// stand still while claiming to run. It ends such a watch (stops its iterator) and the feed starts
// it again. One small request per period is the only cost of an idle feed.

import type { KvWatchEntry } from '@nats-io/kv';
import type { QueuedIterator } from '@nats-io/nats-core';
import type { Logger } from '../log.js';
import { withTimeout } from '../ground/with-timeout.js';
import { consumerOf } from './nats-internals.js';
import { entryUpTo, type FilterStream } from './kv-feed-stream.js';

/** Consecutive failed liveness checks (timeouts, say) that end a watch whose consumer may be gone. */
const LIVENESS_FAILURES = 3;
/** A liveness check (or the stream check after a failed one) not answered within this has failed. */
const LIVENESS_TIMEOUT_MS = 2_500;
/** How long a replay may deliver nothing before its watch restarts. */
const REPLAY_STALL_MS = 15_000;
/** How soon a watch whose consumer sent more than it received looks again. */
const RECHECK_MS = 1_000;

type WatchIterator = QueuedIterator<KvWatchEntry>;

/** The watch a liveness check looks at, and ends when it is not live. */
export interface Watched {
  readonly filter: string;
  /** The iterator followed now: the replay's, then the follower's after the hand-over. */
  readonly iter: WatchIterator;
  readonly replaying: boolean;
  /** Between the replay's stop and the follower's start. */
  readonly handingOver: boolean;
  /** The last entry handed over; moved on by a check that finds none of the filter's entries missing. */
  lastSeen: number;
}

/**
 * What the consumer's delivered position (`sent`) says about a watch that received up to
 * `received`, given the last entry it had received when a check last found the consumer ahead
 * (`suspectedAt`, -1 for none).
 *
 * A message lost in flight (its node died mid-delivery) leaves the ordered consumer waiting for a
 * next message to notice the gap — forever when writes stop. The server's delivered position moves
 * past entries of other keys too (a filtered consumer skips them), so a position ahead of the last
 * entry, unchanged over two checks, is only a suspicion: the stream is then asked for the first
 * message of this filter after the last entry, and only one the consumer already passed is a stall
 * — the watch restarts and its replay brings the missing entries. Otherwise the position is simply
 * where this filter's entries resume.
 */
export function judgePosition(sent: number, received: number, suspectedAt: number): 'received' | 'ahead' | 'still-ahead' {
  if (sent <= received) return 'received';
  return suspectedAt === received ? 'still-ahead' : 'ahead';
}

export class Liveness {
  private period: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private checking = false;
  private failedChecks = 0;
  /** The last entry received when a check last found the consumer ahead of it; -1 for none. */
  private stalledAt = -1;
  /** When the watch last received an entry (or started). */
  private progressAt = 0;

  constructor(
    private readonly watch: Watched,
    private readonly stream: FilterStream,
    private readonly log: Logger,
    private readonly periodMs: number,
  ) {}

  start(): void {
    this.progressAt = Date.now();
    this.period = setInterval(() => this.check(), this.periodMs);
    this.period.unref();
  }

  /** The watch received an entry. */
  progressed(): void {
    this.progressAt = Date.now();
  }

  stop(): void {
    clearInterval(this.period);
    clearTimeout(this.recheck);
  }

  private check(): void {
    const w = this.watch;
    // Not while the follower takes over: the replay's consumer is being deleted.
    if (this.checking || w.handingOver) return;
    // A replay that delivers nothing leaves the filter unhealthy for good: the stall check
    // (judgePosition) looks only for messages lost after some arrived. Seen once in CI after a
    // gateway's partition from NATS healed (its /readyz stayed failing for minutes).
    if (w.replaying && Date.now() - this.progressAt > REPLAY_STALL_MS) {
      this.log.warn({ filter: w.filter, received: w.lastSeen, stalledMs: Date.now() - this.progressAt }, 'bucket watch replay made no progress; restarting the watch');
      w.iter.stop();
      return;
    }
    this.checking = true;
    const watched = w.iter;
    withTimeout(consumerOf(watched)!.info(false), LIVENESS_TIMEOUT_MS, 'timeout')
      .then(
        (info) => this.consumerAnswered(watched, info.delivered?.stream_seq ?? 0),
        (err: unknown) => this.consumerFailed(watched, err),
      )
      .finally(() => (this.checking = false));
  }

  private async consumerAnswered(watched: WatchIterator, sent: number): Promise<void> {
    const w = this.watch;
    if (watched !== w.iter) return;
    this.failedChecks = 0;
    switch (judgePosition(sent, w.lastSeen, this.stalledAt)) {
      case 'received':
        this.stalledAt = -1;
        return;
      case 'ahead':
        // In flight, or lost: look again shortly rather than at the next period.
        this.stalledAt = w.lastSeen;
        return this.lookAgain();
      case 'still-ahead':
        return this.askStream(watched, sent);
    }
  }

  /** Whether the consumer passed an entry of the filter that never arrived: a stall ends the watch. */
  private async askStream(watched: WatchIterator, sent: number): Promise<void> {
    const w = this.watch;
    const missed = entryUpTo(await this.stream.nextEntryFrom(w.lastSeen + 1), sent);
    if (missed) {
      this.log.warn({ filter: w.filter, sent, received: w.lastSeen }, 'bucket watch stalled behind what its consumer sent; restarting the watch');
      watched.stop();
    } else if (missed === false) {
      w.lastSeen = Math.max(w.lastSeen, sent);
      this.stalledAt = -1;
    } else {
      // The stream could not say (a leader election, say): the suspicion stays.
      this.lookAgain();
    }
  }

  /**
   * A check that does not answer in time counts as failed. One failed check is enough when the
   * bucket's stream itself answers at once: JetStream is up, and what does not answer is this
   * watch's consumer (its server died, or the client lost its interest). Otherwise (JetStream
   * electing a leader, or busy) it takes LIVENESS_FAILURES in a row, each looked at again after
   * RECHECK_MS rather than at the next period, so that a consumer lost with its node is replaced
   * soon after JetStream answers again.
   */
  private async consumerFailed(watched: WatchIterator, err: unknown): Promise<void> {
    if (watched !== this.watch.iter) return;
    const gone = /not found/i.test(String((err as Error)?.message));
    if (gone || ++this.failedChecks >= LIVENESS_FAILURES || (await this.stream.answers(LIVENESS_TIMEOUT_MS))) {
      this.log.warn({ filter: this.watch.filter, err }, 'bucket watch consumer is gone; restarting the watch');
      watched.stop();
    } else {
      this.lookAgain();
    }
  }

  private lookAgain(): void {
    clearTimeout(this.recheck);
    this.recheck = setTimeout(() => this.check(), RECHECK_MS);
    this.recheck.unref();
  }
}
