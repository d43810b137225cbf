// A CustomResourceDefinition whose versions differ in subresources and printer columns, as the
// registry derives it: each version's own /status and /scale (routing, discovery, OpenAPI), its own
// columns, and the status/spec split and generation of writes decided by the request's version.
// Built-in types, which declare one set on the type, keep it for every version.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import { customResourceType, printerColumns } from '../custom-resource-type.js';
import { Registry } from '../../registry.js';
import { builtinTypes } from '../../builtin-types.js';
import { apiResourceList, versionDiscovery } from '../../discovery.js';
import { openApiV2, openApiV3GroupVersion } from '../../openapi.js';
import { servedSubresourceVerbs } from '../../subresources.js';
import { hasStatusSubresource, versionColumns, versionSubresources } from '../../version-parts.js';
import { prepareForCreate, prepareForUpdate } from '../../rest/prepare.js';
import type { ResourceType, VersionDef } from '../../types.js';
import { testStrategyContext } from '../../test/builtin-helpers.js';
import { crdOf } from '../../test/crd-fixtures.js';

const GROUP = 'stable.example.com';
const SCALE = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

const schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { cronSpec: { type: 'string' }, image: { type: 'string' }, replicas: { type: 'integer' } } },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
  },
};

/** v1: no subresources, columns Spec and Image; v2: status and scale, column Replicas; v3: status only, no columns (Age). */
function definition(): ApiObject {
  return {
    ...crdOf(
      GROUP,
      'CronTab',
      [
        {
          name: 'v1',
          served: true,
          storage: false,
          schema: { openAPIV3Schema: schema },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
            { name: 'Image', type: 'string', jsonPath: '.spec.image', description: 'The image.' },
          ],
        },
        {
          name: 'v2',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {}, scale: SCALE },
          additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 }],
        },
        { name: 'v3', served: true, storage: false, schema: { openAPIV3Schema: schema }, subresources: { status: {} } },
      ],
      { names: { listKind: 'CronTabList' } },
    ),
    status: { conditions: [{ type: 'Established', status: 'True' }] },
  } as unknown as ApiObject;
}

const type = customResourceType(definition());
const registry = new Registry([...builtinTypes]);
registry.define('crd', [type]);
const version = (name: string): VersionDef => type.versions.find((v) => v.name === name)!;
// No creationTimestamp: the Age cell is then empty whatever form a date cell takes.
const cronTab = { metadata: { name: 'a' }, spec: { cronSpec: '* * * * *', image: 'cron:1', replicas: 2 } } as unknown as ApiObject;

describe('custom resources - subresources and columns per version', () => {
  const cases: Array<{ version: string; status: boolean; scale: boolean; columns: string[]; cells: unknown[] }> = [
    { version: 'v1', status: false, scale: false, columns: ['Spec', 'Image'], cells: ['* * * * *', 'cron:1'] },
    { version: 'v2', status: true, scale: true, columns: ['Replicas'], cells: [2] },
    { version: 'v3', status: true, scale: false, columns: ['Age'], cells: [null] },
  ];
  for (const c of cases) {
    it(`${c.version}: status ${c.status}, scale ${c.scale}, columns ${c.columns.join(',')}`, () => {
      const v = version(c.version);
      assert.equal(hasStatusSubresource(type, v), c.status);
      assert.deepEqual(versionSubresources(type, v)?.scale, c.scale ? SCALE : undefined);
      assert.deepEqual(servedSubresourceVerbs(type, 'status', v), c.status ? ['get', 'patch', 'update'] : undefined);
      assert.deepEqual(servedSubresourceVerbs(type, 'scale', v), c.scale ? ['get', 'patch', 'update'] : undefined);
      const cols = versionColumns(type, v)!;
      assert.deepEqual(
        cols.map((x) => x.name),
        c.columns,
      );
      assert.deepEqual(
        cols.map((x) => x.cell(cronTab)),
        c.cells,
      );
    });
  }

  it('the type itself declares none, so no version falls back to another’s', () => {
    assert.equal(type.subresources, undefined);
    assert.equal(type.columns, undefined);
    assert.equal(type.storageVersion, 'v2');
  });

  it('a column without a description is described by its path; priority is kept', () => {
    assert.deepEqual(
      versionColumns(type, version('v1'))!.map((c) => c.description),
      ['Custom resource definition column (in JSONPath format): .spec.cronSpec', 'The image.'],
    );
    assert.equal(versionColumns(type, version('v2'))![0]!.priority, 1);
  });

  it('a column the server cannot read ends the list there, as upstream falls back, and the definition is still served', () => {
    const cols = printerColumns([
      { name: 'A', type: 'string', jsonPath: '.spec.image' },
      { name: 'B', type: 'string', jsonPath: '.spec..x' },
      { name: 'C', type: 'string', jsonPath: '.spec.cronSpec' },
    ]);
    assert.deepEqual(
      cols.map((c) => c.name),
      ['A'],
    );
  });
});

