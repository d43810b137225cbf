import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../status.js';
import { decodeBody, MAX_BODY_BYTES, parseMediaType } from '../decode.js';
import { MAX_OBJECT_MEMBERS } from '../json-scan.js';

function fails(fn: () => unknown, code: number, msg?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError, `not a StatusError: ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (msg) assert.match(e.message, msg);
    return true;
  });
}

function fast<T>(fn: () => T, ms = 1000): T {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    const took = performance.now() - t0;
    assert.ok(took < ms, `took ${took.toFixed(0)} ms`);
  }
}

const JSON_TYPES = ['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json'];
const YAML_TYPES = ['application/yaml', 'application/apply-patch+yaml'];

test('decode - every JSON and YAML media type decodes', () => {
  for (const mt of JSON_TYPES) assert.deepEqual(decodeBody('{"a":[1,"x",true,null]}', mt).value, { a: [1, 'x', true, null] }, mt);
  for (const mt of YAML_TYPES) assert.deepEqual(decodeBody('a:\n- 1\n- x\n- true\n- null\n', mt).value, { a: [1, 'x', true, null] }, mt);
  assert.deepEqual(decodeBody(Buffer.from('{"a":"é"}'), 'application/json').value, { a: 'é' });
});

test('decode - content type parameters, case and charset', () => {
  assert.deepEqual(decodeBody('{}', 'application/json; charset=utf-8').value, {});
  assert.deepEqual(decodeBody('{}', 'Application/JSON;Charset="UTF-8"').value, {});
  assert.deepEqual(decodeBody('a: 1', 'application/yaml; charset=utf8').value, { a: 1 });
  fails(() => decodeBody('{}', 'application/json; charset=iso-8859-1'), 415, /charset "iso-8859-1"/);
  fails(() => decodeBody('{}', 'application/json; charset=utf-16'), 415);
  assert.deepEqual(parseMediaType(' Application/Merge-Patch+JSON ; charset=UTF-8; x="y"'), { mediaType: 'application/merge-patch+json', params: { charset: 'UTF-8', x: 'y' } });
});

test('decode - unknown media types are 415', () => {
  for (const mt of ['text/plain', 'application/xml', 'application/vnd.platform.protobuf', '', 'application/jsonx']) fails(() => decodeBody('{}', mt), 415);
});

test('decode - bodies over the limit are 413', () => {
  const big = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
  fails(() => decodeBody(big, 'application/json'), 413);
  fails(() => decodeBody('x'.repeat(MAX_BODY_BYTES + 1), 'application/yaml'), 413);
  // 10 MB of `[` never reaches a parser.
  fails(() => fast(() => decodeBody(Buffer.alloc(10 * 1024 * 1024, '['), 'application/json')), 413);
  // The limit counts bytes, not characters.
  fails(() => decodeBody('é'.repeat(MAX_BODY_BYTES / 2 + 1), 'application/json'), 413);
});

test('decode - nesting depth just under the size limit fails fast with 400', () => {
  const deep = '['.repeat(MAX_BODY_BYTES - 1);
  fails(() => fast(() => decodeBody(deep, 'application/json')), 400, /exceeds the maximum nesting depth of 100/);
  fails(() => fast(() => decodeBody(deep, 'application/yaml')), 400, /exceeds the maximum nesting depth of 100/);
  fails(() => fast(() => decodeBody('{"a":'.repeat(500000), 'application/json')), 400, /maximum nesting depth/);
  fails(() => fast(() => decodeBody('{a: '.repeat(500000), 'application/yaml')), 400, /maximum nesting depth/);
  // Compact block nesting makes the yaml library recurse: it must be refused before parsing.
  fails(() => fast(() => decodeBody('- '.repeat(1000000) + 'x', 'application/yaml')), 400, /maximum nesting depth/);
  fails(() => fast(() => decodeBody('? '.repeat(1000000) + 'x', 'application/yaml')), 400, /maximum nesting depth/);
});

test('decode - depth limit is exact and configurable', () => {
  const json = (d: number) => '['.repeat(d) + ']'.repeat(d);
  assert.ok(decodeBody(json(100), 'application/json'));
  fails(() => decodeBody(json(101), 'application/json'), 400, /maximum nesting depth of 100/);
  assert.ok(decodeBody(json(5), 'application/json', { maxDepth: 5 }));
  fails(() => decodeBody(json(6), 'application/json', { maxDepth: 5 }), 400, /maximum nesting depth of 5/);
  const yamlMaps = (d: number) => Array.from({ length: d }, (_, i) => `${' '.repeat(i * 2)}k:`).join('\n') + ' 1\n';
  assert.ok(decodeBody(yamlMaps(100), 'application/yaml'));
  fails(() => decodeBody(yamlMaps(101), 'application/yaml'), 400, /maximum nesting depth of 100/);
  const yamlSeqs = (d: number) => Array.from({ length: d }, (_, i) => `${' '.repeat(i * 2)}-`).join('\n') + ' 1\n';
  assert.ok(decodeBody(yamlSeqs(100), 'application/yaml'));
  fails(() => decodeBody(yamlSeqs(101), 'application/yaml'), 400, /maximum nesting depth/);
  // A shallow anchor used deep down counts at its expanded depth.
  const anchored = 'a: &x [[[[1]]]]\nb: ' + '['.repeat(97) + '*x' + ']'.repeat(97) + '\n';
  fails(() => decodeBody(anchored, 'application/yaml'), 400, /maximum nesting depth/);
});

test('decode - strings holding brackets and escaped quotes do not confuse the depth scan', () => {
  const s = '"' + '[{'.repeat(200) + '\\"]}\\\\' + '"';
  const body = `{"a":${s},"b":[${s},{"c":${s}}]}`;
  const v = decodeBody(body, 'application/json', { maxDepth: 3 }).value as { a: string };
  assert.equal(v.a, '[{'.repeat(200) + '"]}\\');
  const yaml = `a: "${'[{'.repeat(200)}\\"]}"\nb: '${'[{'.repeat(200)}''x'\nc: x[[[[\n# [[[[[[[[\nd: |\n  - - - - [[[[\n  {{{{\n`;
  const y = decodeBody(yaml, 'application/yaml', { maxDepth: 1 }).value as Record<string, string>;
  assert.equal(y.c, 'x[[[[');
  assert.equal(y.d, '- - - - [[[[\n{{{{\n');
});

