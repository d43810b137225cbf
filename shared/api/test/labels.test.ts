import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../status.js';
import { LabelSelector, labelSelectorFromObject, parseLabelSelector, validateLabelSelectorObject, type LabelSelectorObject } from '../labels.js';

const L = { app: 'web', tier: 'front', env: 'prod', n: '5' };

const matchCases: { name: string; sel: string; labels: Record<string, string> | undefined; want: boolean }[] = [
  { name: 'equals', sel: 'app=web', labels: L, want: true },
  { name: 'equals mismatch', sel: 'app=db', labels: L, want: false },
  { name: 'double equals', sel: 'app==web', labels: L, want: true },
  { name: 'equals missing key', sel: 'missing=x', labels: L, want: false },
  { name: 'not equals', sel: 'app!=db', labels: L, want: true },
  { name: 'not equals same value', sel: 'app!=web', labels: L, want: false },
  { name: 'not equals matches objects without the key', sel: 'missing!=x', labels: L, want: true },
  { name: 'not equals matches unlabelled objects', sel: 'app!=web', labels: undefined, want: true },
  { name: 'in', sel: 'env in (prod, staging)', labels: L, want: true },
  { name: 'in miss', sel: 'env in (dev,staging)', labels: L, want: false },
  { name: 'in missing key', sel: 'missing in (a)', labels: L, want: false },
  { name: 'notin', sel: 'env notin (dev)', labels: L, want: true },
  { name: 'notin hit', sel: 'env notin (dev,prod)', labels: L, want: false },
  { name: 'notin matches objects without the key', sel: 'missing notin (a)', labels: L, want: true },
  { name: 'exists', sel: 'tier', labels: L, want: true },
  { name: 'exists missing', sel: 'missing', labels: L, want: false },
  { name: 'does not exist', sel: '!missing', labels: L, want: true },
  { name: 'does not exist present', sel: '!tier', labels: L, want: false },
  { name: 'greater than', sel: 'n>3', labels: L, want: true },
  { name: 'greater than equal bound', sel: 'n>5', labels: L, want: false },
  { name: 'less than', sel: 'n<10', labels: L, want: true },
  { name: 'less than compares as integers', sel: 'n<10', labels: { n: '9' }, want: true },
  { name: 'greater than non-integer label', sel: 'app>3', labels: L, want: false },
  { name: 'greater than missing key', sel: 'missing>3', labels: L, want: false },
  { name: 'conjunction', sel: 'app=web,env in (prod),!missing,tier', labels: L, want: true },
  { name: 'conjunction one fails', sel: 'app=web,env=dev', labels: L, want: false },
  { name: 'empty value equals', sel: 'blank=', labels: { blank: '' }, want: true },
  { name: 'empty value does not match missing', sel: 'blank=', labels: {}, want: false },
  { name: 'prototype keys are not labels', sel: 'constructor', labels: {}, want: false },
  { name: 'prototype keys do not exist', sel: '!toString', labels: {}, want: true },
  { name: 'prefixed key', sel: 'platform.io/role=node', labels: { 'platform.io/role': 'node' }, want: true },
  { name: 'whitespace everywhere', sel: '  app = web ,  env  in(prod) , ! missing ', labels: L, want: true },
  { name: 'empty selector', sel: '', labels: undefined, want: true },
  { name: 'blank selector', sel: '   ', labels: L, want: true },
];

for (const c of matchCases) {
  test(`labels - matches ${c.name}`, () => {
    assert.equal(parseLabelSelector(c.sel).matches(c.labels), c.want, c.sel);
  });
}

const canonical: { in: string; out: string }[] = [
  { in: 'b=1,a=2', out: 'a=2,b=1' },
  { in: 'x in (c, a, b, a)', out: 'x in (a,b,c)' },
  { in: 'x notin (b,a)', out: 'x notin (a,b)' },
  { in: '!z, y', out: 'y,!z' },
  { in: 'a==1,a!=2', out: 'a==1,a!=2' },
  { in: 'n > 3, n < 9', out: 'n>3,n<9' },
  { in: 'k=', out: 'k=' },
  { in: 'k in ()', out: 'k in ()' },
];

for (const c of canonical) {
  test(`labels - canonical form of ${JSON.stringify(c.in)}`, () => {
    const s = parseLabelSelector(c.in);
    assert.equal(s.toString(), c.out);
    assert.equal(parseLabelSelector(s.toString()).toString(), c.out, 'round-trips');
  });
}

