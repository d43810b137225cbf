// Which revisions were certainly written within the watch window, without asking NATS.
//
// Revisions are stream sequences, and the stream stamps its messages in sequence order. So if this
// replica sent a write at time T that got revision R, every revision from R on was written at T or
// later. The samples are this replica's own writes, one per `spacingMs` at most, kept while they
// are within the window; the oldest kept one bounds what is certainly young. A revision below it
// may be young too (another replica's write, or one from before this process started): callers
// then read the entry, as they would without this.

export interface RecentRevisions {
  /** A write sent at `sentAtMs` was given `revision`. */
  record(revision: number, sentAtMs: number): void;
  /** True when `revision` was certainly written at or after `nowMs - windowMs`. */
  writtenWithin(revision: number, nowMs: number): boolean;
}

export function recentRevisions(windowMs: number, spacingMs = 100): RecentRevisions {
  // Oldest first; both revision and time increase along the array (a sample is only added when
  // it is later and higher than the last).
  const revisions: number[] = [];
  const times: number[] = [];
  let head = 0;

  function prune(cutoff: number): void {
    while (head < times.length && times[head]! < cutoff) head++;
    // Compact once the dead prefix dominates, so the arrays stay about window / spacing long.
    if (head > 64 && head * 2 > times.length) {
      revisions.splice(0, head);
      times.splice(0, head);
      head = 0;
    }
  }

  return {
    record(revision, sentAtMs) {
      const last = times.length - 1;
      if (last >= head && (sentAtMs - times[last]! < spacingMs || revision <= revisions[last]!)) return;
      revisions.push(revision);
      times.push(sentAtMs);
    },
    writtenWithin(revision, nowMs) {
      prune(nowMs - windowMs);
      return head < times.length && revisions[head]! <= revision;
    },
  };
}
