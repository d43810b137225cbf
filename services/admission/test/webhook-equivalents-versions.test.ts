// matchPolicy Equivalent over a CustomResourceDefinition whose versions differ in subresources: a
// request through `/status` or `/scale` is equivalent only to the versions that serve that
// subresource too (upstream registers a definition's status and scale version by version).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createBuiltinRegistry } from '../../../shared/registry/builtin-registry.js';
import { customResourceType } from '../../../shared/registry/custom-resources/custom-resource-type.js';
import { crdOf } from '../../../shared/registry/test/crd-fixtures.js';
import { registryApiTypes } from '../plugins/webhooks/api-types.js';

const GROUP = 'stable.example.com';
const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } }, status: { type: 'object' } } } };
const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };

const definition = {
  ...crdOf(
    GROUP,
    'CronTab',
    [
      { name: 'v1', served: true, storage: false, schema },
      { name: 'v2', served: true, storage: true, schema, subresources: { status: {}, scale } },
      { name: 'v3', served: true, storage: false, schema, subresources: { status: {} } },
    ],
    { names: { listKind: 'CronTabList' } },
  ),
  status: { conditions: [{ type: 'Established', status: 'True' }] },
} as unknown as ApiObject;

const registry = createBuiltinRegistry();
registry.define('crd', [customResourceType(definition)]);
const types = registryApiTypes(registry);
const resource = { group: GROUP, version: 'v2', resource: 'crontabs' };
const kind = { group: GROUP, version: 'v2', kind: 'CronTab' };
const scaleKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

const cases: Array<[string, string, typeof kind, string[]]> = [
  ['the main resource: every other version', '', kind, ['v1', 'v3']],
  ['/status: only the versions with a status subresource', 'status', kind, ['v3']],
  ['/scale: only the versions with a scale subresource', 'scale', scaleKind, []],
];
for (const [name, sub, requestKind, want] of cases) {
  test(`webhook matching - versions that differ: ${name}`, () => {
    assert.deepEqual(
      types
        .equivalents(resource, sub, requestKind)
        .map((e) => e.resource.version)
        .sort(),
      want,
    );
  });
}
