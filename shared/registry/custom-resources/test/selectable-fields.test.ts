// A CustomResourceDefinition version's selectableFields as the field selectors of requests through
// it: the value each path reads, the keys each version takes (and only that version), and the
// OpenAPI extension that publishes them. The filter lists and watches apply: services/gateway/test.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceType } from '../custom-resource-type.js';
import { selectableFieldGetters, selectableValue } from '../selectable-fields.js';
import { Registry } from '../../registry.js';
import { builtinTypes } from '../../builtin-types.js';
import { openApiV2, openApiV3GroupVersion } from '../../openapi.js';
import { versionFieldSelectors } from '../../version-parts.js';
import { shirtDefinition } from '../../test/crd-fixtures.js';

const GROUP = 'stable.example.com';

const type = customResourceType(shirtDefinition(GROUP));
const registry = new Registry([...builtinTypes]);
registry.define('crd', [type]);

describe('selectable fields - the value a path reads', () => {
  const obj = { spec: { color: 'red', size: 42, big: 1.5, branded: false, on: true, deep: { tone: 'dark' }, list: ['a'], nil: null, obj: {} } };
  const cases: Array<[string, string]> = [
    ['spec.color', 'red'],
    ['spec.size', '42'],
    ['spec.branded', 'false'],
    ['spec.on', 'true'],
    ['spec.deep.tone', 'dark'],
    ['spec.missing', ''],
    ['spec.color.deeper', ''],
    ['spec.nil', ''],
    ['spec.obj', ''],
    ['spec.list', ''],
    ['spec.big', ''],
    ['status.phase', ''],
  ];
  for (const [path, want] of cases) it(`${path} reads ${JSON.stringify(want)}`, () => assert.equal(selectableValue(obj, path.split('.')), want));

  it('keys drop the leading dot and keep the declared order', () => {
    assert.deepEqual(Object.keys(selectableFieldGetters([{ jsonPath: '.spec.b' }, { jsonPath: '.spec.a' }])), ['spec.b', 'spec.a']);
    assert.deepEqual(selectableFieldGetters(undefined), {});
  });
});

describe('selectable fields - per version', () => {
  const cases: Array<{ version: string; keys: string[] }> = [
    { version: 'v1', keys: ['spec.color', 'spec.size', 'spec.branded', 'spec.deep.tone'] },
    { version: 'v2', keys: ['spec.color'] },
    { version: 'v3', keys: [] },
  ];
  for (const c of cases) {
    it(`${c.version} selects by ${c.keys.join(', ') || 'metadata only'}`, () => {
      const v = type.versions.find((d) => d.name === c.version);
      assert.deepEqual(Object.keys(versionFieldSelectors(type, v) ?? {}), c.keys);
    });
  }
});

describe('selectable fields - OpenAPI', () => {
  const ext = (def: Record<string, unknown> | undefined) => def?.['x-kubernetes-selectable-fields'];
  it('v3 publishes each version’s fields on its kind, none for a version without', () => {
    const schemaOf = (version: string) =>
      (openApiV3GroupVersion(registry, GROUP, version)!.components as { schemas: Record<string, Record<string, unknown>> }).schemas[`com.example.stable.${version}.Shirt`];
    assert.deepEqual(ext(schemaOf('v1')), [{ fieldPath: 'spec.color' }, { fieldPath: 'spec.size' }, { fieldPath: 'spec.branded' }, { fieldPath: 'spec.deep.tone' }]);
    assert.deepEqual(ext(schemaOf('v2')), [{ fieldPath: 'spec.color' }]);
    assert.equal(ext(schemaOf('v3')), undefined);
  });
  it('v2 publishes them too', () => {
    const defs = openApiV2(registry).definitions as Record<string, Record<string, unknown>>;
    assert.deepEqual(ext(defs['com.example.stable.v2.Shirt']), [{ fieldPath: 'spec.color' }]);
    assert.equal(ext(defs['io.platform.api.core.v1.Pod']), undefined);
  });
});
