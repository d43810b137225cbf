// Validation rules (x-kubernetes-validations, CEL) of custom resources end to end: a cluster whose
// gateway runs with CustomResourceValidationExpressions=true, a definition whose rule does not
// compile or whose estimated cost is past upstream's limit refused with upstream's path and words,
// rules and a transition rule enforced on create and update as kubectl shows them (422 and its
// Status causes), rules using upstream's list, regex and URL libraries, a hostile rule stopped by
// the cost limits without holding the gateway; and beside it a second gateway (plain HTTP) over the
// same NATS and services with the gate at its default (off), which keeps the rules but does not
// enforce them.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { silentLogger } from '../../shared/log.js';
import { featureGatesFromFlag } from '../../shared/config/feature-gates.js';
import { createBuiltinRegistry } from '../../shared/registry/builtin-registry.js';
import { crdOf } from '../../shared/registry/test/crd-fixtures.js';
import { createControllersService, type ControllersService } from '../../services/controllers/service.js';
import { createGatewayService, type GatewayService } from '../../services/gateway/service.js';
import { assertOk, createNamespace, eventually } from './helpers.js';

const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const GROUP = 'cel.example.com';
const HOSTILE = 'self.all(x, self.all(y, x <= y || x > y))';
/** The most items HOSTILE's list may have for its estimated cost (9,005,002) to stay within upstream's per-rule limit. */
const HOSTILE_MAX_ITEMS = 1000;
const COST_HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

const definition = (specRules: object[] = [{ rule: 'self.minReplicas <= self.replicas', message: 'replicas must be at least minReplicas' }]) =>
  crdOf(GROUP, 'Widget', [
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
              'x-kubernetes-validations': specRules,
              properties: {
                replicas: { type: 'integer' },
                minReplicas: { type: 'integer' },
                name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] },
                numbers: { type: 'array', maxItems: HOSTILE_MAX_ITEMS, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: HOSTILE }] },
              },
            },
          },
        },
      },
    },
  ]);

const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec });

/** A definition of kind `kind` (plural: lower case + s) whose spec has `properties`. */
const definitionOf = (kind: string, properties: object) =>
  crdOf(GROUP, kind, [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }]);

const PAIRS = 'self.all(x, self.all(y, x == y))';
const pairsOver = (bounds: { maxItems?: number; maxLength?: number }) => ({
  names: {
    type: 'array',
    ...(bounds.maxItems === undefined ? {} : { maxItems: bounds.maxItems }),
    items: { type: 'string', ...(bounds.maxLength === undefined ? {} : { maxLength: bounds.maxLength }) },
    'x-kubernetes-validations': [{ rule: PAIRS, message: 'names must all be the same' }],
  },
});

/** Rules with upstream's libraries: lists, regex (RE2, Go's syntax) and URLs. */
const LIBRARY_RULES = {
  ports: { type: 'array', maxItems: 16, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.isSorted() && self.sum() <= 65535', message: 'ports must be sorted' }] },
  image: {
    type: 'string',
    maxLength: 128,
    'x-kubernetes-validations': [
      { rule: "self.matches('(?i)^[a-z0-9./-]+:v[0-9]+$')", message: 'image needs a :vN tag' },
      { rule: "self.find('[0-9]+$') != '0' && self.findAll('/').size() <= 2", message: 'image tag v0 and deep paths are not allowed' },
    ],
  },
  endpoint: {
    type: 'string',
    maxLength: 256,
    'x-kubernetes-validations': [
      { rule: "isURL(self) && url(self).getScheme() == 'https' && url(self).getHostname().endsWith('.example.com')", message: 'endpoint must be an https URL under example.com' },
    ],
  },
};

/** Requests to a plain-HTTP gateway as the cluster's admin. */
interface Api {
  request(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; headers: Headers; text: string; json: any }>;
}

function plainApi(url: string, token: string): Api {
  return {
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...opts.headers };
      if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
      const res = await fetch(url + path, { method, headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) });
      const text = await res.text();
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
  };
}

