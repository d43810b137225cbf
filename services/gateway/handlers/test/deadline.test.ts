// timeoutSeconds as a request deadline: when one is set, and upstream's 504 for a wait that outlives
// it, with no wait left running beyond it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Deadline } from '../../../../shared/api/deadline.js';
import { StatusError, timeout } from '../../../../shared/api/status.js';
import { requestDeadline, waitDeadline } from '../deadline.js';

const REQUEST_TIMED_OUT = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
  reason: 'Timeout',
  details: {},
  code: 504,
};

test('deadline - timeoutSeconds sets one; unset, 0 or negative sets none', () => {
  const cases: [number | undefined, number][] = [
    [undefined, Infinity],
    [0, Infinity],
    [-5, Infinity],
    [1, 1_000_000 + 1_000],
    [30, 1_000_000 + 30_000],
  ];
  for (const [seconds, want] of cases) assert.equal(requestDeadline(seconds, 1_000_000), want, String(seconds));
});

test('deadline - without timeoutSeconds, or with a later one, waits keep the request deadline', () => {
  const request = new Deadline(performance.now() + 5_000, false);
  assert.equal(waitDeadline(request, Infinity), request);
  assert.equal(waitDeadline(undefined, Infinity), undefined);
  assert.equal(waitDeadline(request, Date.now() + 60_000), request);
});

test('deadline - a wait that outlives timeoutSeconds ends at it with upstream 504 Timeout', async () => {
  for (const request of [new Deadline(performance.now() + 60_000, false), undefined]) {
    const t0 = Date.now();
    const d = waitDeadline(request, t0 + 150)!;
    let given = Infinity;
    // A wait as the cache's is: it fails with its own 504 when the time it was given runs out.
    const wait = (ms: number) => {
      given = ms;
      return new Promise<never>((_, reject) => setTimeout(() => reject(timeout(`not there within ${ms} ms`)), ms));
    };
    await assert.rejects(d.bound(8_000, wait), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.deepEqual(e.status, REQUEST_TIMED_OUT);
      return true;
    });
    assert.ok(given <= 150, `the wait was given ${given} ms, beyond the list's deadline`);
    const took = Date.now() - t0;
    assert.ok(took >= 140 && took < 1_000, `took ${took} ms`);
  }
  // A deadline already past: nothing is started.
  let started = false;
  await assert.rejects(
    waitDeadline(undefined, Date.now() - 1)!.bound(8_000, async () => {
      started = true;
    }),
    (e: unknown) => e instanceof StatusError && e.code === 504,
  );
  assert.equal(started, false);
});
