import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../status.js';
import { parseBoolParam, parseDeleteOptions, parseListOptions, parseWriteOptions } from '../query.js';

const q = (s: string) => new URLSearchParams(s);

function bad(fn: () => unknown, msg: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof StatusError && e.code === 400 && e.status.reason === 'BadRequest' && msg.test(e.message));
}

test('query - list options defaults', () => {
  assert.deepEqual(parseListOptions(q('')), { watch: false, allowWatchBookmarks: false });
});

test('query - list options, every parameter', () => {
  assert.deepEqual(
    parseListOptions(
      q(
        'labelSelector=app%3Dweb&fieldSelector=metadata.name%3Dx&resourceVersion=42&resourceVersionMatch=NotOlderThan&limit=500&continue=tok&watch=1&allowWatchBookmarks=true&timeoutSeconds=30&sendInitialEvents=false',
      ),
    ),
    {
      labelSelector: 'app=web',
      fieldSelector: 'metadata.name=x',
      resourceVersion: '42',
      resourceVersionMatch: 'NotOlderThan',
      limit: 500,
      continue: 'tok',
      watch: true,
      allowWatchBookmarks: true,
      timeoutSeconds: 30,
      sendInitialEvents: false,
    },
  );
});

test('query - empty values mean unset', () => {
  assert.deepEqual(parseListOptions(q('labelSelector=&fieldSelector=&resourceVersion=&resourceVersionMatch=&limit=&continue=&timeoutSeconds=')), { watch: false, allowWatchBookmarks: false });
  assert.equal(parseListOptions(q('limit=0')).limit, 0);
  assert.equal(parseListOptions(q('resourceVersion=0')).resourceVersion, '0');
});

const badList: { name: string; query: string; msg: RegExp }[] = [
  { name: 'non-integer limit', query: 'limit=ten', msg: /^limit: Invalid value: "ten": must be an integer/ },
  { name: 'fractional limit', query: 'limit=1.5', msg: /^limit: Invalid value/ },
  { name: 'huge limit', query: 'limit=99999999999999999', msg: /^limit: Invalid value/ },
  { name: 'non-integer timeoutSeconds', query: 'timeoutSeconds=1m', msg: /^timeoutSeconds: Invalid value/ },
  { name: 'negative timeoutSeconds', query: 'timeoutSeconds=-5', msg: /^timeoutSeconds: Invalid value/ },
  { name: 'resourceVersionMatch', query: 'resourceVersion=1&resourceVersionMatch=exact', msg: /^resourceVersionMatch: Unsupported value: "exact": supported values: "Exact", "NotOlderThan"/ },
  { name: 'non-numeric resourceVersion', query: 'resourceVersion=abc', msg: /^resourceVersion: Invalid value: "abc"/ },
  { name: 'negative resourceVersion', query: 'resourceVersion=-1', msg: /^resourceVersion: Invalid value/ },
];

for (const c of badList) {
  test(`query - list rejects ${c.name}`, () => bad(() => parseListOptions(q(c.query)), c.msg));
}

test('query - boolean parameters', () => {
  const cases: [string, boolean | undefined][] = [
    ['', undefined],
    ['f=true', true],
    ['f=True', true],
    ['f=1', true],
    ['f', true],
    ['f=', true],
    ['f=false', false],
    ['f=FALSE', false],
    ['f=fAlSe', false],
    ['f=0', false],
    // Upstream's parameter codec: anything but 0 and false is true (strconv.ParseBool's f and F too).
    ['f=yes', true],
    ['f=on', true],
    ['f=2', true],
    ['f=f', true],
    ['f=F', true],
    ['f=no', true],
    ['f=00', true],
  ];
  for (const [s, want] of cases) assert.equal(parseBoolParam(q(s), 'f'), want, s);
});

test('query - list booleans never fail: watch=yes is a watch, allowWatchBookmarks=2 and sendInitialEvents=maybe are true', () => {
  const o = parseListOptions(q('watch=yes&allowWatchBookmarks=2&sendInitialEvents=maybe'));
  assert.deepEqual([o.watch, o.allowWatchBookmarks, o.sendInitialEvents], [true, true, true]);
  assert.equal(parseListOptions(q('watch=False')).watch, false);
});

