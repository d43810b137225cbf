// A request's deadline: upstream's request context deadline (`--request-timeout`, capped
// `?timeout=`). When it passes the request is answered 504 with upstream's Timeout Status, and no
// hop of the request (a NATS request to another service) waits beyond what remains of it.

import { failure, StatusError, StatusReason } from './status.js';

/** Upstream's words: its write handlers' finisher for writes, its timeout filter for anything else. */
export function deadlineExceeded(mutating: boolean): StatusError {
  const message = mutating ? 'Timeout: request did not complete within requested timeout - context deadline exceeded' : 'Timeout: request did not complete within the allotted timeout';
  return failure(504, StatusReason.Timeout, message, {});
}

export class Deadline {
  /**
   * `at`: the deadline on performance.now()'s clock. `mutating`: the request writes (create,
   * update, patch, delete, deletecollection), which decides upstream's wording. `status`: the
   * Status of this deadline's passing when it is not the request's own (a list's timeoutSeconds).
   */
  constructor(
    readonly at: number,
    private readonly mutating: boolean,
    private readonly status?: () => StatusError,
  ) {}

  remainingMs(): number {
    return this.at - performance.now();
  }

  /** The Status of a request past its deadline. */
  exceeded(): StatusError {
    return this.status ? this.status() : deadlineExceeded(this.mutating);
  }

  /**
   * The sooner of this deadline and one `ms` from now, which says `status` when it passes; this
   * one when it is the sooner.
   */
  within(ms: number, status: () => StatusError): Deadline {
    const at = performance.now() + ms;
    return at < this.at ? new Deadline(at, this.mutating, status) : this;
  }

  /**
   * A wait of at most `timeoutMs` (a hop's or a cache's own limit) cut to what remains: `wait` is
   * started with the shorter of the two, and when the deadline was the shorter its 504 is the
   * deadline's. Past the deadline nothing is started.
   */
  async bound<T>(timeoutMs: number, wait: (ms: number) => Promise<T>): Promise<T> {
    const left = Math.ceil(this.remainingMs());
    if (left <= 0) throw this.exceeded();
    if (left >= timeoutMs) return wait(timeoutMs);
    try {
      return await wait(left);
    } catch (err) {
      if (err instanceof StatusError && err.status.code === 504) throw this.exceeded();
      throw err;
    }
  }

  /** `work`'s outcome, or the deadline's 504 if it passes first (the work then goes on unanswered, as upstream's does). */
  race<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const passed = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.exceeded()), Math.max(0, this.remainingMs()));
    });
    return Promise.race([work, passed]).finally(() => clearTimeout(timer));
  }
}

/** `wait` given `timeoutMs`, or within `deadline` when the request has one (Deadline.bound). */
export function boundedWait<T>(deadline: Deadline | undefined, timeoutMs: number, wait: (ms: number) => Promise<T>): Promise<T> {
  return deadline ? deadline.bound(timeoutMs, wait) : wait(timeoutMs);
}
