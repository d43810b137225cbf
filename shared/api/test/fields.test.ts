import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../status.js';
import { escapeFieldValue, parseFieldSelector } from '../fields.js';

const pod: Record<string, string> = { 'metadata.name': 'p1', 'metadata.namespace': 'ns', 'spec.nodeName': 'n1', 'status.phase': 'Running', 'metadata.labels': 'a,b=c\\d' };
const get = (f: string): string | undefined => pod[f];

const parseCases: { name: string; sel: string; want: [string, string, string][] }[] = [
  { name: 'equals', sel: 'metadata.name=p1', want: [['metadata.name', '=', 'p1']] },
  { name: 'double equals', sel: 'metadata.name==p1', want: [['metadata.name', '==', 'p1']] },
  { name: 'not equals', sel: 'status.phase!=Running', want: [['status.phase', '!=', 'Running']] },
  {
    name: 'several terms in order',
    sel: 'b=1,a!=2',
    want: [
      ['b', '=', '1'],
      ['a', '!=', '2'],
    ],
  },
  { name: 'empty value', sel: 'spec.nodeName=', want: [['spec.nodeName', '=', '']] },
  { name: 'escaped comma, equals and backslash', sel: 'x=a\\,b\\=c\\\\d', want: [['x', '=', 'a,b=c\\d']] },
  {
    name: 'empty terms skipped',
    sel: ',a=1,,b=2,',
    want: [
      ['a', '=', '1'],
      ['b', '=', '2'],
    ],
  },
  { name: 'empty selector', sel: '', want: [] },
  { name: 'colons in values', sel: 'spec.signerName=platform.io/kube-apiserver-client', want: [['spec.signerName', '=', 'platform.io/kube-apiserver-client']] },
];

for (const c of parseCases) {
  test(`fields - parses ${c.name}`, () => {
    const s = parseFieldSelector(c.sel);
    assert.deepEqual(
      s.requirements.map((r) => [r.field, r.operator, r.value]),
      c.want,
    );
    assert.equal(s.empty, c.want.length === 0);
    assert.deepEqual(parseFieldSelector(s.toString()).requirements, s.requirements, 'round-trips');
  });
}

const matchCases: { sel: string; want: boolean }[] = [
  { sel: 'metadata.name=p1', want: true },
  { sel: 'metadata.name==p2', want: false },
  { sel: 'metadata.name=p1,spec.nodeName=n1', want: true },
  { sel: 'metadata.name=p1,spec.nodeName!=n1', want: false },
  { sel: 'status.phase!=Pending', want: true },
  { sel: 'spec.missing=', want: true },
  { sel: 'spec.missing!=', want: false },
  { sel: 'spec.missing=x', want: false },
  { sel: 'metadata.labels=a\\,b\\=c\\\\d', want: true },
  { sel: '', want: true },
];

for (const c of matchCases) {
  test(`fields - matches ${JSON.stringify(c.sel)} is ${c.want}`, () => {
    assert.equal(parseFieldSelector(c.sel).matches(get), c.want);
  });
}

test('fields - exactMatch pins a field with = or ==', () => {
  assert.equal(parseFieldSelector('metadata.name=p1').exactMatch('metadata.name'), 'p1');
  assert.equal(parseFieldSelector('a=1,metadata.name==p2').exactMatch('metadata.name'), 'p2');
  assert.equal(parseFieldSelector('metadata.name!=p1').exactMatch('metadata.name'), undefined);
  assert.equal(parseFieldSelector('spec.nodeName=n1').exactMatch('metadata.name'), undefined);
  assert.equal(parseFieldSelector('spec.nodeName=').exactMatch('spec.nodeName'), '');
});

const bad: { name: string; sel: string; msg: RegExp }[] = [
  { name: 'no operator', sel: 'metadata.name', msg: /can't understand "metadata.name"/ },
  { name: 'no field name', sel: '=x', msg: /has no field name/ },
  { name: 'unknown escape', sel: 'a=b\\x', msg: /invalid escape sequence/ },
  { name: 'trailing backslash', sel: 'a=b\\', msg: /trailing backslash/ },
  { name: 'unescaped equals in value', sel: 'a=b=c', msg: /unescaped '='/ },
  { name: 'second term malformed', sel: 'a=b,c', msg: /can't understand "c"/ },
];

for (const c of bad) {
  test(`fields - rejects ${c.name}`, () => {
    assert.throws(
      () => parseFieldSelector(c.sel),
      (e: unknown) => e instanceof StatusError && e.code === 400 && c.msg.test(e.message),
      c.sel,
    );
  });
}

test('fields - escapeFieldValue round-trips through the parser', () => {
  for (const v of ['plain', 'a,b', 'x=y', 'back\\slash', '\\,=', '']) {
    assert.equal(parseFieldSelector(`f=${escapeFieldValue(v)}`).exactMatch('f'), v);
  }
});

test('fields - long input is parsed in linear time', () => {
  const sel = Array.from({ length: 10000 }, (_, i) => `f${i}=${'\\,'.repeat(20)}`).join(',');
  const t0 = performance.now();
  assert.equal(parseFieldSelector(sel).requirements.length, 10000);
  assert.ok(performance.now() - t0 < 1000);
});
