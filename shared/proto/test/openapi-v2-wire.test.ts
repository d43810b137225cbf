// OpenAPI v2 in protobuf, byte by byte: the field numbers and nesting that clients' generated
// `openapi.v2.Document` code expects (written out here by hand, in field-number order as Go's
// marshaller writes them), and the YAML that carries free values.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { decodeOpenApiV2, encodeOpenApiV2 } from '../openapi-v2.js';

function varint(n: number): Buffer {
  const out: number[] = [];
  for (; n > 0x7f; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return Buffer.from(out);
}
const tag = (field: number, wireType: number): Buffer => varint(field * 8 + wireType);
/** A length-delimited field: a string or an embedded message. */
const ld = (field: number, ...parts: Array<Buffer | string>): Buffer => {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  return Buffer.concat([tag(field, 2), varint(body.length), body]);
};
const int = (field: number, n: number): Buffer => Buffer.concat([tag(field, 0), varint(n)]);
const double = (field: number, x: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return Buffer.concat([tag(field, 1), b]);
};
/** NamedAny{name, value: Any{yaml}} */
const namedAny = (field: number, name: string, yaml: string): Buffer => ld(field, ld(1, name), ld(2, ld(2, yaml)));

describe('openapi v2 protobuf wire', () => {
  it('openapi v2 protobuf - a document is written with the field numbers of openapi.v2.Document', () => {
    const doc = {
      swagger: '2.0',
      info: { title: 'T', version: 'v' },
      paths: {
        '/p': {
          get: {
            parameters: [{ name: 'n', in: 'query', type: 'string', uniqueItems: true }],
            responses: { '200': { description: 'OK' } },
            'x-kubernetes-action': 'get',
          },
        },
      },
      definitions: {
        A: {
          required: ['x'],
          additionalProperties: false,
          type: 'object',
          properties: { x: { type: 'integer', maxLength: 3, minimum: 0.5, 'x-kubernetes-list-type': 'atomic' } },
        },
      },
    };
    const x = Buffer.concat([double(9, 0.5), int(11, 3), ld(22, ld(1, 'integer')), namedAny(31, 'x-kubernetes-list-type', 'atomic\n')]);
    const a = Buffer.concat([ld(19, 'x'), ld(21, int(2, 0)), ld(22, ld(1, 'object')), ld(25, ld(1, ld(1, 'x'), ld(2, x)))]);
    // ParametersItem.parameter → Parameter.non_body_parameter → NonBodyParameter.query_parameter_sub_schema
    const query = Buffer.concat([ld(2, 'query'), ld(4, 'n'), ld(6, 'string'), int(20, 1)]);
    const parameter = ld(8, ld(1, ld(2, ld(3, query))));
    // Responses.response_code → NamedResponseValue → ResponseValue.response → Response
    const responses = ld(9, ld(1, ld(1, '200'), ld(2, ld(1, ld(1, 'OK')))));
    const operation = Buffer.concat([parameter, responses, namedAny(13, 'x-kubernetes-action', 'get\n')]);
    const want = Buffer.concat([ld(1, '2.0'), ld(2, ld(1, 'T'), ld(2, 'v')), ld(8, ld(2, ld(1, '/p'), ld(2, ld(2, operation)))), ld(9, ld(1, ld(1, 'A'), ld(2, a)))]);
    const got = encodeOpenApiV2(doc);
    assert.equal(got.toString('hex'), want.toString('hex'));
    assert.deepStrictEqual(decodeOpenApiV2(want), doc);
  });

  it('openapi v2 protobuf - free values are YAML that YAML 1.1 readers (Go clients) read back as the same value', () => {
    const gvk = { group: '', kind: 'Pod', version: 'v1' };
    const values: unknown[] = ['yes', 'on', 'list', '1.0', '', 'a: b', 7, 1.5, false, null, gvk, ['x', { y: 1 }]];
    const bytes = encodeOpenApiV2({ definitions: { S: { enum: values, 'x-kubernetes-group-version-kind': [gvk] } } });
    // The Any messages' yaml strings, found in the bytes as written.
    for (const v of values) {
      const yaml = YAML.stringify(v, { version: '1.1', lineWidth: 0 });
      assert.deepStrictEqual(YAML.parse(yaml, { version: '1.1' }), v, `${JSON.stringify(v)} as ${JSON.stringify(yaml)}`);
      assert.ok(bytes.includes(Buffer.concat([Buffer.from([0x12]), varint(Buffer.byteLength(yaml)), Buffer.from(yaml)])), `${JSON.stringify(v)} carried as ${JSON.stringify(yaml)}`);
    }
    assert.ok(bytes.includes(Buffer.from('"yes"\n')), 'a string YAML 1.1 would read as a boolean is quoted');
    assert.ok(bytes.includes(Buffer.from('- group: ""\n  kind: Pod\n  version: v1\n')), 'a GVK list as block YAML');
  });
});
