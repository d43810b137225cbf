// The barrier of a consistent read: the stream's last revision as its leader knows it at a moment
// after the read began. Concurrent reads share the fetch, as etcd batches linearizable reads: one
// fetch in flight and one gathering readers. A reader may join a fetch whose request has not been
// sent yet (its answer is then from after the reader began), never one already on its way (it may
// predate a write the reader saw complete). The gathering fetch goes out at the end of the event
// loop's turn (setImmediate), not at its first reader: the requests a turn reads from its sockets
// all join it, and the answer could not be read before the next turn anyway. Each fetch is bounded
// by its own timer, so a reader waits at most two fetch timeouts (the one in flight, then its own).

import { timeout, type StatusError } from '../api/status.js';

interface Gathering {
  promise: Promise<number>;
  resolve(revision: number): void;
  reject(err: unknown): void;
}

export interface RevisionBarrierOptions {
  /** Asks the stream's leader for its last revision. */
  fetch(): Promise<number>;
  /** How long one fetch may take before its readers get a 504. */
  timeoutMs: number;
  /** The Status a failed fetch is answered with, or null to pass its error on (default: as it is). */
  failure?: (err: unknown) => StatusError | null;
}

export class RevisionBarrier {
  /** Fetches sent (for tests and metrics). */
  fetches = 0;
  private gathering: Gathering | null = null;
  private inFlight = false;

  constructor(private readonly opts: RevisionBarrierOptions) {}

  /** The longest a reader can wait for `latest` (a fetch in flight, then its own). */
  get maxWaitMs(): number {
    return 2 * this.opts.timeoutMs;
  }

  /** The stream's last revision, from a fetch sent after this call. */
  latest(): Promise<number> {
    if (!this.gathering) {
      let resolve!: (revision: number) => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<number>((res, rej) => ((resolve = res), (reject = rej)));
      this.gathering = { promise, resolve, reject };
      if (!this.inFlight) setImmediate(this.send);
    }
    return this.gathering.promise;
  }

  private readonly send = (): void => {
    const batch = this.gathering;
    if (!batch) return;
    this.gathering = null;
    this.inFlight = true;
    this.fetches++;
    const timer = setTimeout(() => settle(() => batch.reject(timeout('Timeout: the object store did not answer in time', 1))), this.opts.timeoutMs);
    let done = false;
    const settle = (f: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      f();
      this.inFlight = false;
      // Readers that came while this fetch was out: theirs goes at the end of this turn.
      if (this.gathering) setImmediate(this.send);
    };
    let answer: Promise<number>;
    try {
      answer = this.opts.fetch();
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then(
      (revision) => settle(() => batch.resolve(revision)),
      (err: unknown) => settle(() => batch.reject(this.opts.failure?.(err) ?? err)),
    );
  };
}
