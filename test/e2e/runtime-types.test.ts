// A running gateway serves a type added to its registry while it runs, as a stored definition
// (a CustomResourceDefinition) will add one, and stops serving it when the type is removed: the
// registry's `define` is the one door, and discovery, routing, validation, the watch cache and
// upstream kubectl follow without a restart.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import type { JsonSchema } from '../../shared/api/types.js';
import type { ResourceType } from '../../shared/registry/types.js';

const schema: JsonSchema = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer', minimum: 0, default: 1 } }, additionalProperties: false } },
};
const crontabs: ResourceType = {
  group: 'stable.example.com',
  kind: 'CronTab',
  listKind: 'CronTabList',
  plural: 'crontabs',
  singular: 'crontab',
  scope: 'Namespaced',
  shortNames: ['ct'],
  versions: [{ name: 'v1', schema }],
} as ResourceType;
const base = '/apis/stable.example.com/v1/namespaces/default/crontabs';
const crontab = (name: string, spec: Record<string, unknown> = { cronSpec: '* * * * */5' }) => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name }, spec });

describe('types added while the gateway runs', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    c.registry.define('test', []);
    await c?.stop();
  });

  it('runtime types - a type defined while the gateway runs is discovered, written, validated, listed and watched; removed, it is 404', async () => {
    assert.equal((await c.request('GET', base)).status, 404);
    c.registry.define('test', [crontabs]);

    const groups = (await c.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
    assert.ok(groups.includes('stable.example.com'), groups.join(','));
    const resources = (await c.request('GET', '/apis/stable.example.com/v1')).json.resources;
    assert.deepEqual(
      resources.map((r: { name: string; kind: string; namespaced: boolean }) => [r.name, r.kind, r.namespaced]),
      [['crontabs', 'CronTab', true]],
    );

    // A watch opened before the first object sees it created.
    const watch = fetchWatch(c, `${base}?watch=1&timeoutSeconds=3`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const created = await c.request('POST', base, { body: crontab('one') });
    assert.equal(created.status, 201, created.text);
    // The schema's default, applied as for a built-in type.
    assert.equal(created.json.spec.replicas, 1);
    const invalid = await c.request('POST', base, { body: crontab('two', { replicas: -1 }) });
    assert.equal(invalid.status, 422, invalid.text);
    assert.match(invalid.json.message, /spec\.replicas/);
    const listed = await c.request('GET', base);
    assert.equal(listed.status, 200);
    assert.equal(listed.json.kind, 'CronTabList');
    assert.deepEqual(
      listed.json.items.map((o: { metadata: { name: string } }) => o.metadata.name),
      ['one'],
    );
    const events = await watch;
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [['ADDED', 'one']],
    );

    c.registry.define('test', []);
    assert.equal((await c.request('GET', `${base}/one`)).status, 404);
    assert.equal((await c.request('GET', '/apis/stable.example.com/v1')).status, 404);
    assert.ok(!(await c.request('GET', '/apis')).json.groups.some((g: { name: string }) => g.name === 'stable.example.com'));

    // Defined again, the stored object is served again: removing a type does not delete its objects.
    c.registry.define('test', [crontabs]);
    assert.equal((await c.request('GET', `${base}/one`)).json.spec.cronSpec, '* * * * */5');
  });

  it('runtime types - upstream kubectl finds a type defined after it first discovered the server', { skip: findKubectl() ? false : 'kubectl is not on PATH' }, async () => {
    c.registry.define('test', []);
    const k = new Kubectl(findKubectl()!, c.kubeconfigPath);
    assert.equal((await k.run(['get', 'namespaces'])).code, 0);
    c.registry.define('test', [crontabs]);
    // kubectl refreshes its discovery cache when a name does not resolve.
    const got = await k.run(['get', 'ct', '-n', 'default']);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /^one\s/m);
  });
});

/** The events of one watch request until the server ends it. */
async function fetchWatch(c: TestCluster, path: string): Promise<Array<{ type: string; object: any }>> {
  const res = await c.request('GET', path);
  return res.text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}
