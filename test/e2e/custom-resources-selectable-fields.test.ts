// A CustomResourceDefinition's selectableFields, end to end: v1 selects by spec.color and
// spec.size, v2 by spec.color alone. `kubectl get --field-selector` lists what matches; a watch with
// a field selector sees an object leave the selection (DELETED) and another enter it (ADDED) on
// update; deletecollection deletes only the selected; a key the request's version does not select by
// is 400 with upstream's message; OpenAPI v3 publishes the fields on the kind.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { crdOf } from '../../shared/registry/test/crd-fixtures.js';
import { servedIn, startCrdControllers, type CrdControllers } from '../support/crd-controllers.js';
import { assertOk, assertStatus, createNamespace, eventually, openWatch } from './helpers.js';

const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const GROUP = 'selectable.example.com';
const ns = 'crd-selectable';
const at = (v: string) => `/apis/${GROUP}/${v}/namespaces/${ns}/shirts`;
const merge = { 'content-type': 'application/merge-patch+json' };
const sel = (s: string) => `fieldSelector=${encodeURIComponent(s)}`;

const schema = {
  openAPIV3Schema: {
    type: 'object',
    properties: { spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer' }, branded: { type: 'boolean' } } } },
  },
};

// The versions' schemas differ (a description): identical ones are hoisted to the whole definition,
// and upstream then refuses per-version selectableFields, which have no version schema to point into.
const v2Schema = { openAPIV3Schema: { ...schema.openAPIV3Schema, description: 'A shirt, second edition.' } };

const definition = crdOf(GROUP, 'Shirt', [
  { name: 'v1', served: true, storage: true, schema, selectableFields: [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.size' }, { jsonPath: '.spec.branded' }] },
  { name: 'v2', served: true, storage: false, schema: v2Schema, selectableFields: [{ jsonPath: '.spec.color' }] },
]);

const shirt = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'Shirt', metadata: { name }, spec });
const names = (list: { items: Array<{ metadata: { name: string } }> }) => list.items.map((i) => i.metadata.name).sort();

describe('custom resource definitions, selectable fields', { timeout: 180_000 }, () => {
  let c: TestCluster;
  let controllers: CrdControllers;

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    controllers = await startCrdControllers(c, 'platform-crd-selectable-');
    await createNamespace(c, ns);
    assertOk(await c.request('POST', CRDS, { body: definition }), 201);
    await servedIn(c, 'v1 and v2', [at('v1'), at('v2')]);
    for (const [name, spec] of [
      ['red-s', { color: 'red', size: 1, branded: true }],
      ['red-l', { color: 'red', size: 3 }],
      ['blue-m', { color: 'blue', size: 2 }],
      ['plain', {}],
    ] as const) {
      assertOk(await c.request('POST', at('v1'), { body: shirt(name, spec) }), 201);
    }
  });
  after(async () => {
    await controllers?.stop();
    await c?.stop();
  });

  it('selectable fields - list by =, == and != on strings, integers and booleans, an absent field as ""', async () => {
    const cases: Array<[string, string, string[]]> = [
      ['v1', 'spec.color=red', ['red-l', 'red-s']],
      ['v1', 'spec.color==blue', ['blue-m']],
      ['v1', 'spec.color!=red', ['blue-m', 'plain']],
      ['v1', 'spec.color=', ['plain']],
      ['v1', 'spec.size=3', ['red-l']],
      ['v1', 'spec.branded=true', ['red-s']],
      ['v1', 'spec.color=red,spec.size!=1', ['red-l']],
      ['v1', 'spec.color=red,metadata.name=red-s', ['red-s']],
      ['v2', 'spec.color=red', ['red-l', 'red-s']],
    ];
    for (const [v, s, want] of cases) assert.deepEqual(names(assertOk(await c.request('GET', `${at(v)}?${sel(s)}`))), want, `${v} ${s}`);
  });

  it('selectable fields - a key the version does not select by is 400 field label not supported', async () => {
    for (const [v, field] of [
      ['v2', 'spec.size'],
      ['v1', 'spec.nope'],
    ]) {
      const st = assertStatus(await c.request('GET', `${at(v!)}?${sel(`${field}=1`)}`), 400, 'BadRequest');
      assert.equal(st.message, `field label not supported: ${field}`);
      const w = await openWatch(c, `${at(v!)}?watch=true&${sel(`${field}=1`)}`);
      try {
        const e = await w.waitFor((x) => x.type === 'HTTP');
        assert.deepEqual([e.object.code, e.object.reason, e.object.message], [400, 'BadRequest', `field label not supported: ${field}`]);
      } finally {
        w.close();
      }
    }
  });

  it('selectable fields - a watch sees an object leave the selection as DELETED and enter it as ADDED', async () => {
    const w = await openWatch(c, `${at('v2')}?watch=true&${sel('spec.color=red')}`);
    try {
      assert.deepEqual((await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'red-s')).object.apiVersion, `${GROUP}/v2`);
      await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'red-l');
      assertOk(await c.request('PATCH', `${at('v1')}/red-s`, { body: { spec: { color: 'green' } }, headers: merge }));
      const left = await w.waitFor((e) => e.type === 'DELETED' && e.object.metadata.name === 'red-s');
      assert.equal(left.object.spec.color, 'green');
      assertOk(await c.request('PATCH', `${at('v1')}/blue-m`, { body: { spec: { color: 'red' } }, headers: merge }));
      const entered = await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'blue-m');
      assert.equal(entered.object.spec.color, 'red');
      assertOk(await c.request('PATCH', `${at('v1')}/blue-m`, { body: { spec: { size: 5 } }, headers: merge }));
      assert.equal((await w.waitFor((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'blue-m')).object.spec.size, 5);
      assert.ok(!w.events.some((e) => e.object?.metadata?.name === 'plain'), JSON.stringify(w.events));
    } finally {
      w.close();
    }
    // Put them back for the other tests.
    assertOk(await c.request('PATCH', `${at('v1')}/red-s`, { body: { spec: { color: 'red' } }, headers: merge }));
    assertOk(await c.request('PATCH', `${at('v1')}/blue-m`, { body: { spec: { color: 'blue', size: 2 } }, headers: merge }));
  });

  it('selectable fields - OpenAPI v3 publishes each version’s fields on its kind', async () => {
    const ext = async (v: string) => assertOk(await c.request('GET', `/openapi/v3/apis/${GROUP}/${v}`)).components.schemas[`com.example.selectable.${v}.Shirt`]['x-kubernetes-selectable-fields'];
    assert.deepEqual(await ext('v1'), [{ fieldPath: 'spec.color' }, { fieldPath: 'spec.size' }, { fieldPath: 'spec.branded' }]);
    assert.deepEqual(await ext('v2'), [{ fieldPath: 'spec.color' }]);
  });

  it('selectable fields - kubectl get --field-selector; an unknown key is refused', { skip: findKubectl() ? false : 'kubectl is not on PATH' }, async () => {
    const k = new Kubectl(findKubectl()!, c.kubeconfigPath);
    const got = await k.run(['get', `shirts.v1.${GROUP}`, '-n', ns, '--field-selector', 'spec.color=red', '-o', 'name']);
    assert.equal(got.code, 0, got.stderr);
    assert.deepEqual(got.stdout.trim().split('\n').sort(), [`shirt.${GROUP}/red-l`, `shirt.${GROUP}/red-s`]);
    const bad = await k.run(['get', `shirts.v2.${GROUP}`, '-n', ns, '--field-selector', 'spec.size=1']);
    assert.notEqual(bad.code, 0, bad.stdout);
    assert.match(
      bad.stderr,
      /^Error from server \(BadRequest\): Unable to find "selectable\.example\.com\/v2, Resource=shirts" that match label selector "", field selector "spec\.size=1": field label not supported: spec\.size$/m,
    );
  });

  it('selectable fields - deletecollection deletes only the selected', async () => {
    assertOk(await c.request('DELETE', `${at('v1')}?${sel('spec.color=red')}`));
    await eventually('the red shirts are gone', async () => assert.deepEqual(names(assertOk(await c.request('GET', at('v1')))), ['blue-m', 'plain']), { timeoutMs: 10_000, intervalMs: 100 });
  });
});
