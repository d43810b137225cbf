import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planGet, planList, planWatch, ReadMode } from '../read-plan.js';
import { encodeContinue } from '../continue-token.js';

test('read plan - get resourceVersion semantics', () => {
  assert.equal(planGet(undefined).mode, ReadMode.Consistent);
  assert.equal(planGet('0').mode, ReadMode.Any);
  assert.deepEqual(planGet('42'), { mode: ReadMode.NotOlderThan, revision: 42 });
  assert.throws(
    () => planGet('abc'),
    (e: any) => e.status.code === 400,
  );
});

test('read plan - list table of the spec', () => {
  const tok = encodeContinue({ rv: 9, start: 'default/a' });
  const rows: Array<[Parameters<typeof planList>[0], string | number]> = [
    [{}, ReadMode.Consistent],
    [{ resourceVersion: '0' }, ReadMode.Any],
    [{ resourceVersion: '5' }, ReadMode.NotOlderThan],
    [{ resourceVersion: '5', limit: 10 }, ReadMode.Exact],
    [{ limit: 10 }, ReadMode.Consistent],
    [{ resourceVersion: '0', limit: 10 }, ReadMode.Any],
    [{ limit: 10, continue: tok }, ReadMode.Exact],
    [{ resourceVersion: '0', limit: 10, continue: tok }, ReadMode.Exact],
    [{ resourceVersion: '5', limit: 10, continue: tok }, 400],
    [{ resourceVersionMatch: 'Exact' }, 400],
    [{ resourceVersionMatch: 'Exact', resourceVersion: '0' }, 400],
    [{ resourceVersionMatch: 'Exact', resourceVersion: '5' }, ReadMode.Exact],
    [{ resourceVersionMatch: 'NotOlderThan' }, 400],
    [{ resourceVersionMatch: 'NotOlderThan', resourceVersion: '0' }, ReadMode.Any],
    [{ resourceVersionMatch: 'NotOlderThan', resourceVersion: '5', limit: 3 }, ReadMode.NotOlderThan],
    [{ resourceVersionMatch: 'Bogus', resourceVersion: '5' }, 400],
    [{ resourceVersionMatch: 'Exact', resourceVersion: '5', continue: tok }, 400],
    [{ continue: 'not-a-token' }, 400],
  ];
  for (const [opts, want] of rows) {
    if (typeof want === 'number')
      assert.throws(
        () => planList(opts),
        (e: any) => e.status.code === want,
        JSON.stringify(opts),
      );
    else assert.equal(planList(opts).mode, want, JSON.stringify(opts));
  }
  const cont = planList({ limit: 10, continue: tok });
  assert.equal(cont.revision, 9);
  assert.equal(cont.continueFrom?.start, 'default/a');
});

test('read plan - watch table of the spec and streaming lists', () => {
  assert.deepEqual(planWatch({}), { mode: ReadMode.Consistent, revision: 0, initialEvents: true, initialEventsEndBookmark: false });
  assert.equal(planWatch({ resourceVersion: '0' }).initialEvents, true);
  assert.deepEqual(planWatch({ resourceVersion: '7' }), { mode: ReadMode.Exact, revision: 7, initialEvents: false, initialEventsEndBookmark: false });
  assert.throws(
    () => planWatch({ sendInitialEvents: true }),
    (e: any) => e.status.code === 400,
  );
  assert.throws(
    () => planWatch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }),
    (e: any) => e.status.code === 400,
  );
  const s = planWatch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
  assert.equal(s.initialEventsEndBookmark, true);
  assert.throws(
    () => planWatch({ resourceVersionMatch: 'NotOlderThan', resourceVersion: '1' }),
    (e: any) => e.status.code === 400,
  );
});
