// timeoutSeconds as a request deadline: when one is set, and upstream's 504 for work that outlives it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../../shared/api/status.js';
import { beforeDeadline, requestDeadline } from '../deadline.js';

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

test('deadline - work done in time gives its value, its failure stays its own', async () => {
  assert.equal(await beforeDeadline(Promise.resolve(7), Date.now() + 1_000), 7);
  assert.equal(await beforeDeadline(Promise.resolve('x'), Infinity), 'x');
  await assert.rejects(beforeDeadline(Promise.reject(new Error('own')), Date.now() + 1_000), /own/);
});

test('deadline - work that outlives it is upstream 504 Timeout, at the deadline', async () => {
  const t0 = Date.now();
  const never = new Promise<never>(() => undefined);
  await assert.rejects(beforeDeadline(never, t0 + 150), (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.deepEqual(e.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    return true;
  });
  const took = Date.now() - t0;
  assert.ok(took >= 140 && took < 1_000, `took ${took} ms`);
  // A deadline already past answers at once.
  await assert.rejects(beforeDeadline(never, t0 - 1), (e: unknown) => e instanceof StatusError && e.code === 504);
});