test('query - a negative limit is no limit, as upstream ignores it', () => {
  assert.equal(parseListOptions(q('limit=-1')).limit, undefined);
  assert.equal(parseListOptions(q('limit=-500')).limit, undefined);
  assert.equal(parseListOptions(q('limit=0')).limit, 0);
});

test('query - write options defaults', () => {
  assert.deepEqual(parseWriteOptions(q('')), { dryRun: false, fieldValidation: 'Warn', pretty: false, force: false });
});

test('query - write options, every parameter', () => {
  assert.deepEqual(parseWriteOptions(q('dryRun=All&fieldManager=kubectl-client-side-apply&fieldValidation=Strict&pretty=true&force=true')), {
    dryRun: true,
    fieldManager: 'kubectl-client-side-apply',
    fieldValidation: 'Strict',
    pretty: true,
    force: true,
  });
  assert.equal(parseWriteOptions(q('fieldValidation=Ignore')).fieldValidation, 'Ignore');
  assert.equal(parseWriteOptions(q('fieldValidation=')).fieldValidation, 'Warn');
  assert.equal(parseWriteOptions(q('dryRun')).dryRun, false, 'a bare dryRun allows side effects');
  assert.equal(parseWriteOptions(q('dryRun=All&dryRun=All')).dryRun, true);
  assert.equal(parseWriteOptions(q('pretty=nonsense')).pretty, false);
  assert.equal(parseWriteOptions(q(`fieldManager=${'m'.repeat(128)}`)).fieldManager, 'm'.repeat(128));
  assert.equal(parseWriteOptions(q('fieldManager=Gestionnaire%20%C3%A9t%C3%A9')).fieldManager, 'Gestionnaire été');
});

const badWrite: { name: string; query: string; msg: RegExp }[] = [
  { name: 'dryRun other than All', query: 'dryRun=true', msg: /^dryRun: Unsupported value: \["true"\]: supported values: "All"/ },
  { name: 'dryRun lowercase all', query: 'dryRun=all', msg: /^dryRun: Unsupported value/ },
  { name: 'one bad dryRun among several', query: 'dryRun=All&dryRun=Some', msg: /^dryRun: Unsupported value/ },
  { name: 'fieldManager control characters', query: 'fieldManager=a%0Ab', msg: /^fieldManager: Invalid value: "a\\nb": must only contain printable characters/ },
  { name: 'fieldValidation', query: 'fieldValidation=strict', msg: /^fieldValidation: Unsupported value: "strict": supported values: "Ignore", "Strict", "Warn"/ },
];

test('query - force reads as upstream reads booleans: force=please is true, force=0 false', () => {
  assert.equal(parseWriteOptions(q('force=please')).force, true);
  assert.equal(parseWriteOptions(q('force=0')).force, false);
});

for (const c of badWrite) {
  test(`query - write rejects ${c.name}`, () => bad(() => parseWriteOptions(q(c.query)), c.msg));
}

test('query - a fieldManager over 128 bytes is 422 Invalid on the options of the verb', () => {
  const cases = [
    { verb: 'create', kind: 'CreateOptions', fm: 'm'.repeat(129) },
    { verb: 'update', kind: 'UpdateOptions', fm: 'm'.repeat(129) },
    { verb: 'patch', kind: 'PatchOptions', fm: 'é'.repeat(65) },
  ];
  for (const c of cases) {
    assert.throws(
      () => parseWriteOptions(q(`fieldManager=${encodeURIComponent(c.fm)}`), c.verb),
      (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, 422);
        assert.equal(e.status.reason, 'Invalid');
        assert.equal(e.message, `${c.kind} "" is invalid: fieldManager: Too long: must have at most 128 bytes`);
        assert.deepEqual(e.status.details, {
          name: '',
          group: 'meta.platform.io',
          kind: c.kind,
          causes: [{ reason: 'FieldValueTooLong', message: 'Too long: must have at most 128 bytes', field: 'fieldManager' }],
        });
        return true;
      },
    );
  }
});

