// Reads from the watch cache with the spec's resourceVersion semantics: a read plan is settled
// (wait for the stream's last revision, or for a requested one), then get, list pages and watches
// are served from memory. Also the generic store's `ObjectSource` on this gateway. A read made for
// a request with a deadline waits for the cache no longer than what remains of it (then the
// deadline's 504): a cache that cannot catch up in time does not hold the request beyond it.

import type { ApiObject } from '../../../shared/api/types.js';
import { boundedWait, type Deadline } from '../../../shared/api/deadline.js';
import { resourceExpired, StatusError } from '../../../shared/api/status.js';
import { RevisionBarrier } from '../../../shared/store/revision-barrier.js';
import { kvFailureStatus } from '../../../shared/store/kv-errors.js';
import { MAX_OBJECT_BYTES } from '../../../shared/store/kv-bucket.js';
import { ReadMode, type ReadPlan } from '../../../shared/store/read-plan.js';
import { encodeContinue } from '../../../shared/store/continue-token.js';
import { type WatchCache } from '../../../shared/store/watch-cache.js';
import type { CachedObject } from '../../../shared/codec/cached-object.js';
import { resourceKey } from '../../../shared/api/resource-key.js';
import type { ObjectSource, StoredObject } from '../../../shared/registry/rest/store-types.js';
import type { Target } from '../../../shared/registry/types.js';
import type { ObjectFilter } from './selectors.js';

export interface ReaderOptions {
  busTimeoutMs: number;
  /** How long a read waits for a requested (future) resourceVersion before 504. */
  resourceVersionWaitMs: number;
  /** How long a watch from an older revision waits for the window's rebuild at start-up (HISTORY_WAIT_MS). */
  historyWaitMs?: number;
}

/** A joining gateway rebuilds its window within seconds; a watch waits this long for it before it is answered 410. */
const HISTORY_WAIT_MS = 60_000;

/** One page of a list: the items and the list's metadata (resourceVersion, continue, remainingItemCount). */
export interface ListPage {
  items: CachedObject[];
  metadata: Record<string, unknown>;
}

export class CacheReader implements ObjectSource {
  readonly barrier: RevisionBarrier;

  constructor(
    readonly cache: WatchCache,
    latestRevision: () => Promise<number>,
    private readonly opts: ReaderOptions,
  ) {
    // A fetch that fails for the store's sake (no answer, no leader) is that Status, not a 500.
    this.barrier = new RevisionBarrier({ fetch: latestRevision, timeoutMs: opts.busTimeoutMs, failure: (err) => kvFailureStatus(err, MAX_OBJECT_BYTES) });
  }

  /** Makes the cache satisfy a read plan, within `deadline` when the read serves a request that has one. */
  async settle(plan: ReadPlan, deadline?: Deadline): Promise<void> {
    switch (plan.mode) {
      case ReadMode.Consistent: {
        // The barrier bounds its own wait; a deadline that comes sooner cuts it (a timer per read only then).
        const fetched = this.barrier.latest();
        const latest = await (deadline && deadline.remainingMs() < this.barrier.maxWaitMs ? deadline.race(fetched) : fetched);
        if (latest > this.cache.revision || !this.cache.synced) await boundedWait(deadline, this.opts.busTimeoutMs, (ms) => this.cache.waitFor(latest, ms));
        return;
      }
      case ReadMode.NotOlderThan:
        if (plan.revision > this.cache.revision) await boundedWait(deadline, this.opts.resourceVersionWaitMs, (ms) => this.cache.waitFor(plan.revision, ms));
        return;
      case ReadMode.Exact:
        if (plan.revision > this.cache.revision) await boundedWait(deadline, this.opts.resourceVersionWaitMs, (ms) => this.cache.waitFor(plan.revision, ms));
        else if (this.cache.awaitsHistory(plan.revision)) await this.history(deadline);
        return;
      default:
        await (deadline ? deadline.race(this.cache.whenSynced()) : this.cache.whenSynced());
    }
  }

  /**
   * A read of a revision older than the cache's load, while the window before it is still being
   * rebuilt from the change log, waits for that: within the request's deadline (then its 504), or
   * for a watch up to `historyWaitMs`, after which it is served as history then stands (410 for
   * what the cache lacks). It is never answered from a window that may yet grow.
   */
  private async history(deadline?: Deadline): Promise<void> {
    if (!deadline) {
      await this.cache.whenHistory(this.opts.historyWaitMs ?? HISTORY_WAIT_MS);
      return;
    }
    if (!(await this.cache.whenHistory(Math.max(0, deadline.remainingMs())))) throw deadline.exceeded();
  }

