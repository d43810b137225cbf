// Runs steps strictly one after another, whether a step is done at once or returns a promise: what
// the bucket feed delivers must reach the watch cache in stream order, and a step that reads the
// change log takes a while (kv-feed.ts startCacheFeed). A step that fails is reported and the next
// one runs: an entry the cache cannot take must not stop the feed.

export type Step = () => void | Promise<void>;

export class OrderedSteps {
  /** The steps waiting for an asynchronous one to finish; null when none is running. */
  private held: Step[] | null = null;

  constructor(private readonly onError: (err: unknown) => void) {}

  /** Runs `step` now, or after the steps before it when one of them is still running. */
  run(step: Step): void {
    if (this.held) return void this.held.push(step);
    const pending = this.attempt(step);
    if (pending) this.wait(pending, []);
  }

  private attempt(step: Step): void | Promise<void> {
    try {
      return step();
    } catch (err) {
      this.onError(err);
    }
  }

  /** Holds the steps that come while `pending` runs, then runs them in turn. */
  private wait(pending: Promise<void>, rest: Step[]): void {
    this.held = rest;
    void pending
      .catch((err: unknown) => this.onError(err))
      .finally(() => {
        const queue = this.held!;
        this.held = null;
        for (let step = queue.shift(); step; step = queue.shift()) {
          const next = this.attempt(step);
          if (next) return this.wait(next, queue);
        }
      });
  }
}
