// Reads of history a joining gateway is still rebuilding from the change log: an Exact read or a
// watch from a revision older than the cache's load waits for the rebuild (a request within its
// deadline, then the deadline's 504; a watch up to its bound, then as history stands: 410), and is
// answered from the rebuilt window once it is there; reads that need no older history do not wait.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Deadline } from '../../../shared/api/deadline.js';
import { ReadMode } from '../../../shared/store/read-plan.js';
import { WatchCache, type WatchSink } from '../../../shared/store/watch-cache.js';
import { encodeKey } from '../../../shared/store/key-codec.js';
import { resourceKey } from '../../../shared/api/resource-key.js';
import { jsonWatchEncoder } from '../../../shared/codec/json.js';
import type { LoggedChange } from '../../../shared/store/change-log.js';
import { CacheReader } from '../reads/reader.js';
import { timedRejection } from '../../../test/support/timing.js';

const CM = resourceKey('', 'configmaps');
const key = encodeKey({ group: '', resource: 'configmaps', namespace: 'default', name: 'a' });
const value = (v: string) => new TextEncoder().encode(JSON.stringify({ metadata: { name: 'a', namespace: 'default' }, data: { v } }));

/** A cache loaded at revision 2 (a at 2, which replaced a at 1), its window still being rebuilt; and the log that rebuilds it. */
function rebuilding(): { cache: WatchCache; reader: CacheReader; log: LoggedChange[] } {
  const cache = new WatchCache();
  cache.apply({ key, revision: 2, operation: 'PUT', value: value('2') });
  cache.markLoaded(2, true);
  const log: LoggedChange[] = [
    { key, revision: 1, operation: 'PUT', value: value('1'), replaced: 'none', at: Date.now() },
    { key, revision: 2, operation: 'PUT', value: value('2'), replaced: { revision: 1 }, at: Date.now() },
  ];
  return { cache, reader: new CacheReader(cache, async () => 2, { busTimeoutMs: 1_000, resourceVersionWaitMs: 1_000, historyWaitMs: 200 }), log };
}

test('reader history - an Exact read from before the load waits for the rebuild and is answered from it', async () => {
  const { cache, reader, log } = rebuilding();
  const settled = reader.settle({ mode: ReadMode.Exact, revision: 1 }, new Deadline(performance.now() + 5_000, false));
  setTimeout(() => void cache.restoreHistory({ changes: log, complete: true }), 100);
  await settled;
  assert.deepEqual(
    cache.snapshot(CM, 1).map((o) => o.object.data),
    [{ v: '1' }],
  );
});

test("reader history - an Exact read the rebuild does not answer in time fails at the request's deadline, not with 410", async () => {
  const { reader } = rebuilding();
  const cut = await timedRejection(reader.settle({ mode: ReadMode.Exact, revision: 1 }, new Deadline(performance.now() + 300, false)));
  assert.equal(cut.err.status.code, 504);
  assert.ok(cut.ms >= 280 && cut.ms < 1_000, `${cut.ms} ms`);
});

test('reader history - a watch waits up to its bound, then is answered as history stands (410); reads of the load or later do not wait', async () => {
  const { cache, reader } = rebuilding();
  const t0 = performance.now();
  await reader.settle({ mode: ReadMode.Exact, revision: 1 });
  assert.ok(performance.now() - t0 >= 190, 'waited for the rebuild');
  const lines: string[] = [];
  const sink: WatchSink = { write: (c) => (lines.push(String(c)), true), close: () => undefined };
  cache.watch(CM, { afterRevision: 1, encoder: jsonWatchEncoder, sink });
  assert.match(lines[0] ?? '', /"code":410/);
  const t1 = performance.now();
  await reader.settle({ mode: ReadMode.Exact, revision: 2 });
  await reader.settle({ mode: ReadMode.NotOlderThan, revision: 1 });
  await reader.settle({ mode: ReadMode.Any, revision: 0 });
  assert.ok(performance.now() - t1 < 100, 'no wait');
});
