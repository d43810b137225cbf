import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RevisionBarrier } from '../revision-barrier.js';
import { serviceUnavailable, StatusError } from '../../api/status.js';

/** One turn of the event loop: what a fetch gathered is sent by the end of it. */
const turn = () => new Promise((r) => setImmediate(r));

/** A stream whose last revision the test moves, answering each fetch when told to. */
class Stream {
  revision = 0;
  /** Fetches asked of the stream and not answered yet. */
  readonly pending: Array<{ answer(): void; fail(err: unknown): void }> = [];
  asked = 0;
  maxOutstanding = 0;

  readonly fetch = (): Promise<number> => {
    this.asked++;
    return new Promise<number>((resolve, reject) => {
      // The stream's state when the request reaches it: now, not when it is answered.
      const at = this.revision;
      this.pending.push({ answer: () => resolve(at), fail: reject });
      this.maxOutstanding = Math.max(this.maxOutstanding, this.pending.length);
    });
  };

  answerAll(): void {
    for (const p of this.pending.splice(0)) p.answer();
  }
}

test('revision barrier - readers of one turn share one fetch, sent after all of them came', async () => {
  const s = new Stream();
  const b = new RevisionBarrier({ fetch: s.fetch, timeoutMs: 1_000 });
  s.revision = 7;
  const readers = Array.from({ length: 20 }, () => b.latest());
  assert.equal(s.asked, 0, 'nothing is sent before the turn ends');
  await turn();
  assert.equal(s.asked, 1);
  s.answerAll();
  assert.deepEqual(await Promise.all(readers), Array(20).fill(7));
  assert.equal(b.fetches, 1);
});

test('revision barrier - a reader that comes while a fetch is out waits for the next one, never the one in flight', async () => {
  const s = new Stream();
  const b = new RevisionBarrier({ fetch: s.fetch, timeoutMs: 1_000 });
  s.revision = 5;
  const early = b.latest();
  await turn();
  // A write completes after the first fetch reached the stream; a reader who saw it starts now.
  s.revision = 6;
  const late = [b.latest(), b.latest()];
  await turn();
  assert.equal(s.asked, 1, 'one fetch in flight at a time: the second gathers');
  s.answerAll();
  assert.equal(await early, 5);
  // Readers that come after the answer and before the next fetch is sent join it too.
  const later = b.latest();
  await turn();
  assert.equal(s.asked, 2);
  s.answerAll();
  assert.deepEqual(await Promise.all([...late, later]), [6, 6, 6], 'the late readers see the write');
  assert.equal(s.maxOutstanding, 1);
});

test('revision barrier - a failed fetch answers its readers with the failure, and the next readers get a fetch of their own', async () => {
  const s = new Stream();
  const b = new RevisionBarrier({ fetch: s.fetch, timeoutMs: 1_000, failure: () => serviceUnavailable('the object store is unavailable') });
  const first = b.latest();
  await turn();
  s.pending.shift()!.fail(new Error('no responders'));
  await assert.rejects(first, (err: unknown) => err instanceof StatusError && err.code === 503);
  s.revision = 9;
  const second = b.latest();
  await turn();
  s.answerAll();
  assert.equal(await second, 9);
});

test('revision barrier - a fetch that does not answer in time is a 504 for its readers; those waiting behind it are sent theirs', async () => {
  const s = new Stream();
  const b = new RevisionBarrier({ fetch: s.fetch, timeoutMs: 30 });
  assert.equal(b.maxWaitMs, 60, 'a reader waits at most the fetch in flight and its own');
  const stuck = b.latest();
  await turn();
  const behind = b.latest();
  await assert.rejects(stuck, (err: unknown) => err instanceof StatusError && err.code === 504 && err.status.reason === 'Timeout');
  await turn();
  assert.equal(s.asked, 2, 'the reader behind the stuck fetch got a fetch of its own');
  s.revision = 3;
  s.pending.pop()!.answer();
  assert.equal(await behind, 0, 'its answer is the state when its request reached the stream');
});

test('revision barrier - a fetch that throws at once rejects its readers and leaves the barrier usable', async () => {
  let calls = 0;
  const b = new RevisionBarrier({
    fetch: () => {
      if (calls++ === 0) throw new Error('not connected');
      return Promise.resolve(4);
    },
    timeoutMs: 1_000,
  });
  await assert.rejects(b.latest(), /not connected/);
  assert.equal(await b.latest(), 4);
});
