import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgePosition } from '../kv-feed-liveness.js';
import { entryUpTo } from '../kv-feed-stream.js';

// The server's delivered position moves past other keys' entries, so an idle filter's consumer is
// ahead of its last entry all the time: only a position ahead of the same last entry at two checks
// in a row is worth asking the stream about.
test('kv feed liveness - a consumer ahead of the last entry is a suspicion; the same last entry at the next check is asked about', () => {
  const cases: [sent: number, received: number, suspectedAt: number, verdict: ReturnType<typeof judgePosition>][] = [
    [0, 0, -1, 'received'],
    [7, 7, -1, 'received'],
    [5, 7, 7, 'received'],
    [9, 7, -1, 'ahead'],
    [9, 7, 5, 'ahead'],
    [9, 7, 7, 'still-ahead'],
    [12, 7, 7, 'still-ahead'],
  ];
  for (const [sent, received, suspectedAt, verdict] of cases) assert.equal(judgePosition(sent, received, suspectedAt), verdict, `sent ${sent}, received ${received}, suspected at ${suspectedAt}`);
});

test('kv feed stream - an entry at or before the bound was missed; none, or a later one, was not; a stream that cannot say leaves it open', () => {
  assert.equal(entryUpTo(8, 10), true);
  assert.equal(entryUpTo(10, 10), true);
  assert.equal(entryUpTo(11, 10), false);
  assert.equal(entryUpTo(null, 10), false);
  assert.equal(entryUpTo(undefined, 10), undefined);
});
