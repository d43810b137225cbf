// OpenAPI v2 in protobuf: the server's whole document survives the trip through the bytes, every
// shape of swagger 2.0 the messages model comes back as it went in, and what they cannot model is
// left out rather than written wrongly.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBuiltinRegistry } from '../../registry/builtin-registry.js';
import { openApiV2 } from '../../registry/openapi.js';
import { decodeOpenApiV2, encodeOpenApiV2 } from '../openapi-v2.js';

type Json = Record<string, unknown>;

/** An empty list has no protobuf form (a repeated field with no elements): it comes back absent. */
function withoutEmptyLists(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmptyLists);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => !(Array.isArray(x) && x.length === 0))
      .map(([k, x]) => [k, withoutEmptyLists(x)]),
  );
}

const roundTrip = (doc: Json): Json => decodeOpenApiV2(encodeOpenApiV2(doc));

describe('openapi v2 protobuf', () => {
  it('openapi v2 protobuf - the whole served document (every API version, upstream aliases) decodes to the same definitions and paths', () => {
    const registry = createBuiltinRegistry({ runtimeConfig: 'api/all=true', upstreamGroupAliases: true });
    const doc = openApiV2(registry, { version: 'v1.24.0' }) as Json;
    const back = roundTrip(doc);
    assert.deepStrictEqual(back.security, [{ BearerToken: [] }], 'an empty list inside a message (a security requirement) does come back');
    const [got, want] = [withoutEmptyLists(back) as Json, withoutEmptyLists(doc) as Json];
    assert.ok(Object.keys(want.definitions as Json).length > 100 && Object.keys(want.paths as Json).length > 500, 'a document of every built-in kind');
    assert.deepStrictEqual(got.definitions, want.definitions);
    assert.deepStrictEqual(got.paths, want.paths);
    assert.deepStrictEqual(got, want);
  });

  const cases: Array<{ name: string; doc: Json }> = [
    {
      name: 'top-level fields, tags, external docs, extensions',
      doc: {
        swagger: '2.0',
        info: {
          title: 'T',
          version: 'v1',
          description: 'd',
          termsOfService: 'tos',
          contact: { name: 'c', url: 'u', email: 'e', 'x-c': 1 },
          license: { name: 'l', url: 'lu' },
          'x-info': { a: [1, 2] },
        },
        host: 'h',
        basePath: '/b',
        schemes: ['https'],
        consumes: ['application/json'],
        produces: ['application/json', 'application/yaml'],
        tags: [{ name: 't', description: 'td', externalDocs: { url: 'x', description: 'xd' }, 'x-t': true }],
        externalDocs: { url: 'https://example.com' },
        'x-root': 'r',
      },
    },
    {
      name: 'security definitions of every scheme and requirements',
      doc: {
        swagger: '2.0',
        securityDefinitions: {
          basic: { type: 'basic', description: 'b' },
          key: { type: 'apiKey', name: 'authorization', in: 'header', 'x-k': 'v' },
          implicit: { type: 'oauth2', flow: 'implicit', authorizationUrl: 'a', scopes: { read: 'r', write: 'w' } },
          password: { type: 'oauth2', flow: 'password', tokenUrl: 't', scopes: {} },
          application: { type: 'oauth2', flow: 'application', tokenUrl: 't', scopes: { s: '' } },
          code: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'a', tokenUrl: 't', scopes: { s: 'x' } },
        },
        security: [{ key: [] }, { implicit: ['read', 'write'] }],
      },
    },
    {
      name: 'parameters: references, body, each primitive kind with nested items, zero values kept',
      doc: {
        swagger: '2.0',
        parameters: { shared: { name: 'pretty', in: 'query', type: 'string', uniqueItems: true, description: 'p' } },
        paths: {
          '/a/{name}': {
            parameters: [{ $ref: '#/parameters/shared' }, { name: 'name', in: 'path', required: true, type: 'string' }],
            post: {
              parameters: [
                { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/X' } },
                {
                  name: 'h',
                  in: 'header',
                  type: 'array',
                  items: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 9, exclusiveMaximum: true }, collectionFormat: 'pipes' },
                  collectionFormat: 'csv',
                },
                { name: 'f', in: 'formData', type: 'file', allowEmptyValue: false, required: false },
                { name: 'q', in: 'query', type: 'integer', default: 5, enum: [1, 5, 10], minLength: 0, maxItems: 3, multipleOf: 0.5, pattern: '^a', 'x-q': 'v' },
              ],
              responses: { '200': { description: '' } },
            },
          },
        },
      },
    },
    {
      name: 'operations and responses: references, file schemas, headers, examples, extensions beside the entries',
      doc: {
        swagger: '2.0',
        responses: { notFound: { description: 'nf', schema: { type: 'object' } } },
        paths: {
          'x-paths': { a: 1 },
          '/r': {
            $ref: '#/x',
            'x-item': 'i',
            get: {
              tags: ['t'],
              summary: 's',
              operationId: 'op',
              deprecated: true,
              schemes: ['https'],
              security: [{ key: ['x'] }],
              responses: {
                '200': {
                  description: 'ok',
                  schema: { type: 'file', description: 'f' },
                  headers: { 'X-Rate': { type: 'integer', format: 'int32', description: 'r' } },
                  examples: { 'application/json': { a: [1] } },
                },
                '404': { $ref: '#/responses/notFound' },
                default: { description: 'd', 'x-resp': 1 },
                'x-responses': ['z'],
              },
              'x-kubernetes-action': 'get',
              'x-kubernetes-group-version-kind': { group: '', kind: 'Pod', version: 'v1' },
            },
            put: {},
            delete: {},
            options: {},
            head: {},
            patch: {},
          },
        },
      },
    },
    {
      name: 'schemas: every keyword, both forms of type, items and additionalProperties, free values of every JSON type',
      doc: {
        swagger: '2.0',
        definitions: {
          S: {
            $ref: '#/definitions/T',
            format: 'f',
            title: 't',
            description: '',
            default: { a: null, b: [true, 'yes', 'on', '1.0', 'a: b', 'line\nbreak'] },
            multipleOf: 2,
            maximum: 10,
            exclusiveMaximum: false,
            minimum: -1.5,
            exclusiveMinimum: true,
            maxLength: 2 ** 40,
            minLength: 0,
            pattern: 'p',
            maxItems: 1,
            minItems: 0,
            uniqueItems: false,
            maxProperties: 4,
            minProperties: 1,
            required: ['a'],
            enum: [null, 0, 'no', { k: 'v' }, [1]],
            additionalProperties: false,
            type: ['string', 'integer'],
            items: [{ type: 'string' }, {}],
            allOf: [{ $ref: '#/definitions/U' }, { properties: {} }],
            properties: { a: { type: 'object', additionalProperties: { type: 'string' } }, b: { additionalProperties: true, items: { type: 'integer' } } },
            discriminator: 'kind',
            readOnly: true,
            xml: { name: 'n', namespace: 'ns', prefix: 'p', attribute: true, wrapped: false, 'x-x': 0 },
            externalDocs: { url: 'u' },
            example: 'e',
            'x-kubernetes-list-map-keys': ['name', 'protocol'],
            'x-kubernetes-preserve-unknown-fields': true,
          },
        },
      },
    },
  ];
  for (const c of cases) {
    it(`openapi v2 protobuf - round trip: ${c.name}`, () => {
      assert.deepStrictEqual(withoutEmptyLists(roundTrip(c.doc)), withoutEmptyLists(c.doc));
    });
  }

  it('openapi v2 protobuf - what the messages cannot hold is left out, the rest kept', () => {
    const doc = {
      swagger: '2.0',
      unknownTop: 1,
      definitions: { S: { type: 'object', anyOf: [{ type: 'string' }], nullable: true, maxLength: 'x', minimum: 'low', required: ['a', 3], properties: { a: { type: 'string' } } } },
      paths: {
        '/p': {
          get: {
            parameters: [
              { name: 'c', in: 'cookie', type: 'string' },
              { name: 'q', in: 'query', type: 'string' },
            ],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
      securityDefinitions: { odd: { type: 'oauth2', flow: 'device' }, key: { type: 'apiKey', name: 'n', in: 'header' } },
    };
    assert.deepStrictEqual(roundTrip(doc), {
      swagger: '2.0',
      definitions: { S: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } },
      paths: { '/p': { get: { parameters: [{ name: 'q', in: 'query', type: 'string' }], responses: { '200': { description: 'ok' } } } } },
      securityDefinitions: { key: { type: 'apiKey', name: 'n', in: 'header' } },
    });
  });
});
