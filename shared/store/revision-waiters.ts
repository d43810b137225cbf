// Reads waiting for the watch cache to reach a revision, in revision order: each is let go once the
// cache has applied its revision, or fails with upstream's "too large resource version" 504 when
// its time runs out first.

import { tooLargeResourceVersion } from '../api/status.js';

interface Waiter {
  revision: number;
  resolve(): void;
}

export class RevisionWaiters {
  private waiters: Waiter[] = [];

  /** Resolves once `reached` is told `revision` or a later one; rejects with 504 after `timeoutMs` (`current`: the revision then). */
  wait(revision: number, timeoutMs: number, current: () => number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(tooLargeResourceVersion(revision, current()));
      }, timeoutMs);
      const i = this.waiters.findIndex((w) => w.revision > revision);
      if (i < 0) this.waiters.push(waiter);
      else this.waiters.splice(i, 0, waiter);
    });
  }

  /** The cache has applied `revision`: the waits for it or an earlier one end. */
  reached(revision: number): void {
    if (this.waiters.length === 0 || this.waiters[0]!.revision > revision) return;
    const ready = this.waiters.filter((w) => w.revision <= revision);
    this.waiters = this.waiters.filter((w) => w.revision > revision);
    for (const w of ready) w.resolve();
  }
}
