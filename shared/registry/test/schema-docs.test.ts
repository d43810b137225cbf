import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, JsonSchema } from '../../api/types.js';
import { Registry } from '../registry.js';
import { AjvSchemaBuilder } from '../schema-tools.js';
import { coveragePercent, described, docsOf, fieldDocCoverage } from '../schema-docs.js';
import type { ResourceType } from '../types.js';

const str: JsonSchema = { type: 'string' };
const probe: JsonSchema = { type: 'object', properties: { path: str, port: { type: 'integer' } }, additionalProperties: false };

test('described - puts each text on its property and the type text on the schema, copying instead of mutating', () => {
  const shared = { type: 'object', properties: { probe, name: str }, required: ['name'] };
  const out = described(shared, { probe: 'How the container is checked.', name: 'Name of the container.' }, 'One container.');
  assert.equal(out.description, 'One container.');
  const props = out.properties as Record<string, JsonSchema>;
  assert.equal(props.probe!.description, 'How the container is checked.');
  assert.equal(props.name!.description, 'Name of the container.');
  assert.deepEqual(out.required, ['name']);
  // The inputs are untouched: `str` and `probe` are shared by other schemas.
  assert.equal(str.description, undefined);
  assert.equal(probe.description, undefined);
  assert.equal((shared.properties.probe as JsonSchema).description, undefined);
  // A described property is a shallow copy: the sub-schemas under it keep their identity.
  assert.equal(props.probe!.properties, probe.properties);
});

test('described - refuses names that are not properties and empty texts', () => {
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['unknown property', () => described(probe, { host: 'The host.' }), /no property "host"/],
    ['no properties at all', () => described(str, { x: 'An x.' }), /no property "x"/],
    ['empty field text', () => described(probe, { path: '  ' }), /empty description for "path"/],
    ['empty type text', () => described(probe, {}, ''), /empty description of the type/],
  ];
  for (const [name, fn, message] of cases) assert.throws(fn, message, name);
});

test('docsOf - returns the descriptions of the named (or all) properties', () => {
  const d = described(probe, { path: 'Path to request.', port: 'Port to connect to.' });
  assert.deepEqual(docsOf(d), { path: 'Path to request.', port: 'Port to connect to.' });
  assert.deepEqual(docsOf(d, ['port']), { port: 'Port to connect to.' });
  assert.deepEqual(docsOf(probe), {});
});

test('fieldDocCoverage - counts every nested field and lists the undescribed ones by explain path', () => {
  const defs: Record<string, JsonSchema> = {
    Meta: { type: 'object', description: 'Metadata.', properties: { name: { type: 'string', description: 'Name.' }, uid: str } },
    Node: { type: 'object', properties: { value: { type: 'string', description: 'Value.' }, next: { $ref: '#/components/schemas/Node' } } },
    Bare: { type: 'object', description: 'A referenced type.', properties: { x: str } },
  };
  const resolve = (n: string) => defs[n];
  const cases: Array<{ name: string; kind: JsonSchema; total: number; described: number; missing: string[] }> = [
    { name: 'kind text missing, no fields', kind: { type: 'object' }, total: 1, described: 0, missing: ['(kind)'] },
    {
      name: 'nested objects, list items and map values',
      kind: {
        type: 'object',
        description: 'K.',
        properties: {
          spec: {
            type: 'object',
            description: 'Spec.',
            properties: {
              items: { type: 'array', description: 'Items.', items: { type: 'object', properties: { a: str, b: { type: 'string', description: 'B.' } } } },
              byName: { type: 'object', additionalProperties: { type: 'object', properties: { c: { type: 'string', description: 'C.' } } } },
            },
          },
        },
      },
      total: 7,
      described: 5,
      missing: ['spec.items.a', 'spec.byName'],
    },
    {
      name: 'a description beside a $ref (allOf wrapper) counts, and the target fields are walked',
      kind: { type: 'object', description: 'K.', properties: { metadata: { description: 'Object metadata.', allOf: [{ $ref: '#/components/schemas/Meta' }] } } },
      total: 4,
      described: 3,
      missing: ['metadata.uid'],
    },
    {
      name: 'a bare $ref takes the description of its target',
      kind: { type: 'object', description: 'K.', properties: { ref: { $ref: '#/components/schemas/Bare' } } },
      total: 3,
      described: 2,
      missing: ['ref.x'],
    },
    {
      name: 'a recursive type is walked once',
      kind: { type: 'object', description: 'K.', properties: { head: { $ref: '#/components/schemas/Node' } } },
      total: 4,
      described: 2,
      missing: ['head', 'head.next'],
    },
  ];
  for (const c of cases) {
    const got = fieldDocCoverage(c.kind, resolve);
    assert.deepEqual({ total: got.total, described: got.described, missing: got.missing }, { total: c.total, described: c.described, missing: c.missing }, c.name);
  }
});

