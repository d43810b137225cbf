// The watch cache's waits of a read made for a request with a deadline: a consistent read whose
// cache cannot reach the stream's last revision (the feed stalled) fails with the deadline's 504
// when the deadline comes first, not after the cache's own wait; without a deadline, the cache's
// own limit and its own 504 still apply.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Deadline } from '../../../shared/api/deadline.js';
import { ReadMode } from '../../../shared/store/read-plan.js';
import { WatchCache } from '../../../shared/store/watch-cache.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { Targets } from '../../../shared/registry/target.js';
import { CacheReader } from '../reads/reader.js';
import { timedRejection } from '../../../test/support/timing.js';

const configMaps = new Targets(createBuiltinRegistry()).preferred('', 'configmaps')!;
const READ_TIMEOUT = 'Timeout: request did not complete within the allotted timeout';
const WRITE_TIMEOUT = 'Timeout: request did not complete within requested timeout - context deadline exceeded';

/** A reader over a synced cache at revision 10 whose stream is at 11: the change never arrives. */
function stalledReader(): CacheReader {
  const cache = new WatchCache();
  cache.markSynced(10);
  return new CacheReader(cache, async () => 11, { busTimeoutMs: 1_500, resourceVersionWaitMs: 1_500 });
}

test("reader deadline - a consistent read the cache cannot catch up with fails at the request's deadline", async () => {
  const consistent = { mode: ReadMode.Consistent, revision: 0 };
  const cut = await timedRejection(() => stalledReader().settle(consistent, new Deadline(performance.now() + 300, false)));
  assert.equal(cut.err.status.code, 504);
  assert.equal(cut.err.status.message, READ_TIMEOUT);
  assert.ok(cut.ms >= 280 && cut.ms < 1_000, `${cut.ms} ms`);
  // A far deadline: the cache's own limit, with its own 504.
  const own = await timedRejection(() => stalledReader().settle(consistent, new Deadline(performance.now() + 60_000, false)));
  assert.equal(own.err.status.code, 504);
  assert.notEqual(own.err.status.message, READ_TIMEOUT);
  assert.ok(own.ms >= 1_400, `${own.ms} ms`);
});

test('reader deadline - a read at a resourceVersion the cache has not reached, and the fresh read of a write, end at the deadline', async () => {
  const ahead = await timedRejection(() => stalledReader().settle({ mode: ReadMode.NotOlderThan, revision: 12 }, new Deadline(performance.now() + 300, false)));
  assert.equal(ahead.err.status.message, READ_TIMEOUT);
  assert.ok(ahead.ms < 1_000, `${ahead.ms} ms`);
  const fresh = await timedRejection(() => stalledReader().current(configMaps, 'default', 'a', true, new Deadline(performance.now() + 300, true)));
  assert.equal(fresh.err.status.message, WRITE_TIMEOUT);
  assert.ok(fresh.ms < 1_000, `${fresh.ms} ms`);
});

test("reader deadline - a write's wait for its resourceVersion is best effort, unless the deadline cut it short", async () => {
  const t0 = performance.now();
  await stalledReader().caughtUp(12, new Deadline(performance.now() + 60_000, true));
  assert.ok(performance.now() - t0 >= 1_400, 'waited its own limit, then went on');
  const cut = await timedRejection(() => stalledReader().caughtUp(12, new Deadline(performance.now() + 300, true)));
  assert.equal(cut.err.status.message, WRITE_TIMEOUT);
  assert.ok(cut.ms < 1_000, `${cut.ms} ms`);
  await stalledReader().caughtUp(10, new Deadline(performance.now() - 1, true));
});
