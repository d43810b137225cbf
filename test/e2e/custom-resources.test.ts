// CustomResourceDefinitions end to end: a definition written through the API is Established by
// its controller (running as its own service account under RBAC), every gateway then serves its
// resource with the generic machinery, kubectl works with it, and deleting the definition deletes
// every object of it before the resource leaves discovery.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { crdOf } from '../../shared/registry/test/crd-fixtures.js';
import { startCrdControllers, type CrdControllers } from '../support/crd-controllers.js';
import { assertOk, createNamespace, eventually } from './helpers.js';

const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const GROUP = 'stable.example.com';

const definition = (extra: Record<string, unknown> = {}) =>
  crdOf(
    GROUP,
    'CronTab',
    [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\S+ ){4}\\S+$', description: 'When the job runs, in cron syntax.' },
                  image: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, default: 1 },
                },
                required: ['cronSpec'],
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        ],
      },
    ],
    { names: { shortNames: ['ct'], categories: ['all'] }, spec: extra },
  );

const crontab = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name }, spec });

describe('custom resource definitions, served', { timeout: 120_000 }, () => {
  let c: TestCluster;
  let controllers: CrdControllers;
  const ns = 'crd-e2e';
  const base = `/apis/${GROUP}/v1/namespaces/${ns}/crontabs`;

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true, replicas: 2 });
    controllers = await startCrdControllers(c, 'platform-crd-e2e-', ['customresourcedefinitions', 'garbagecollector']);
    await createNamespace(c, ns);
  });
  after(async () => {
    await controllers?.stop();
    await c?.stop();
  });

  it('crd - a definition becomes Established with its names accepted and its storage version stored, and every gateway serves it', async () => {
    assertOk(await c.request('POST', CRDS, { body: definition() }), 201);
    const crd = await eventually(
      'Established',
      async () => {
        const got = assertOk(await c.request('GET', `${CRDS}/crontabs.${GROUP}`));
        assert.ok(
          got.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True'),
          JSON.stringify(got.status),
        );
        return got;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.deepEqual(crd.status.acceptedNames, { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] });
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.ok(crd.metadata.finalizers.includes('customresourcecleanup.apiextensions.k8s.io'));
    for (const gw of c.gateways) {
      await eventually('served', async () => assertOk(await gw.request('GET', base)), { timeoutMs: 5_000, intervalMs: 100 });
      const list = assertOk(await gw.request('GET', `/apis/${GROUP}/v1`));
      assert.deepEqual(list.resources.map((r: any) => r.name).sort(), ['crontabs', 'crontabs/scale', 'crontabs/status']);
      const main = list.resources.find((r: any) => r.name === 'crontabs');
      assert.deepEqual([main.kind, main.namespaced, main.shortNames, main.categories], ['CronTab', true, ['ct'], ['all']]);
    }
  });

  it('crd - objects are defaulted, validated, pruned, listed, patched and scaled; protobuf and strategic merge patch are refused', async () => {
    const created = assertOk(await c.request('POST', base, { body: { ...crontab('one', { cronSpec: '* * * * */5', image: 'cron:1', bogus: true }), extra: 1 } }), 201);
    assert.equal(created.spec.replicas, 1);
    assert.equal(created.spec.bogus, undefined);
    assert.equal(created.extra, undefined);
    assert.equal(created.metadata.generation, 1);
    const invalid = await c.request('POST', base, { body: crontab('two', { cronSpec: 'nope' }) });
    assert.equal(invalid.status, 422, invalid.text);
    assert.deepEqual(
      invalid.json.details.causes.map((x: any) => x.field),
      ['spec.cronSpec'],
    );
    const merged = assertOk(await c.request('PATCH', `${base}/one`, { body: { spec: { image: 'cron:2' } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    assert.equal(merged.spec.image, 'cron:2');
    assert.equal(merged.metadata.generation, 2);
    const smp = await c.request('PATCH', `${base}/one`, { body: { spec: { image: 'x' } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 415, smp.text);
    const proto = await c.request('GET', `${base}/one`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(proto.status, 406, proto.text);
    // The main endpoint ignores status; /status writes it without bumping the generation.
    const withStatus = assertOk(await c.request('PUT', `${base}/one/status`, { body: { ...merged, status: { replicas: 1, selector: 'app=cron' } } }));
    assert.equal(withStatus.status.replicas, 1);
    assert.equal(withStatus.metadata.generation, 2);
    const scale = assertOk(await c.request('GET', `${base}/one/scale`));
    assert.deepEqual([scale.kind, scale.spec.replicas, scale.status.replicas, scale.status.selector], ['Scale', 1, 1, 'app=cron']);
    const scaled = assertOk(await c.request('PATCH', `${base}/one/scale`, { body: { spec: { replicas: 3 } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    assert.equal(scaled.spec.replicas, 3);
    assert.equal(assertOk(await c.request('GET', `${base}/one`)).spec.replicas, 3);
  });

  it('crd - kubectl gets, describes, explains and scales custom resources by short name, with the printer columns', { skip: findKubectl() ? false : 'kubectl is not on PATH' }, async () => {
    const k = new Kubectl(findKubectl()!, c.kubeconfigPath);
    const get = await k.run(['get', 'ct', '-n', ns]);
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /^NAME\s+SPEC\s+REPLICAS\none\s+\* \* \* \* \*\/5\s+3\n/);
    const all = await k.run(['get', 'all', '-n', ns]);
    assert.match(all.stdout, /crontab\.stable\.example\.com\/one/);
    const explain = await k.run(['explain', 'crontab.spec.cronSpec']);
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /When the job runs, in cron syntax\./);
    const scale = await k.run(['scale', 'crontab/one', '-n', ns, '--replicas=2']);
    assert.equal(scale.code, 0, scale.stderr);
    const applied = await k.run(['apply', '--server-side', '-n', ns, '-f', '-'], { input: JSON.stringify(crontab('applied', { cronSpec: '0 * * * *' })) });
    assert.equal(applied.code, 0, applied.stderr);
  });

  it('crd - deleting the definition deletes every object of it, then the resource leaves discovery on every gateway', async () => {
    assertOk(await c.request('DELETE', `${CRDS}/crontabs.${GROUP}`));
    await eventually(
      'the definition is gone',
      async () => {
        const r = await c.request('GET', `${CRDS}/crontabs.${GROUP}`);
        assert.equal(r.status, 404, r.text.slice(0, 400));
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    for (const gw of c.gateways) {
      await eventually('not served', async () => assert.equal((await gw.request('GET', base)).status, 404), { timeoutMs: 5_000, intervalMs: 100 });
      assert.ok(!assertOk(await gw.request('GET', '/apis')).groups.some((g: any) => g.name === GROUP));
    }
    // Defined again, nothing of the old objects is left.
    assertOk(await c.request('POST', CRDS, { body: definition() }), 201);
    await eventually('served again', async () => assert.deepEqual(assertOk(await c.request('GET', base)).items, []), { timeoutMs: 10_000, intervalMs: 100 });
  });
});
