// How a write that lost a compare-and-swap race tries again (upstream's GuaranteedUpdate retries
// until it wins): a short random pause that grows with the attempts (the losers of one race would
// otherwise all collide again), and a deadline past which the write gives up with 504 rather than
// turning contention into a 409.

import { qualifiedResource, timeout, type GroupResource } from '../../api/status.js';

export class RaceRetry {
  private attempts = 0;
  private readonly deadline: number;

  constructor(budgetMs: number) {
    this.deadline = Date.now() + budgetMs;
  }

  /** Waits before the next attempt; 504 once the budget would run out. */
  async next(gr: GroupResource, name: string): Promise<void> {
    const pause = Math.random() * Math.min(50, 2 ** this.attempts++);
    if (Date.now() + pause >= this.deadline) {
      throw timeout(`Timeout: the update of ${qualifiedResource(gr)} "${name}" kept losing to concurrent writers; please retry`, 1);
    }
    await new Promise((r) => setTimeout(r, pause));
  }
}
