import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OrderedSteps } from '../ordered-steps.js';

const tick = () => new Promise((r) => setImmediate(r));

test('ordered steps - steps after an asynchronous one wait for it, in the order they came', async () => {
  const done: string[] = [];
  const steps = new OrderedSteps((err) => assert.fail(String(err)));
  let finish!: () => void;
  steps.run(() => void done.push('a'));
  steps.run(() => new Promise<void>((r) => (finish = r)).then(() => void done.push('b')));
  steps.run(() => void done.push('c'));
  steps.run(async () => void done.push('d'));
  steps.run(() => void done.push('e'));
  await tick();
  assert.deepEqual(done, ['a'], 'nothing passes a step still running');
  finish();
  await tick();
  assert.deepEqual(done, ['a', 'b', 'c', 'd', 'e']);
  steps.run(() => void done.push('f'));
  assert.equal(done.at(-1), 'f', 'with nothing running, a step runs at once');
});

test('ordered steps - a step that throws or rejects is reported, and the next one runs', async () => {
  const done: string[] = [];
  const errors: string[] = [];
  const steps = new OrderedSteps((err) => errors.push((err as Error).message));
  steps.run(() => {
    throw new Error('sync');
  });
  steps.run(() => Promise.reject(new Error('async')));
  steps.run(() => void done.push('after'));
  await tick();
  assert.deepEqual(errors, ['sync', 'async']);
  assert.deepEqual(done, ['after']);
});
