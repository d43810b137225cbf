// CustomResourceDefinitions written to hurt the server, end to end (with the definitions
// controller in process, so definitions become Established as they do under `npm start`):
// - a scale subresource whose specReplicasPath walks through `__proto__` or `constructor`: one
//   PUT of /scale wrote into Object.prototype of the gateway, which then answered every request
//   with a 500 and died;
// - an enum of 100,000 values: compiling the schema held the event loop for 70 s, at every change
//   of the definition and at every gateway start;
// - validation rules nested thousands deep (`1+1+…`): a 500 from a stack overflow, where upstream
//   refuses the rule (422) with cel-go's "max recursion depth exceeded".

import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { silentLogger } from '../../shared/log.js';
import { featureGatesFromFlag } from '../../shared/config/feature-gates.js';
import { crdOf } from '../../shared/registry/test/crd-fixtures.js';
import { createControllersService, type ControllersService } from '../../services/controllers/service.js';
import { assertOk, createNamespace, eventually } from './helpers.js';

const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const GROUP = 'hostile.example.com';
const NS = 'crd-hostile';
const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

const definition = (kind: string, schema: object, extra: object = {}) => crdOf(GROUP, kind, [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...extra }]);
const base = (kind: string) => `/apis/${GROUP}/v1/namespaces/${NS}/${kind.toLowerCase()}s`;

describe('custom resources - hostile definitions', { timeout: 120_000 }, () => {
  let c: TestCluster;
  let controllers: ControllersService;

  const served = (kind: string) => eventually(`${kind} served`, async () => assertOk(await c.request('GET', base(kind))), { timeoutMs: 60_000, intervalMs: 100 });

  before(async () => {
    c = await startTestCluster({ featureGates: featureGatesFromFlag(['CustomResourceValidationExpressions=true']).gates });
    const client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: c.kubeconfigPath } }));
    controllers = createControllersService({ client, log: silentLogger(), config: { controllers: ['customresourcedefinitions'] } });
    await controllers.leading;
    await createNamespace(c, NS);
  });
  after(async () => {
    await controllers?.stop();
    await c?.stop();
  });

  for (const [kind, path] of [
    ['Proto', '.spec.__proto__.probePolluted'],
    ['Ctor', '.spec.constructor.prototype.probePolluted'],
  ] as const) {
    it(`crd hostile - a scale path through ${path.split('.')[2]} writes into the object, never into Object.prototype`, async () => {
      const scale = { specReplicasPath: path, statusReplicasPath: '.status.replicas' };
      assertOk(await c.request('POST', CRDS, { body: definition(kind, OPEN, { subresources: { scale } }) }), 201);
      await served(kind);
      assertOk(await c.request('POST', base(kind), { body: { apiVersion: `${GROUP}/v1`, kind, metadata: { name: 'one' }, spec: {} } }), 201);
      const current = assertOk(await c.request('GET', `${base(kind)}/one/scale`));
      assert.equal(current.spec.replicas, 0);
      const put = assertOk(await c.request('PUT', `${base(kind)}/one/scale`, { body: { ...current, spec: { replicas: 3 } } }));
      assert.equal(put.spec.replicas, 3);
      assert.equal(({} as Record<string, unknown>).probePolluted, undefined, 'Object.prototype is untouched');
      assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'probePolluted'), false);
      // The count lives in the object, under the fields the path names, and reads back.
      const stored = await c.request('GET', `${base(kind)}/one`);
      assert.equal(stored.status, 200, stored.text);
      const segments = path.split('.').slice(2);
      let node: unknown = JSON.parse(stored.text).spec;
      for (const s of segments) node = Object.hasOwn(node as object, s) ? (node as Record<string, unknown>)[s] : undefined;
      assert.equal(node, 3, stored.text);
      assert.equal(assertOk(await c.request('GET', `${base(kind)}/one/scale`)).spec.replicas, 3);
      // The gateway still answers everything else.
      assertOk(await c.request('GET', '/api/v1/namespaces'));
    });
  }

  it('crd hostile - an enum of 100,000 values is compiled without holding the event loop', async () => {
    const values = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { mode: { type: 'string', enum: values } } } } };
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    assertOk(await c.request('POST', CRDS, { body: definition('Enum', schema) }), 201);
    await served('Enum');
    delay.disable();
    // The gateway runs in this process: its compile is this event loop's delay (70 s before).
    assert.ok(delay.max / 1e6 < 3_000, `the event loop was held ${Math.round(delay.max / 1e6)} ms`);
    const obj = (name: string, mode: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Enum', metadata: { name }, spec: { mode } });
    assertOk(await c.request('POST', base('Enum'), { body: obj('good', 'v99999') }), 201);
    const bad = await c.request('POST', base('Enum'), { body: obj('bad', 'nope') });
    assert.equal(bad.status, 422, bad.text.slice(0, 300));
    assert.equal(bad.json.details.causes[0].field, 'spec.mode');
  });

  it('crd hostile - validation rules nested past cel-go’s depth limit are refused with its words (422, not 500)', async () => {
    const at = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule';
    for (const rule of [`${Array(2_000).fill('1').join(' + ')} > 0`, `self.s${'[0]'.repeat(3_000)} == ""`, `${'('.repeat(5_000)}true${')'.repeat(5_000)}`]) {
      const schema = { type: 'object', properties: { spec: { type: 'object', properties: { s: { type: 'string' } }, 'x-kubernetes-validations': [{ rule }] } } };
      const r = await c.request('POST', CRDS, { body: definition('Deep', schema) });
      assert.equal(r.status, 422, r.text.slice(0, 300));
      const cause = r.json.details.causes[0];
      assert.equal(cause.field, at);
      assert.match(cause.message, /compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded$/);
    }
    const long = `self.s != "${'a'.repeat(100_001)}"`;
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { s: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: long }] } } };
    const r = await c.request('POST', CRDS, { body: definition('Long', schema) });
    assert.equal(r.status, 422, r.text.slice(0, 300));
    assert.match(r.json.details.causes[0].message, /expression code point size exceeds limit: size: 100013, limit 100000$/);
    // Within the limits a rule as deep as upstream allows still compiles.
    const fine = { type: 'object', properties: { spec: { type: 'object', properties: { s: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: `${Array(200).fill('1').join(' + ')} > 0` }] } } };
    assertOk(await c.request('POST', CRDS, { body: definition('Fine', fine) }), 201);
  });
});