test('decode - billion laughs YAML fails fast with 400', () => {
  let doc = 'a: &a [x,x,x,x,x,x,x,x,x,x]\n';
  let prev = 'a';
  for (const c of 'bcdefghi') {
    doc += `${c}: &${c} [${Array(10).fill(`*${prev}`).join(',')}]\n`;
    prev = c;
  }
  fails(() => fast(() => decodeBody(doc, 'application/yaml')), 400, /aliases/);
  // A handful of aliases is ordinary YAML.
  const ok = decodeBody('base: &b {x: 1}\none: *b\ntwo: *b\nmerged:\n  <<: *b\n  y: 2\n', 'application/yaml').value as Record<string, Record<string, number>>;
  assert.deepEqual(ok, { base: { x: 1 }, one: { x: 1 }, two: { x: 1 }, merged: { x: 1, y: 2 } });
  ok.one!.x = 5;
  assert.equal(ok.two!.x, 1, 'aliases do not share one mutable object');
});

test('decode - duplicate keys at several depths are reported, last wins', () => {
  const json = '{"a":1,"metadata":{"labels":{"a":"1","b":"2","a":"3"}},"spec":{"containers":[{"name":"x","name":"y"}],"\\u0061":1,"a":2},"a":2}';
  const j = decodeBody(json, 'application/json');
  assert.deepEqual(j.duplicateFields, ['.metadata.labels.a', '.spec.containers[0].name', '.spec.a', '.a']);
  assert.deepEqual(j.value, { a: 2, metadata: { labels: { a: '3', b: '2' } }, spec: { containers: [{ name: 'y' }], a: 2 } });
  const yaml = 'a: 1\nmetadata:\n  labels:\n    a: "1"\n    a: "2"\nspec:\n  containers:\n  - name: x\n    name: y\na: 3\n';
  const y = decodeBody(yaml, 'application/yaml');
  assert.deepEqual(y.duplicateFields, ['.metadata.labels.a', '.spec.containers[0].name', '.a']);
  assert.deepEqual(y.value, { a: 3, metadata: { labels: { a: '2' } }, spec: { containers: [{ name: 'y' }] } });
  assert.deepEqual(decodeBody('{"a":{"b":1},"c":{"b":1}}', 'application/json').duplicateFields, []);
});

