// What a bucket watch asks the bucket's stream itself, rather than its own consumer: where this
// filter's next entry is (the stream's leader answers, whichever replica holds the consumer), and
// whether the stream answers at all. The replay's check that it is not behind (kv-feed-watch.ts)
// and the liveness check's stall detection (kv-feed-liveness.ts) both stand on it.

import type { KV } from '@nats-io/kv';
import type { Logger } from '../log.js';
import { withTimeout } from '../ground/with-timeout.js';
import { bucketStream, nextSequence, type BucketStream } from './nats-internals.js';

/** The position of a filter's next entry: a sequence, null when there is none, undefined when the stream could not say. */
export type NextEntry = number | null | undefined;

/** The bucket's stream as one filter's watch sees it. */
export class FilterStream {
  private readonly bucket: BucketStream;
  private readonly subject: string;

  constructor(
    kv: KV,
    private readonly filter: string,
    private readonly log: Logger,
  ) {
    this.bucket = bucketStream(kv);
    this.subject = this.bucket.subjectForKey(filter);
  }

  /** The leader's first entry of this filter at or after `seq` (undefined: a leader election, say). */
  async nextEntryFrom(seq: number): Promise<NextEntry> {
    try {
      return await nextSequence(this.bucket, seq, this.subject);
    } catch (err) {
      this.log.debug({ filter: this.filter, err }, 'bucket watch position check failed');
      return undefined;
    }
  }

  /** Whether the stream's info comes back within `timeoutMs` (JetStream is up and not electing a leader). */
  answers(timeoutMs: number): Promise<boolean> {
    return withTimeout(this.bucket.jsm.streams.info(this.bucket.stream), timeoutMs).then(
      () => true,
      () => false,
    );
  }
}

/**
 * Whether the filter's next entry, as `nextEntryFrom` found it, comes at or before `bound`: an
 * entry the watch should have received by then. Undefined when the stream could not say.
 */
export function entryUpTo(next: NextEntry, bound: number): boolean | undefined {
  return next === undefined ? undefined : next !== null && next <= bound;
}