test('coveragePercent - rounds down to one decimal, so a floor recorded from it holds', () => {
  const cases: Array<[number, number, number]> = [
    [0, 0, 100],
    [1, 3, 33.3],
    [2, 3, 66.6],
    [999, 1000, 99.9],
    [5, 5, 100],
  ];
  for (const [described, total, want] of cases) assert.equal(coveragePercent({ described, total }), want, `${described}/${total}`);
});

test('descriptions - never reach the schemas ajv compiles', () => {
  const schema = described({ type: 'object', properties: { spec: described({ type: 'object', properties: { probe } }, { probe: 'Probe.' }) } }, { spec: 'Spec.' }, 'K.');
  const built = JSON.stringify(new AjvSchemaBuilder('test:').build(schema));
  assert.doesNotMatch(built, /"description"/);
});

test('descriptions - change nothing a write sees: validation errors, pruning and defaults are the same', () => {
  const body = (doc: boolean): JsonSchema => {
    const spec: JsonSchema = {
      type: 'object',
      properties: { replicas: { type: 'integer', minimum: 0, default: 1 }, probe, mode: { type: 'string', enum: ['A', 'B'] } },
      additionalProperties: false,
    };
    const docs = { replicas: 'Pods wanted.', probe: 'A check.', mode: 'A or B.' };
    return doc ? described({ type: 'object', properties: { spec: described(spec, docs) } }, { spec: 'Spec.' }, 'A widget.') : { type: 'object', properties: { spec } };
  };
  const typeOf = (doc: boolean): ResourceType => ({
    group: 'docs.example.com',
    versions: [{ name: 'v1', schema: body(doc) }],
    kind: doc ? 'Described' : 'Plain',
    plural: doc ? 'describeds' : 'plains',
    singular: doc ? 'described' : 'plain',
    scope: 'Namespaced',
  });
  const plain = typeOf(false);
  const doc = typeOf(true);
  const registry = new Registry([plain, doc]);
  const servedOf = (t: ResourceType) => registry.resources(t.group, 'v1').find((s) => s.type === t)!;
  const objects = [{ spec: { replicas: -1, mode: 'C', probe: { path: 1, extra: true } }, bogus: 1 }, { spec: { probe: { port: 'x' } } }, { spec: {} }];
  for (const o of objects) {
    const run = (t: ResourceType) => {
      const obj = { apiVersion: 'docs.example.com/v1', kind: t.kind, metadata: { name: 'w', namespace: 'default' }, ...structuredClone(o) } as ApiObject;
      const s = servedOf(t);
      const errors = registry.validate(s, obj).map((e) => `${e.field}: ${e.type}`);
      const unknown = registry.unknownFields(s, obj);
      registry.prune(s, obj);
      registry.defaults(s, obj);
      return { errors, unknown, stored: { ...obj, kind: undefined } };
    };
    assert.deepEqual(run(doc), run(plain), JSON.stringify(o));
  }
});
