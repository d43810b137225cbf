// A CustomResourceDefinition whose versions differ in subresources and printer columns, end to end:
// v1 has no subresources and prints Color and Phase; v2 has /status and /scale and prints Replicas
// and Ready. What a user sees follows the version a request comes through: discovery (legacy and
// aggregated) and OpenAPI, /status and /scale (404 in v1), the status/spec split and the generation
// of writes, the Table and `kubectl get <plural>.<version>.<group>`, and `kubectl scale`.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { crdOf } from '../../shared/registry/test/crd-fixtures.js';
import { servedIn, startCrdControllers, type CrdControllers } from '../support/crd-controllers.js';
import { assertOk, assertStatus, createNamespace, openWatch } from './helpers.js';

const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const GROUP = 'versions.example.com';
const ns = 'crd-versions';
const at = (v: string) => `/apis/${GROUP}/${v}/namespaces/${ns}/widgets`;
const merge = { 'content-type': 'application/merge-patch+json' };
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const TABLE = 'application/json;as=Table;g=meta.platform.io;v=v1';

const schema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { color: { type: 'string' }, replicas: { type: 'integer' } } },
      status: { type: 'object', properties: { phase: { type: 'string' }, replicas: { type: 'integer' }, selector: { type: 'string' } } },
    },
  },
};

const definition = crdOf(GROUP, 'Widget', [
  {
    name: 'v1',
    served: true,
    storage: true,
    schema,
    additionalPrinterColumns: [
      { name: 'Color', type: 'string', jsonPath: '.spec.color' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    ],
  },
  {
    name: 'v2',
    served: true,
    storage: false,
    schema,
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    additionalPrinterColumns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ready', type: 'integer', jsonPath: '.status.replicas' },
    ],
  },
]);

const widget = (v: string, name: string, extra: Record<string, unknown>) => ({ apiVersion: `${GROUP}/${v}`, kind: 'Widget', metadata: { name }, ...extra });

