// The encoders as a client reads their output: the JSON fast paths (cached serialization, lists
// assembled from item texts) must produce exactly what encoding the plain value produces; YAML and
// watch framing as upstream clients parse them; negotiation and its fallback for errors.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../api/status.js';
import type { CachedObject } from '../cached-object.js';
import { bodyValue, errorEncoder, responseEncoder, watchEncoder, type Body } from '../index.js';
import { jsonEncoder, jsonWatchEncoder } from '../json.js';
import { yamlEncoder } from '../yaml.js';

const cached = (name: string, revision: number): CachedObject => ({
  ref: { group: '', resource: 'configmaps', namespace: 'ns', name },
  sortKey: `ns/${name}`,
  revision,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: String(revision) }, data: { 'k"ey': 'va\nlue' } },
});
const toV2 = (o: ApiObject): ApiObject => ({ ...o, apiVersion: 'v2' });

const bodies: Array<[string, Body]> = [
  ['a value', { kind: 'value', value: { kind: 'TokenReview', apiVersion: 'authentication.platform.io/v1', status: { error: 'x "quoted" <&>' } } }],
  ['pre-serialized JSON', { kind: 'json', text: '{"kind":"APIVersions","versions":["v1"]}' }],
  ['a stored object', { kind: 'stored', object: cached('a', 3), transform: null }],
  ['a stored object in another version', { kind: 'stored', object: cached('a', 3), transform: toV2 }],
  ['an empty list', { kind: 'list', apiVersion: 'v1', listKind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items: [], transform: null }],
  [
    'a list page',
    { kind: 'list', apiVersion: 'v1', listKind: 'ConfigMapList', metadata: { resourceVersion: '9', continue: 'tok', remainingItemCount: 1 }, items: [cached('a', 3), cached('b', 4)], transform: toV2 },
  ],
];

describe('codec - JSON', () => {
  for (const [name, body] of bodies) {
    it(`${name}: fast path equals encoding the value, pretty or not`, () => {
      const value = bodyValue(body);
      assert.deepEqual(JSON.parse(String(jsonEncoder.encode(body, false))), value);
      assert.equal(jsonEncoder.encode(body, true), JSON.stringify(value, null, 2));
    });
  }

  it("bodies end with upstream's newline (Go's json.Encoder); pre-serialized documents and ?pretty as they are", () => {
    for (const [name, body] of bodies) {
      const text = String(jsonEncoder.encode(body, false));
      if (body.kind === 'json') assert.equal(text, body.text, name);
      else assert.equal(text, JSON.stringify(bodyValue(body)) + '\n', name);
      assert.ok(!String(jsonEncoder.encode(body, true)).endsWith('\n'), `${name} pretty`);
    }
  });

  it('serializes a cached object once and reuses it for every later response', () => {
    const o = cached('a', 3);
    jsonEncoder.encode({ kind: 'stored', object: o, transform: null }, false);
    const text = o.json ?? '';
    assert.ok(text.endsWith('}\n'), 'kept with the object, newline included');
    (o.object.data as Record<string, string>).changed = 'not seen';
    assert.equal(jsonEncoder.encode({ kind: 'stored', object: o, transform: null }, false), text, 'a get sends the cached text as it is');
    assert.equal(
      jsonEncoder.encode({ kind: 'list', apiVersion: 'v1', listKind: 'ConfigMapList', metadata: {}, items: [o], transform: null }, false),
      `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[${text.slice(0, -1)}]}\n`,
    );
    assert.equal(jsonWatchEncoder.event({ type: 'ADDED', object: o, transform: null }), `{"type":"ADDED","object":${text.slice(0, -1)}}\n`);
  });
});

describe('codec - YAML', () => {
  for (const [name, body] of bodies) {
    it(`${name}: parses back to the value`, () => {
      assert.deepEqual(YAML.parse(String(yamlEncoder.encode(body, false))), bodyValue(body));
    });
  }
});

describe('codec - JSON watch framing', () => {
  it('one JSON document per line, per event type', () => {
    const o = cached('a', 3);
    const lines = [
      jsonWatchEncoder.event({ type: 'ADDED', object: o, transform: null }),
      jsonWatchEncoder.event({ type: 'MODIFIED', object: o, transform: toV2 }),
      jsonWatchEncoder.event({ type: 'BOOKMARK', apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '7' } }),
      jsonWatchEncoder.event({ type: 'ERROR', status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'gone', reason: 'Expired', code: 410 } }),
    ].map(String);
    for (const l of lines) assert.ok(l.endsWith('\n') && !l.slice(0, -1).includes('\n'));
    const events = lines.map((l) => JSON.parse(l));
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'BOOKMARK', 'ERROR'],
    );
    assert.deepEqual(events[0].object, o.object);
    assert.equal(events[1].object.apiVersion, 'v2');
    assert.deepEqual(events[2].object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '7' } });
    assert.equal(events[3].object.code, 410);
  });
});

describe('codec - negotiation', () => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/yaml', 'application/yaml'],
    ['application/json;q=0.5, application/yaml', 'application/yaml'],
    ['application/yaml;q=0.1, application/json', 'application/json'],
  ];
  for (const [accept, mediaType] of cases) {
    it(`Accept ${JSON.stringify(accept)} → ${mediaType}`, () => assert.equal(responseEncoder(accept).mediaType, mediaType));
  }

  it('406 when nothing acceptable is offered, yet errors stay readable as JSON', () => {
    assert.throws(
      () => responseEncoder('text/html'),
      (e: StatusError) => e.code === 406,
    );
    assert.equal(errorEncoder('text/html').mediaType, 'application/json');
    assert.equal(watchEncoder('application/yaml').mediaType, 'application/json');
  });
});