  async current(t: Target, namespace: string | undefined, name: string, fresh: boolean, deadline?: Deadline): Promise<StoredObject | undefined> {
    await this.settle({ mode: fresh ? ReadMode.Consistent : ReadMode.Any, revision: 0 }, deadline);
    const o = this.cache.get(t.cacheKey, namespace, name);
    if (o || fresh) return o;
    // Possibly created through another gateway a moment ago: look again after a consistent barrier.
    await this.settle({ mode: ReadMode.Consistent, revision: 0 }, deadline);
    return this.cache.get(t.cacheKey, namespace, name);
  }

  /** Best effort: a revision the cache does not reach in time is left to the write's compare-and-swap, unless the request's deadline passed meanwhile. */
  async caughtUp(revision: number, deadline?: Deadline): Promise<void> {
    if (revision <= this.cache.revision) return;
    // Cut short by the deadline, the wait fails with the deadline's 504, which the write answers.
    const cut = deadline !== undefined && deadline.remainingMs() < this.opts.resourceVersionWaitMs;
    try {
      await boundedWait(deadline, this.opts.resourceVersionWaitMs, (ms) => this.cache.waitFor(revision, ms));
    } catch (err) {
      if (cut) throw err;
    }
  }

  /** A stored object as of a consistent read (read-after-write), in its stored form. */
  async lookup(group: string, resource: string, namespace: string | undefined, name: string, deadline?: Deadline): Promise<ApiObject | undefined> {
    await this.settle({ mode: ReadMode.Consistent, revision: 0 }, deadline);
    return this.cache.get(resourceKey(group, resource), namespace, name)?.object;
  }

  /** Every stored object of a type as of a consistent read, in one namespace when given. */
  async lookupAll(group: string, resource: string, namespace?: string, deadline?: Deadline): Promise<ApiObject[]> {
    await this.settle({ mode: ReadMode.Consistent, revision: 0 }, deadline);
    const all = this.cache.current(resourceKey(group, resource));
    return all.filter((o) => !namespace || o.ref.namespace === namespace).map((o) => o.object);
  }

  /** One page of a list after `settle(plan)`: objects in key order, from the continue point, up to `limit`. */
  page(t: Target, plan: ReadPlan, namespace: string | undefined, filter: ObjectFilter | undefined, limit: number, selectors: boolean): ListPage {
    let revision: number;
    let all: CachedObject[];
    if (plan.mode === ReadMode.Exact) {
      revision = plan.revision;
      try {
        all = this.cache.snapshot(t.cacheKey, revision);
      } catch (err) {
        if (plan.continueFrom && err instanceof StatusError && err.code === 410) throw expiredContinue(plan.continueFrom.start);
        throw err;
      }
    } else {
      revision = this.cache.revision;
      all = this.cache.current(t.cacheKey);
    }

    let i = plan.continueFrom ? firstAfter(all, plan.continueFrom.start) : namespace ? firstAfter(all, `${namespace}/`, true) : 0;
    const items: CachedObject[] = [];
    for (; i < all.length && items.length < limit; i++) {
      const o = all[i]!;
      if (namespace && o.object.metadata.namespace !== namespace) break; // key order: a namespace is contiguous
      if (filter && !filter(o.object)) continue;
      items.push(o);
    }
    // More may remain only if the page stopped at the limit. remainingItemCount is given only
    // without selectors (counting would need a full scan).
    let more = false;
    let remaining = 0;
    if (items.length >= limit && !filter) {
      // Key order: what remains is the rest of the namespace's range (or of the list), counted
      // without a walk.
      remaining = (namespace ? firstAfter(all, `${namespace}0`, true) : all.length) - i;
      more = remaining > 0;
    } else if (items.length >= limit) {
      for (let j = i; j < all.length; j++) {
        const o = all[j]!;
        if (namespace && o.object.metadata.namespace !== namespace) break;
        if (filter && !filter(o.object)) continue;
        more = true;
        if (selectors) break;
        remaining++;
      }
    }
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    const last = items[items.length - 1];
    if (more && last) {
      metadata.continue = encodeContinue({ rv: plan.continueFrom?.rv === -1 ? -1 : revision, start: last.sortKey });
      if (!selectors) metadata.remainingItemCount = remaining;
    }
    return { items, metadata };
  }
}

/** Index of the first item whose sort key is after `key` (or at/after it, when `inclusive`). */
function firstAfter(items: CachedObject[], key: string, inclusive = false): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = items[mid]!.sortKey;
    if (k < key || (!inclusive && k === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function expiredContinue(start: string): StatusError {
  const err = resourceExpired(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );
  err.status.metadata = { continue: encodeContinue({ rv: -1, start }) };
  return err;
}