test('decode - malformed JSON is 400 with a position', () => {
  const cases: [string, RegExp][] = [
    ['{"a": }', /invalid character '}' looking for beginning of value at line 1, column 7/],
    ['{"a": 1,\n "b": tru}', /line 2, column 7/],
    ['{"a" 1}', /after object key/],
    ['{"a":1 "b":2}', /after object key:value pair/],
    ['[1 2]', /after array element/],
    ['{"a":1}x', /after top-level value/],
    ['{"a":"\\q"}', /string escape code/],
    ['{"a":01}', /after object key:value pair/],
    ['{"a":1.}', /after decimal point/],
    ['{"a":"x', /unexpected end of JSON input/],
    ['', /unexpected end of JSON input/],
    ['{"a":"\u0001"}', /in string literal/],
    ['{a:1}', /looking for beginning of object key string/],
  ];
  for (const [body, msg] of cases) fails(() => decodeBody(body, 'application/json'), 400, msg);
});

test('decode - malformed YAML is 400 with a position', () => {
  fails(() => decodeBody('a: [1, 2\nb: 3', 'application/yaml'), 400, /line \d+, column \d+/);
  fails(() => decodeBody('a: b: c', 'application/yaml'), 400, /line 1, column \d+/);
  fails(() => decodeBody('a: *nope', 'application/yaml'), 400);
  fails(() => decodeBody('? [a]\n: 1', 'application/yaml'), 400, /mapping keys must be scalars/);
  fails(() => decodeBody('a: .inf', 'application/yaml'), 400, /not a valid JSON number/);
});

test('decode - YAML documents', () => {
  fails(() => decodeBody('a: 1\n---\nb: 2\n', 'application/yaml'), 400, /2 documents/);
  assert.deepEqual(decodeBody('---\na: 1\n', 'application/yaml').value, { a: 1 });
  assert.deepEqual(decodeBody('a: 1\n---\n', 'application/yaml').value, { a: 1 });
  assert.equal(decodeBody('', 'application/yaml').value, null);
  assert.equal(decodeBody('# only a comment\n', 'application/yaml').value, null);
  // Not a mapping: decoded as is, the caller decides.
  assert.deepEqual(decodeBody('- a\n- b\n', 'application/yaml').value, ['a', 'b']);
  assert.equal(decodeBody('hello', 'application/yaml').value, 'hello');
});

test('decode - JSON sent as apply-patch+yaml', () => {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { 'a.b': 'c: d' } });
  assert.deepEqual(decodeBody(body, 'application/apply-patch+yaml').value, JSON.parse(body));
  assert.deepEqual(decodeBody('{"a":1,"a":2}', 'application/apply-patch+yaml').duplicateFields, ['.a']);
  // A YAML flow mapping is not JSON but still YAML.
  assert.deepEqual(decodeBody('{a: 1, b: [x]}', 'application/yaml').value, { a: 1, b: ['x'] });
});

test('decode - byte order mark is ignored', () => {
  assert.deepEqual(decodeBody('\ufeff{"a":1}', 'application/json').value, { a: 1 });
  assert.deepEqual(decodeBody('\ufeffa: 1', 'application/yaml').value, { a: 1 });
});

test('decode - a large ordinary JSON body decodes quickly', () => {
  const items = Array.from({ length: 20000 }, (_, i) => ({ name: `item-${i}`, labels: { app: 'x', i: String(i) }, list: [1, 2, 3] }));
  const body = JSON.stringify({ items });
  const r = fast(() => decodeBody(body, 'application/json'));
  assert.equal((r.value as { items: unknown[] }).items.length, 20000);
});

test('decode - an object may have MAX_OBJECT_MEMBERS distinct members and no more; duplicates and arrays do not count', () => {
  const obj = (n: number, key = (i: number) => `k${i}`) => `{"data":{${Array.from({ length: n }, (_, i) => `"${key(i)}":"v"`).join(',')}}}`;
  const value = decodeBody(obj(MAX_OBJECT_MEMBERS), 'application/json').value as { data: Record<string, string> };
  assert.equal(Object.keys(value.data).length, MAX_OBJECT_MEMBERS);
  assert.throws(
    () => decodeBody(obj(MAX_OBJECT_MEMBERS + 1), 'application/json'),
    (err: unknown) => err instanceof StatusError && err.code === 400 && err.message.includes(`more than ${MAX_OBJECT_MEMBERS} members`),
  );
  // The same key repeated is one member (a duplicate field), and array elements are not members.
  assert.deepEqual(
    decodeBody(
      obj(MAX_OBJECT_MEMBERS + 10, () => 'a'),
      'application/json',
    ).duplicateFields.length,
    MAX_OBJECT_MEMBERS + 9,
  );
  assert.equal((decodeBody(`[${'1,'.repeat(MAX_OBJECT_MEMBERS + 10)}1]`, 'application/json').value as number[]).length, MAX_OBJECT_MEMBERS + 11);
});
