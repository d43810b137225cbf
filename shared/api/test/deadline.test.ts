// A request's deadline over the waits of its hops: a wait is cut to what remains, its timeout then
// becomes the deadline's 504, and nothing is started once the deadline has passed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedWait, Deadline } from '../deadline.js';
import { StatusError, timeout } from '../status.js';

const WRITE_TIMEOUT = 'Timeout: request did not complete within requested timeout - context deadline exceeded';
const READ_TIMEOUT = 'Timeout: request did not complete within the allotted timeout';

/** A wait that records the time it was given and fails as a hop that ran out of it does. */
function timingOut(given: number[]) {
  return (ms: number) => {
    given.push(ms);
    return Promise.reject(timeout(`no reply within ${ms}ms`));
  };
}

test('deadline bound - the wait gets the shorter of its own limit and what remains', async () => {
  const cases: { name: string; remainingMs: number; limitMs: number; given: [number, number] }[] = [
    { name: 'far deadline: the wait keeps its own limit', remainingMs: 60_000, limitMs: 5_000, given: [5_000, 5_000] },
    { name: 'near deadline: cut to what remains', remainingMs: 1_000, limitMs: 5_000, given: [990, 1_000] },
  ];
  for (const c of cases) {
    const given: number[] = [];
    const value = await new Deadline(performance.now() + c.remainingMs, true).bound(c.limitMs, async (ms) => {
      given.push(ms);
      return 'answered';
    });
    assert.equal(value, 'answered', c.name);
    assert.equal(given.length, 1, c.name);
    assert.ok(given[0]! >= c.given[0] && given[0]! <= c.given[1], `${c.name}: given ${given[0]}`);
  }
});

test("deadline bound - a wait cut short fails with the deadline's 504; one that kept its own limit with its own", async () => {
  const given: number[] = [];
  await assert.rejects(new Deadline(performance.now() + 500, true).bound(5_000, timingOut(given)), (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.code, 504);
    assert.equal(e.status.reason, 'Timeout');
    assert.equal(e.status.message, WRITE_TIMEOUT);
    return true;
  });
  await assert.rejects(new Deadline(performance.now() + 500, false).bound(5_000, timingOut(given)), { message: READ_TIMEOUT });
  await assert.rejects(new Deadline(performance.now() + 60_000, true).bound(200, timingOut(given)), { message: 'no reply within 200ms' });
  // Not a timeout: the wait's own failure, cut short or not.
  await assert.rejects(
    new Deadline(performance.now() + 500, true).bound(5_000, () => Promise.reject(new Error('refused'))),
    { message: 'refused' },
  );
  assert.equal(given.length, 3);
});

test('deadline bound - past the deadline nothing is started; without a deadline the wait has its own limit', async () => {
  const given: number[] = [];
  await assert.rejects(new Deadline(performance.now() - 1, true).bound(5_000, timingOut(given)), { message: WRITE_TIMEOUT });
  assert.deepEqual(given, [], 'no wait was started');
  await assert.rejects(boundedWait(undefined, 250, timingOut(given)), { message: 'no reply within 250ms' });
  await assert.rejects(boundedWait(new Deadline(performance.now() + 100, false), 250, timingOut(given)), { message: READ_TIMEOUT });
  assert.equal(given[0], 250);
  assert.ok(given[1]! <= 100, `given ${given[1]}`);
});

test('deadline within - the sooner deadline wins; a sooner one of its own says its own Status', async () => {
  const own = () => new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'own timeout', reason: 'Timeout', code: 504 });
  const request = new Deadline(performance.now() + 60_000, false);
  assert.equal(request.within(120_000, own), request, 'a later one leaves the request deadline');
  const sooner = request.within(100, own);
  assert.notEqual(sooner, request);
  assert.ok(sooner.remainingMs() <= 100 && sooner.remainingMs() > 50, `remaining ${sooner.remainingMs()}`);
  const given: number[] = [];
  await assert.rejects(sooner.bound(5_000, timingOut(given)), { message: 'own timeout' });
  assert.ok(given[0]! <= 100, `the wait was given ${given[0]} ms`);
  // Past the request's own deadline first: the request's Status.
  await assert.rejects(new Deadline(performance.now() + 50, false).within(10_000, own).bound(5_000, timingOut(given)), { message: READ_TIMEOUT });
});