describe('custom resources - validation rules (CEL)', { timeout: 120_000 }, () => {
  let c: TestCluster;
  /** A second gateway on the same NATS and services, with every gate at its default. */
  let offGateway: GatewayService;
  let off: Api;
  let controllers: ControllersService;
  const ns = 'crd-cel';
  const base = `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;

  before(async () => {
    c = await startTestCluster({ featureGates: featureGatesFromFlag(['CustomResourceValidationExpressions=true']).gates });
    offGateway = await createGatewayService({ nc: await c.nats.connect('gateway-gates-off'), registry: createBuiltinRegistry(), log: silentLogger(), config: {} });
    await offGateway.ready;
    off = plainApi(await offGateway.app.listen({ port: 0, host: '127.0.0.1' }), c.adminToken);
    const client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: c.kubeconfigPath } }));
    controllers = createControllersService({ client, log: silentLogger(), config: { controllers: ['customresourcedefinitions'] } });
    await controllers.leading;
    await createNamespace(c, ns);
  });
  after(async () => {
    await controllers?.stop();
    await offGateway?.close();
    await c?.stop();
  });

  it('crd cel - a definition whose rule does not compile is refused, at the rule, with the compiler’s words', async () => {
    const r = await c.request('POST', CRDS, { body: definition([{ rule: 'self.replicas > self.nope' }]) });
    assert.equal(r.status, 422, r.text);
    const causes = r.json.details.causes as Array<{ field: string; message: string }>;
    assert.deepEqual(
      causes.map((x) => x.field),
      ['spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule'],
    );
    assert.match(causes[0]!.message, /^Invalid value: "self.replicas > self.nope": compilation failed: ERROR: <input>:1:\d+: undefined field 'nope'/);
  });

  it('crd cel - a rule whose estimated cost is past the limit is refused at the rule with upstream’s words; bounds bring it within', async () => {
    const causesOf = async (bounds: { maxItems?: number; maxLength?: number }) => {
      const r = await c.request('POST', CRDS, { body: definitionOf('Pair', pairsOver(bounds)) });
      assert.equal(r.status, 422, r.text);
      assert.equal(r.json.reason, 'Invalid');
      return r.json.details.causes as Array<{ reason: string; field: string; message: string }>;
    };
    const at = 'spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule';
    const unbounded = await causesOf({});
    assert.deepEqual(unbounded[0], { reason: 'FieldValueForbidden', field: at, message: `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${COST_HINT}` });
    assert.deepEqual(unbounded.at(-1), {
      reason: 'FieldValueForbidden',
      field: 'spec.validation.openAPIV3Schema',
      message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${COST_HINT}`,
    });
    // Ten items of up to 3 MiB each are still too many bytes to compare pairwise (upstream estimates 31,457,852).
    assert.deepEqual(await causesOf({ maxItems: 10 }), [{ reason: 'FieldValueForbidden', field: at, message: `Forbidden: estimated rule cost exceeds budget by factor of 3.1x ${COST_HINT}` }]);
    assertOk(await c.request('POST', CRDS, { body: definitionOf('Pair', pairsOver({ maxItems: 10, maxLength: 64 })) }), 201);
    const pairs = `/apis/${GROUP}/v1/namespaces/${ns}/pairs`;
    await eventually('pairs served', async () => assertOk(await c.request('GET', pairs)), { timeoutMs: 30_000, intervalMs: 100 });
    const pair = (name: string, names: string[]) => ({ apiVersion: `${GROUP}/v1`, kind: 'Pair', metadata: { name }, spec: { names } });
    assertOk(await c.request('POST', pairs, { body: pair('same', ['a', 'a']) }), 201);
    const r = await c.request('POST', pairs, { body: pair('different', ['a', 'b']) });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.details.causes[0].message, 'Invalid value: "array": names must all be the same');
  });

  it('crd cel - rules with the list, regex and URL libraries are enforced', async () => {
    assertOk(await c.request('POST', CRDS, { body: definitionOf('Service', LIBRARY_RULES) }), 201);
    const services = `/apis/${GROUP}/v1/namespaces/${ns}/services`;
    await eventually('services served', async () => assertOk(await c.request('GET', services)), { timeoutMs: 30_000, intervalMs: 100 });
    const service = (name: string, spec: object) => ({ apiVersion: `${GROUP}/v1`, kind: 'Service', metadata: { name }, spec });
    assertOk(await c.request('POST', services, { body: service('good', { ports: [80, 443], image: 'Registry.local/web:v2', endpoint: 'https://api.example.com:8443/v1?x=1' }) }), 201);
    const r = await c.request('POST', services, { body: service('bad', { ports: [443, 80], image: 'a/b/c/web:v0', endpoint: 'http://api.example.com/' }) });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(
      r.json.details.causes.map((x: { field: string; message: string }) => `${x.field}: ${x.message}`),
      [
        'spec.ports: Invalid value: "array": ports must be sorted',
        'spec.image: Invalid value: "string": image tag v0 and deep paths are not allowed',
        'spec.endpoint: Invalid value: "string": endpoint must be an https URL under example.com',
      ],
    );
    const notURL = await c.request('POST', services, { body: service('no-url', { endpoint: 'https://a:b:c/' }) });
    assert.equal(notURL.status, 422, notURL.text);
    assert.deepEqual(notURL.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'spec.endpoint', message: 'Invalid value: "string": endpoint must be an https URL under example.com' }]);
  });

  it('crd cel - the definition is established and served by both gateways', async () => {
    assertOk(await c.request('POST', CRDS, { body: definition() }), 201);
    for (const api of [c, off]) await eventually('served', async () => assertOk(await api.request('GET', base)), { timeoutMs: 30_000, intervalMs: 100 });
  });

  it('crd cel - a create that breaks a rule answers 422 with the rule’s message at the node’s path', async () => {
    const r = await c.request('POST', base, { body: widget('bad', { replicas: 1, minReplicas: 2, name: 'a' }) });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(r.json.message, 'Widget "bad" is invalid: spec: Invalid value: "object": replicas must be at least minReplicas');
    assert.deepEqual(r.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas must be at least minReplicas', field: 'spec' }]);
    assertOk(await c.request('POST', base, { body: widget('good', { replicas: 3, minReplicas: 2, name: 'a' }) }), 201);
  });

  it('crd cel - a transition rule (self == oldSelf) refuses an update that changes the field, and lets others through', async () => {
    const path = `${base}/good`;
    const patch = (spec: object) => c.request('PATCH', path, { body: { spec }, headers: { 'content-type': 'application/merge-patch+json' } });
    assertOk(await patch({ replicas: 4 }));
    const r = await patch({ name: 'b', replicas: 1 });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(
      r.json.details.causes.map((x: { field: string; message: string }) => `${x.field}: ${x.message}`),
      ['spec: Invalid value: "object": replicas must be at least minReplicas', 'spec.name: Invalid value: "string": Value is immutable'],
    );
  });

  it('crd cel - kubectl shows the refusals as upstream words them', { skip: findKubectl() ? false : 'kubectl is not on PATH' }, async () => {
    const k = new Kubectl(findKubectl()!, c.kubeconfigPath);
    const created = await k.run(['create', '-n', ns, '-f', '-'], { input: JSON.stringify(widget('k-bad', { replicas: 0, minReplicas: 1 })) });
    assert.notEqual(created.code, 0);
    assert.match(created.stderr, /The Widget "k-bad" is invalid: spec: Invalid value: "object": replicas must be at least minReplicas/);
    const patched = await k.run(['patch', 'widget', 'good', '-n', ns, '--type=merge', '-p', '{"spec":{"name":"c"}}']);
    assert.notEqual(patched.code, 0);
    assert.match(patched.stderr, /The Widget "good" is invalid: spec.name: Invalid value: "string": Value is immutable/);
  });

  it('crd cel - a hostile rule over a large list is stopped by the cost limits: 422 within a second, the gateway never held long', async () => {
    const numbers = Array.from({ length: HOSTILE_MAX_ITEMS }, (_, i) => i);
    // Both gateways run in this process, so the CPU the process spends on a request bounds how long
    // an event loop is held (on a machine as busy as CI's, a timer's lateness would mostly measure
    // the other processes). The same body through the gateway that runs no rules is the baseline.
    const cpuOf = async (send: () => Promise<{ status: number; text: string; json: any }>) => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const r = await send();
      const used = process.cpuUsage(cpu);
      return { r, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
    };
    const baseline = await cpuOf(() => off.request('POST', base, { body: widget('numbers', { replicas: 1, minReplicas: 1, numbers }) }));
    assert.equal(baseline.r.status, 201, baseline.r.text.slice(0, 400));
    const hostile = await cpuOf(() => c.request('POST', base, { body: widget('hostile', { replicas: 1, minReplicas: 1, numbers }) }));
    const r = hostile.r;
    assert.equal(r.status, 422, r.text.slice(0, 400));
    assert.equal(r.json.details.causes[0].field, 'spec.numbers');
    assert.match(r.json.details.causes[0].message, new RegExp(`no further validation rules will be run due to call cost exceeds limit for rule: ${HOSTILE.replace(/[()|.]/g, '\\$&')}$`));
    assert.ok(hostile.ms < 1000, `answered in ${hostile.ms} ms`);
    // Rules stop at 50 ms of CPU (the unit tests hold evaluation under 100 ms).
    assert.ok(hostile.cpuMs - baseline.cpuMs < 100, `the rules took ${hostile.cpuMs - baseline.cpuMs} ms of CPU (${hostile.cpuMs} ms with them, ${baseline.cpuMs} ms without)`);
  });

  it('crd cel - with the gate off (the default) the same definition’s rules are kept but not enforced', async () => {
    const stored = assertOk(await off.request('GET', `${CRDS}/widgets.${GROUP}`));
    assert.equal(stored.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'][0].rule, 'self.minReplicas <= self.replicas');
    assertOk(await off.request('POST', base, { body: widget('unchecked', { replicas: 1, minReplicas: 2, name: 'a' }) }), 201);
    assertOk(await off.request('PATCH', `${base}/unchecked`, { body: { spec: { name: 'b' } }, headers: { 'content-type': 'application/merge-patch+json' } }));
    // The gateway with the gate on (once its cache has the object) refuses the same object's next update.
    await eventually(
      'refused by the gateway with the gate on',
      async () => {
        const r = await c.request('PATCH', `${base}/unchecked`, { body: { spec: { replicas: 1 } }, headers: { 'content-type': 'application/merge-patch+json' } });
        assert.equal(r.status, 422, r.text);
        assert.deepEqual(r.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas must be at least minReplicas', field: 'spec' }]);
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
  });
});
