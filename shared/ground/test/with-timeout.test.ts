import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withTimeout } from '../with-timeout.js';

test('withTimeout - a promise settling in time passes through; a late one rejects with the message', async () => {
  assert.equal(await withTimeout(Promise.resolve(7), 50), 7);
  await assert.rejects(withTimeout(Promise.reject(new Error('own')), 50), /own/);
  await assert.rejects(withTimeout(new Promise((r) => setTimeout(r, 200)), 20, 'too slow'), /too slow/);
  await assert.rejects(withTimeout(new Promise(() => undefined), 20), /no answer within 20 ms/);
});
