// The filter of a list, watch or deletecollection of custom resources: field selectors on the
// request version's selectableFields with upstream's operators and values, and 400 for any key the
// version does not select by (another version's included).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { StatusError } from '../../../shared/api/status.js';
import { customResourceType } from '../../../shared/registry/custom-resources/custom-resource-type.js';
import { Registry } from '../../../shared/registry/registry.js';
import { builtinTypes } from '../../../shared/registry/builtin-types.js';
import { resolveTarget } from '../../../shared/registry/target.js';
import { shirtDefinition } from '../../../shared/registry/test/crd-fixtures.js';
import { objectFilter } from '../reads/selectors.js';

const GROUP = 'stable.example.com';

const type = customResourceType(shirtDefinition(GROUP));
const registry = new Registry([...builtinTypes]);
registry.define('crd', [type]);
const target = (version: string) => resolveTarget(registry, registry.lookup(GROUP, version, type.plural)!);
const shirt = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v2`, kind: 'Shirt', metadata: { name, namespace: 'ns' }, spec }) as unknown as ApiObject;

describe('custom resource field selectors - per version', () => {
  const objects = [shirt('red-1', { color: 'red', size: 1, branded: true }), shirt('blue-2', { color: 'blue', size: 2 }), shirt('plain', {}), shirt('dark', { color: 'red', deep: { tone: 'dark' } })];
  const selects: Array<{ version: string; selector: string; names: string[] }> = [
    { version: 'v1', selector: 'spec.color=red', names: ['red-1', 'dark'] },
    { version: 'v1', selector: 'spec.color==red', names: ['red-1', 'dark'] },
    { version: 'v1', selector: 'spec.color!=red', names: ['blue-2', 'plain'] },
    { version: 'v1', selector: 'spec.color=', names: ['plain'] },
    { version: 'v1', selector: 'spec.size=2', names: ['blue-2'] },
    { version: 'v1', selector: 'spec.branded=true', names: ['red-1'] },
    { version: 'v1', selector: 'spec.branded!=true', names: ['blue-2', 'plain', 'dark'] },
    { version: 'v1', selector: 'spec.deep.tone=dark,spec.color=red', names: ['dark'] },
    { version: 'v1', selector: 'spec.color=red,metadata.name!=dark', names: ['red-1'] },
    { version: 'v2', selector: 'spec.color=blue', names: ['blue-2'] },
    { version: 'v3', selector: 'metadata.name=plain', names: ['plain'] },
  ];
  for (const c of selects) {
    it(`${c.version} ${c.selector} selects ${c.names.join(', ')}`, () => {
      const filter = objectFilter(target(c.version), undefined, undefined, c.selector)!;
      assert.deepEqual(
        objects.filter(filter).map((o) => o.metadata.name),
        c.names,
      );
    });
  }

  const refused: Array<{ version: string; selector: string; field: string }> = [
    { version: 'v2', selector: 'spec.size=1', field: 'spec.size' },
    { version: 'v3', selector: 'spec.color=red', field: 'spec.color' },
    { version: 'v1', selector: 'spec.colour=red', field: 'spec.colour' },
    { version: 'v1', selector: '.spec.color=red', field: '.spec.color' },
  ];
  for (const c of refused) {
    it(`${c.version} refuses ${c.selector} with 400`, () => {
      assert.throws(
        () => objectFilter(target(c.version), undefined, undefined, c.selector),
        (err: unknown) => err instanceof StatusError && err.code === 400 && err.status.reason === 'BadRequest' && err.message === `field label not supported: ${c.field}`,
      );
    });
  }
});