describe('custom resource definitions, versions that differ in subresources and columns', { timeout: 180_000 }, () => {
  let c: TestCluster;
  let controllers: CrdControllers;

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    controllers = await startCrdControllers(c, 'platform-crd-versions-');
    await createNamespace(c, ns);
    assertOk(await c.request('POST', CRDS, { body: definition }), 201);
    await servedIn(c, 'v1 and v2', [at('v1'), at('v2')]);
  });
  after(async () => {
    await controllers?.stop();
    await c?.stop();
  });

  it('crd versions - discovery and OpenAPI list /status and /scale only for the version that has them', async () => {
    const names = async (v: string) => (assertOk(await c.request('GET', `/apis/${GROUP}/${v}`)).resources as Array<{ name: string }>).map((r) => r.name).sort();
    assert.deepEqual(await names('v1'), ['widgets']);
    assert.deepEqual(await names('v2'), ['widgets', 'widgets/scale', 'widgets/status']);

    const aggregated = assertOk(await c.request('GET', '/apis', { headers: { accept: AGGREGATED } }));
    const group = aggregated.items.find((g: any) => g.metadata.name === GROUP);
    const subs = (v: string) => (group.versions.find((x: any) => x.version === v).resources[0].subresources ?? []).map((s: any) => s.subresource);
    assert.deepEqual(subs('v1'), []);
    assert.deepEqual(subs('v2'), ['scale', 'status']);
    const scale = group.versions.find((x: any) => x.version === 'v2').resources[0].subresources.find((s: any) => s.subresource === 'scale');
    assert.deepEqual(scale.responseKind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });

    const item = (v: string) => `/apis/${GROUP}/${v}/namespaces/{namespace}/widgets/{name}`;
    const below = (paths: object, v: string) =>
      Object.keys(paths)
        .filter((p) => p.startsWith(`${item(v)}/`))
        .sort();
    const doc1 = assertOk(await c.request('GET', `/openapi/v3/apis/${GROUP}/v1`));
    const doc2 = assertOk(await c.request('GET', `/openapi/v3/apis/${GROUP}/v2`));
    assert.deepEqual(below(doc1.paths, 'v1'), []);
    assert.deepEqual(below(doc2.paths, 'v2'), [`${item('v2')}/scale`, `${item('v2')}/status`]);
    const swagger = assertOk(await c.request('GET', '/openapi/v2'));
    assert.deepEqual(below(swagger.paths, 'v1'), []);
    assert.deepEqual(below(swagger.paths, 'v2'), [`${item('v2')}/scale`, `${item('v2')}/status`]);
  });

  it('crd versions - /status and /scale serve v2 and are 404 in v1; status and generation follow the version written through', async () => {
    // v1 has no status subresource: its create keeps the status sent; v2's drops it.
    const one = assertOk(await c.request('POST', at('v1'), { body: widget('v1', 'one', { spec: { color: 'blue', replicas: 1 }, status: { phase: 'Pending' } }) }), 201);
    assert.deepEqual([one.status, one.metadata.generation], [{ phase: 'Pending' }, 1]);
    const two = assertOk(await c.request('POST', at('v2'), { body: widget('v2', 'two', { spec: { color: 'red', replicas: 1 }, status: { phase: 'Pending' } }) }), 201);
    assert.equal(two.status, undefined);

    for (const sub of ['status', 'scale']) {
      const missing = assertStatus(await c.request('GET', `${at('v1')}/one/${sub}`), 404, 'NotFound');
      assert.equal(missing.message, `widgets.${GROUP} "one" not found`);
      assert.deepEqual(missing.details, { name: 'one', group: GROUP, kind: 'widgets' });
      assertStatus(await c.request('PATCH', `${at('v1')}/one/${sub}`, { body: { status: { phase: 'x' } }, headers: merge }), 404, 'NotFound');
    }
    const status = assertOk(await c.request('GET', `${at('v2')}/one/status`));
    assert.deepEqual([status.apiVersion, status.kind, status.status], [`${GROUP}/v2`, 'Widget', { phase: 'Pending' }]);

    // Through v1 the main resource writes status, and a status change counts for the generation.
    const v1Write = assertOk(await c.request('PATCH', `${at('v1')}/one`, { body: { status: { phase: 'Running' } }, headers: merge }));
    assert.deepEqual([v1Write.status.phase, v1Write.metadata.generation], ['Running', 2]);
    // Through v2 the main resource leaves status alone and the generation with it; /status writes it.
    const v2Main = assertOk(await c.request('PATCH', `${at('v2')}/one`, { body: { status: { phase: 'Ignored' } }, headers: merge }));
    assert.deepEqual([v2Main.status.phase, v2Main.metadata.generation], ['Running', 2]);
    const v2Status = assertOk(await c.request('PATCH', `${at('v2')}/one/status`, { body: { spec: { color: 'green' }, status: { phase: 'Ready', replicas: 1, selector: 'app=one' } }, headers: merge }));
    assert.deepEqual([v2Status.spec.color, v2Status.status.phase, v2Status.metadata.generation], ['blue', 'Ready', 2]);

    const scale = assertOk(await c.request('GET', `${at('v2')}/one/scale`));
    assert.deepEqual([scale.apiVersion, scale.kind, scale.spec.replicas, scale.status.replicas, scale.status.selector], ['autoscaling/v1', 'Scale', 1, 1, 'app=one']);
    const scaled = assertOk(await c.request('PATCH', `${at('v2')}/one/scale`, { body: { spec: { replicas: 2 } }, headers: merge }));
    assert.equal(scaled.spec.replicas, 2);
    assert.equal(assertOk(await c.request('GET', `${at('v1')}/one`)).spec.replicas, 2);

    // Server-side apply alike: through v1 the applier owns the status it sends, through v2 status is not the main resource's.
    const apply = (v: string, body: object) => c.request('PATCH', `${at(v)}/three?fieldManager=e2e`, { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/apply-patch+yaml' } });
    const applied = assertOk(await apply('v1', widget('v1', 'three', { spec: { color: 'gray' }, status: { phase: 'Applied' } })), 201);
    assert.equal(applied.status.phase, 'Applied');
    assert.ok(JSON.stringify(applied.metadata.managedFields).includes('"f:phase"'), JSON.stringify(applied.metadata.managedFields));
    const reapplied = assertOk(await apply('v2', widget('v2', 'three', { spec: { color: 'gray' }, status: { phase: 'Other' } })));
    assert.equal(reapplied.status.phase, 'Applied');
    assertOk(await c.request('DELETE', `${at('v1')}/three`));
  });

  it('crd versions - the Table of each version has its own columns', async () => {
    const table = async (v: string) => assertOk(await c.request('GET', at(v), { headers: { accept: TABLE } }));
    const t1 = await table('v1');
    assert.deepEqual(
      t1.columnDefinitions.map((d: any) => d.name),
      ['Name', 'Color', 'Phase'],
    );
    assert.deepEqual(
      t1.rows.map((r: any) => r.cells),
      [
        ['one', 'blue', 'Ready'],
        ['two', 'red', null],
      ],
    );
    const t2 = await table('v2');
    assert.deepEqual(
      t2.columnDefinitions.map((d: any) => [d.name, d.type, d.description]),
      [
        ['Name', 'string', t1.columnDefinitions[0].description],
        ['Replicas', 'integer', 'Custom resource definition column (in JSONPath format): .spec.replicas'],
        ['Ready', 'integer', 'Custom resource definition column (in JSONPath format): .status.replicas'],
      ],
    );
    assert.deepEqual(
      t2.rows.map((r: any) => r.cells),
      [
        ['one', 2, 1],
        ['two', 1, null],
      ],
    );
    // A watch as Tables (kubectl get -w) takes the version's columns too.
    for (const [v, columns, cells] of [
      ['v1', ['Name', 'Color', 'Phase'], ['one', 'blue', 'Ready']],
      ['v2', ['Name', 'Replicas', 'Ready'], ['one', 2, 1]],
    ] as const) {
      const w = await openWatch(c, `${at(v)}?watch=true&fieldSelector=metadata.name%3Done`, { accept: TABLE });
      try {
        const e = await w.waitFor((x) => x.type === 'ADDED');
        assert.deepEqual(
          e.object.columnDefinitions.map((d: any) => d.name),
          columns,
        );
        assert.deepEqual(e.object.rows[0].cells, cells);
      } finally {
        w.close();
      }
    }
  });

  it(
    'crd versions - kubectl get <plural>.<version>.<group> prints that version’s columns; kubectl scale goes through the version with /scale',
    { skip: findKubectl() ? false : 'kubectl is not on PATH' },
    async () => {
      const k = new Kubectl(findKubectl()!, c.kubeconfigPath);
      const get1 = await k.run(['get', `widgets.v1.${GROUP}`, '-n', ns]);
      assert.equal(get1.code, 0, get1.stderr);
      assert.match(get1.stdout, /^NAME\s+COLOR\s+PHASE\none\s+blue\s+Ready\ntwo\s+red\s*\n$/);
      const get2 = await k.run(['get', `widgets.v2.${GROUP}`, '-n', ns]);
      assert.equal(get2.code, 0, get2.stderr);
      assert.match(get2.stdout, /^NAME\s+REPLICAS\s+READY\none\s+2\s+1\ntwo\s+1\s*\n$/);

      const scaled = await k.run(['scale', `widgets.v2.${GROUP}/one`, '-n', ns, '--replicas=3']);
      assert.equal(scaled.code, 0, scaled.stderr);
      assert.match(scaled.stdout, /scaled/);
      assert.equal(assertOk(await c.request('GET', `${at('v1')}/one`)).spec.replicas, 3);
      // v1 has no /scale: the server answers its 404 as upstream's does, and nothing changes.
      const refused = await k.run(['scale', `widgets.v1.${GROUP}/one`, '-n', ns, '--replicas=4']);
      assert.notEqual(refused.code, 0, refused.stdout);
      assert.match(refused.stderr, /^Error from server \(NotFound\): widgets\.versions\.example\.com "one" not found$/m);
      assert.equal(assertOk(await c.request('GET', `${at('v2')}/one`)).spec.replicas, 3);
    },
  );
});