describe('custom resources - discovery and OpenAPI per version', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['v1', ['crontabs'], []],
    ['v2', ['crontabs', 'crontabs/scale', 'crontabs/status'], ['scale', 'status']],
    ['v3', ['crontabs', 'crontabs/status'], ['status']],
  ];
  for (const [v, legacy, aggregated] of cases) {
    it(`${v}: /apis/${GROUP}/${v} lists ${legacy.join(', ')}; aggregated discovery and OpenAPI agree`, () => {
      assert.deepEqual(
        apiResourceList(registry, GROUP, v)!.resources.map((r) => r.name),
        legacy,
      );
      const entry = versionDiscovery(registry, GROUP, v).resources.find((r) => r.resource === 'crontabs')!;
      assert.deepEqual(
        (entry.subresources ?? []).map((s) => s.subresource),
        aggregated,
      );
      const item = `/apis/${GROUP}/${v}/namespaces/{namespace}/crontabs/{name}`;
      const v3paths = Object.keys((openApiV3GroupVersion(registry, GROUP, v) as { paths: object }).paths);
      const v2paths = Object.keys((openApiV2(registry) as { paths: object }).paths);
      for (const paths of [v3paths, v2paths]) {
        assert.ok(paths.includes(item), item);
        assert.deepEqual(
          paths.filter((p) => p.startsWith(`${item}/`)).sort(),
          aggregated.map((s) => `${item}/${s}`),
        );
      }
    });
  }
});

describe('custom resources - writes by the request’s version', () => {
  const stored = (): ApiObject =>
    ({
      apiVersion: `${GROUP}/v2`,
      kind: 'CronTab',
      metadata: { name: 'a', generation: 1, uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { cronSpec: '* * * * *' },
      status: { replicas: 1 },
    }) as unknown as ApiObject;
  const creates: Array<[string, boolean]> = [
    ['v1', true],
    ['v2', false],
    ['v3', false],
  ];
  for (const [v, kept] of creates) {
    it(`create through ${v} ${kept ? 'keeps' : 'drops'} the status sent`, () => {
      const o = { ...stored(), metadata: { name: 'a' } } as ApiObject;
      prepareForCreate(type, o, testStrategyContext, version(v));
      assert.deepEqual(o.status, kept ? { replicas: 1 } : undefined);
      assert.equal(o.metadata.generation, 1);
    });
  }
  const updates: Array<{ version: string; change: 'status' | 'spec'; status: unknown; generation: number }> = [
    // Without a status subresource the main resource writes status, and any change but metadata counts.
    { version: 'v1', change: 'status', status: { replicas: 5 }, generation: 2 },
    { version: 'v1', change: 'spec', status: { replicas: 1 }, generation: 2 },
    // With one the main resource keeps the stored status, and only the spec counts.
    { version: 'v2', change: 'status', status: { replicas: 1 }, generation: 1 },
    { version: 'v2', change: 'spec', status: { replicas: 1 }, generation: 2 },
    { version: 'v3', change: 'status', status: { replicas: 1 }, generation: 1 },
  ];
  for (const u of updates) {
    it(`update of the ${u.change} through ${u.version}: status ${JSON.stringify(u.status)}, generation ${u.generation}`, () => {
      const next = stored();
      if (u.change === 'status') next.status = { replicas: 5 };
      else next.spec = { cronSpec: '0 * * * *' };
      prepareForUpdate(type, next, stored(), testStrategyContext, version(u.version));
      assert.deepEqual(next.status, u.status);
      assert.equal(next.metadata.generation, u.generation);
    });
  }
});

describe('built-in types - one set on the type serves every version', () => {
  const withTwoVersions = builtinTypes.filter((t) => t.versions.length > 1 && (t.subresources || t.columns));
  it('there are such types to check', () => assert.ok(withTwoVersions.length > 0));
  for (const t of withTwoVersions as ResourceType[]) {
    it(`${t.group || 'core'} ${t.kind}: every version has the type’s subresources and columns`, () => {
      for (const v of t.versions) {
        assert.equal(versionSubresources(t, v), t.subresources);
        assert.equal(versionColumns(t, v), t.columns);
      }
    });
  }
});