test('query - delete options from the query', () => {
  assert.deepEqual(parseDeleteOptions(q('')), { preconditions: {}, dryRun: false });
  assert.deepEqual(parseDeleteOptions(q('gracePeriodSeconds=0&propagationPolicy=Foreground&dryRun=All')), {
    preconditions: {},
    dryRun: true,
    gracePeriodSeconds: 0,
    propagationPolicy: 'Foreground',
  });
  assert.deepEqual(parseDeleteOptions(q('orphanDependents=true')), { preconditions: {}, dryRun: false, orphanDependents: true });
});

test('query - delete options from the body', () => {
  assert.deepEqual(
    parseDeleteOptions(q(''), {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 30,
      propagationPolicy: 'Background',
      preconditions: { uid: 'u-1', resourceVersion: '7' },
      dryRun: ['All'],
    }),
    { preconditions: { uid: 'u-1', resourceVersion: '7' }, dryRun: true, gracePeriodSeconds: 30, propagationPolicy: 'Background' },
  );
});

test('query - delete options: body wins where both are set, the query fills the rest', () => {
  const o = parseDeleteOptions(q('gracePeriodSeconds=0&propagationPolicy=Orphan&dryRun=All'), { gracePeriodSeconds: 10, propagationPolicy: 'Foreground' });
  assert.equal(o.gracePeriodSeconds, 10);
  assert.equal(o.propagationPolicy, 'Foreground');
  assert.equal(o.dryRun, true, 'a dry run asked for in the query is honoured even with a body');
  // A body stating orphanDependents replaces the query's propagationPolicy rather than conflicting.
  const p = parseDeleteOptions(q('propagationPolicy=Foreground'), { orphanDependents: false });
  assert.equal(p.propagationPolicy, undefined);
  assert.equal(p.orphanDependents, false);
  assert.deepEqual(parseDeleteOptions(q('gracePeriodSeconds=5'), {}).gracePeriodSeconds, 5);
});

const badDelete: { name: string; query: string; body?: Record<string, unknown>; msg: RegExp }[] = [
  { name: 'propagationPolicy', query: 'propagationPolicy=Cascade', msg: /^propagationPolicy: Unsupported value: "Cascade"/ },
  { name: 'body propagationPolicy', query: '', body: { propagationPolicy: 'orphan' }, msg: /^propagationPolicy: Unsupported value/ },
  { name: 'gracePeriodSeconds', query: 'gracePeriodSeconds=soon', msg: /^gracePeriodSeconds: Invalid value/ },
  { name: 'body gracePeriodSeconds', query: '', body: { gracePeriodSeconds: '5' }, msg: /^gracePeriodSeconds: Invalid value/ },
  { name: 'dryRun', query: 'dryRun=yes', msg: /^dryRun: Unsupported value/ },
  { name: 'body dryRun', query: '', body: { dryRun: ['Everything'] }, msg: /^dryRun: Unsupported value/ },
  { name: 'body dryRun not a list', query: '', body: { dryRun: 'All' }, msg: /^dryRun: Invalid value/ },
  { name: 'both orphanDependents and propagationPolicy', query: '', body: { orphanDependents: true, propagationPolicy: 'Orphan' }, msg: /cannot be both set/ },
  { name: 'both in the query', query: 'orphanDependents=false&propagationPolicy=Orphan', msg: /cannot be both set/ },
  { name: 'preconditions not an object', query: '', body: { preconditions: 'x' }, msg: /^preconditions: Invalid value/ },
  { name: 'precondition uid not a string', query: '', body: { preconditions: { uid: 5 } }, msg: /^preconditions.uid: Invalid value/ },
  { name: 'wrong kind', query: '', body: { kind: 'Pod' }, msg: /must be a DeleteOptions object/ },
];

for (const c of badDelete) {
  test(`query - delete rejects ${c.name}`, () => bad(() => parseDeleteOptions(q(c.query), c.body), c.msg));
}

test('query - negative grace period is allowed (immediate deletion)', () => {
  assert.equal(parseDeleteOptions(q('gracePeriodSeconds=-1')).gracePeriodSeconds, -1);
});
