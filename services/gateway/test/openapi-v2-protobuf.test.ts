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

  // JSON or gnostic's protobuf, as kube-openapi offers; anything else is 406 (the document is never re-encoded per request).
  const table: Array<[accept: string | undefined, answer: 'json' | 'protobuf' | 406]> = [
    [undefined, 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/yaml', 406],
    ['application/yaml, application/json;q=0.5', 'json'],
    [PB_AT, 'protobuf'],
    [PB_DOT, 'protobuf'],
    [`${PB_AT}, application/json`, 'protobuf'],
    [`application/json;q=0.9, ${PB_AT}`, 'protobuf'],
    [`${PB_AT};q=0.5, application/json`, 'json'],
    ['application/*', 'json'],
    ['application/vnd.kubernetes.protobuf', 406],
  ];
  for (const [accept, answer] of table) {
    it(`openapi v2 - Accept ${accept ?? '(none)'} is answered ${answer === 406 ? 'with 406' : `in ${answer}`}`, () => {
      if (answer === 406) {
        assert.throws(
          () => v2(accept),
          (err: { code?: number; status?: { reason?: string } }) => err.code === 406 && err.status?.reason === 'NotAcceptable',
        );
        return;
      }
      const r = v2(accept);
      assert.equal(r.code, 200);
      assert.ok(r.raw, 'sent as prepared bytes');
      assert.equal(r.contentType, answer === 'protobuf' ? PB_DOT : 'application/json');
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
