// How long a promise took to be refused with a Status, for tests of deadlines.

import assert from 'node:assert/strict';
import { StatusError } from '../../shared/api/status.js';

/** The StatusError `p` (or what `p()` returns, timed from before the call) rejects with and how long that took (ms); fails the test when it resolves. */
export async function timedRejection(p: Promise<unknown> | (() => Promise<unknown>)): Promise<{ err: StatusError; ms: number }> {
  const t0 = performance.now();
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return { err, ms: performance.now() - t0 };
  }
  assert.fail('it was answered');
}