const bad: { name: string; sel: string; msg: RegExp }[] = [
  { name: 'invalid key characters', sel: 'a b=c', msg: /expected/ },
  { name: 'key with bad character', sel: 'a$b=c', msg: /key: Invalid value: "a\$b"/ },
  { name: 'key too long', sel: `${'k'.repeat(64)}=v`, msg: /name part must be no more than 63 characters/ },
  { name: 'empty prefix', sel: '/a=b', msg: /prefix part must be non-empty/ },
  { name: 'uppercase prefix', sel: 'Example.COM/a=b', msg: /prefix part a lowercase RFC 1123 subdomain/ },
  { name: 'two slashes', sel: 'a/b/c=d', msg: /qualified name/ },
  { name: 'value too long', sel: `a=${'v'.repeat(64)}`, msg: /must be no more than 63 characters/ },
  { name: 'value bad character', sel: 'a=b$c', msg: /a valid label must be an empty string/ },
  { name: 'value starting with dash', sel: 'a=-b', msg: /a valid label must be an empty string/ },
  { name: 'gt needs integer', sel: 'a>b', msg: /must be an integer/ },
  { name: 'gt needs a value', sel: 'a>', msg: /must be an integer/ },
  { name: 'unsupported operator >=', sel: 'a>=1', msg: /expected: identifier/ },
  { name: 'in without parens', sel: 'a in b', msg: /expected: '\('/ },
  { name: 'unclosed in', sel: 'a in (b', msg: /end of string/ },
  { name: 'in with operator inside', sel: 'a in (b=c)', msg: /expected/ },
  { name: 'bang without key', sel: '!', msg: /identifier after '!'/ },
  { name: 'bang with operator', sel: '!a=b', msg: /expected: ',' or end of string/ },
  { name: 'dangling comma', sel: 'a=b,', msg: /expected: '!' or identifier/ },
  { name: 'leading comma', sel: ',a=b', msg: /expected: '!' or identifier/ },
  { name: 'two values', sel: 'a=b c', msg: /expected: ',' or end of string/ },
  { name: 'bad value in set', sel: 'a in (ok, b$d)', msg: /values\[1\]\[a\]/ },
];

for (const c of bad) {
  test(`labels - rejects ${c.name}`, () => {
    assert.throws(
      () => parseLabelSelector(c.sel),
      (err: unknown) => err instanceof StatusError && err.code === 400 && err.status.reason === 'BadRequest' && c.msg.test(err.message),
      c.sel,
    );
  });
}

test('labels - empty flag and everything/nothing', () => {
  assert.equal(parseLabelSelector('').empty, true);
  assert.equal(parseLabelSelector('a').empty, false);
  assert.equal(LabelSelector.everything().matches(undefined), true);
  assert.equal(LabelSelector.nothingSelector().matches({ a: 'b' }), false);
  assert.equal(LabelSelector.nothingSelector().empty, false);
});

test('labels - long hostile input is parsed in linear time', () => {
  const sel = Array.from({ length: 5000 }, (_, i) => `k${i}=${'v'.repeat(60)}`).join(',');
  const t0 = performance.now();
  const s = parseLabelSelector(sel);
  assert.equal(s.requirements.length, 5000);
  const junk = `${'a'.repeat(200000)}$=b`;
  assert.throws(() => parseLabelSelector(junk), StatusError);
  assert.ok(performance.now() - t0 < 1000);
});

const objectCases: { name: string; sel: LabelSelectorObject | null | undefined; labels: Record<string, string>; want: boolean }[] = [
  { name: 'nil selects nothing', sel: null, labels: L, want: false },
  { name: 'undefined selects nothing', sel: undefined, labels: L, want: false },
  { name: 'empty selects everything', sel: {}, labels: L, want: true },
  { name: 'matchLabels', sel: { matchLabels: { app: 'web', env: 'prod' } }, labels: L, want: true },
  { name: 'matchLabels miss', sel: { matchLabels: { app: 'db' } }, labels: L, want: false },
  { name: 'In', sel: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] }, labels: L, want: true },
  { name: 'NotIn without key', sel: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, labels: L, want: true },
  { name: 'Exists', sel: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, labels: L, want: true },
  { name: 'DoesNotExist', sel: { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist', values: [] }] }, labels: L, want: false },
  { name: 'labels and expressions', sel: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] }, labels: L, want: true },
];

for (const c of objectCases) {
  test(`labels - from object ${c.name}`, () => {
    assert.equal(labelSelectorFromObject(c.sel).matches(c.labels), c.want);
  });
}

test('labels - from object canonical form', () => {
  const s = labelSelectorFromObject({ matchLabels: { b: '1' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['y', 'x'] }] });
  assert.equal(s.toString(), 'a in (x,y),b=1');
});

test('labels - from object rejects invalid selectors with 400', () => {
  for (const sel of [
    { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
    { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
    { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
    { matchLabels: { 'bad key': 'v' } },
    { matchExpressions: [{ key: 'a', operator: 'constructor' }] },
  ]) {
    assert.throws(
      () => labelSelectorFromObject(sel),
      (e: unknown) => e instanceof StatusError && e.code === 400,
      JSON.stringify(sel),
    );
  }
});

test('labels - validateLabelSelectorObject field errors', () => {
  const errs = validateLabelSelectorObject(
    {
      matchLabels: { ok: 'v', 'bad key': 'v' },
      matchExpressions: [
        { key: 'a', operator: 'In', values: [] },
        { key: 'b', operator: 'Exists', values: ['x'] },
        { key: 'c', operator: 'Gt', values: ['1'] },
        { key: 'd', operator: 'In', values: ['ok', 'not ok'] },
      ],
    },
    'spec.selector',
  );
  assert.deepEqual(
    errs.map((e) => `${e.field}: ${e.type}`),
    [
      'spec.selector.matchLabels: Invalid value',
      'spec.selector.matchExpressions[0].values: Required value',
      'spec.selector.matchExpressions[1].values: Forbidden',
      'spec.selector.matchExpressions[2].operator: Invalid value',
      'spec.selector.matchExpressions[3].values[1]: Invalid value',
    ],
  );
  assert.deepEqual(validateLabelSelectorObject({ matchLabels: { a: 'b' } }, 'spec.selector'), []);
  assert.deepEqual(validateLabelSelectorObject(null, 'spec.selector'), []);
});
