// /openapi/v2 in gnostic's protobuf, as the gateway's discovery routes answer it: which Accept
// headers get it, the headers that come with it, and that the bytes follow the registry's types.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import type { ResourceType } from '../../../shared/registry/types.js';
import { decodeOpenApiV2 } from '../../../shared/proto/openapi-v2.js';
import { Discovery } from '../routes/discovery.js';

const PB_AT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PB_DOT = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

const widgets: ResourceType = {
  group: 'example.com',
  versions: [{ name: 'v1', schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } }],
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  scope: 'Namespaced',
};

describe('openapi v2 protobuf route', () => {
  const registry = createBuiltinRegistry();
  const discovery = new Discovery(registry);
  const v2 = (accept: string | undefined) => discovery.document('/openapi/v2', accept)!;

  const table: Array<[accept: string | undefined, protobuf: boolean]> = [
    [undefined, false],
    ['*/*', false],
    ['application/json', false],
    ['application/yaml', false],
    [PB_AT, true],
    [PB_DOT, true],
    [`${PB_AT}, application/json`, true],
    [`application/json;q=0.9, ${PB_AT}`, true],
    [`${PB_AT};q=0.5, application/json`, false],
    ['application/*', false],
    ['application/vnd.kubernetes.protobuf', false],
  ];
  for (const [accept, protobuf] of table) {
    it(`openapi v2 - Accept ${accept ?? '(none)'} is answered in ${protobuf ? 'protobuf' : 'the response encoder’s format'}`, () => {
      const r = v2(accept);
      assert.equal(r.code, 200);
      assert.equal(r.raw !== undefined, protobuf);
      assert.equal(r.contentType, protobuf ? PB_DOT : undefined);
      assert.deepEqual(r.headers, { vary: 'Accept' });
    });
  }

  it('openapi v2 - protobuf and JSON carry the same ETag and the same document', () => {
    const json = v2('application/json');
    const pb = v2(PB_AT);
    assert.ok(json.etag && pb.etag === json.etag);
    assert.equal(json.body.kind, 'json');
    const doc = JSON.parse((json.body as { text: string }).text);
    const back = decodeOpenApiV2(pb.raw!);
    assert.deepStrictEqual(back.definitions, doc.definitions);
    assert.deepStrictEqual(Object.keys(back.paths as object), Object.keys(doc.paths));
  });

  it('openapi v2 - the bytes are made once per document and again when the types change', () => {
    const first = v2(PB_AT).raw!;
    assert.equal(v2(PB_DOT).raw, first, 'the same bytes while the document is the same');
    const etag = v2(PB_AT).etag;
    registry.define('test-crds', [widgets]);
    const after = v2(PB_AT);
    assert.notEqual(after.raw, first);
    assert.notEqual(after.etag, etag);
    const defs = decodeOpenApiV2(after.raw!).definitions as Record<string, { properties?: Record<string, unknown> }>;
    const widget = Object.entries(defs).find(([name]) => name.endsWith('.Widget'));
    assert.ok(widget, 'the new kind has a definition');
    assert.deepEqual(Object.keys(widget[1].properties!).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
    registry.define('test-crds', []);
    const names = Object.keys(decodeOpenApiV2(v2(PB_AT).raw!).definitions as object);
    assert.equal(names.filter((n) => n.endsWith('.Widget')).length, 0, 'the removed kind is gone');
  });
});
