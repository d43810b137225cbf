// Two gateways on one bus, as when the gateway is scaled horizontally: a write through one is
// visible to a consistent read through the other at once, and both stream the same events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { createGatewayService, type GatewayService } from '../../services/gateway/service.js';
import { createBuiltinRegistry } from '../../shared/registry/builtin-registry.js';
import { silentLogger } from '../../shared/log.js';

describe('gateway replicas', () => {
  let c: TestCluster;
  let second: GatewayService;
  const auth = () => ({ authorization: `Bearer ${c.adminToken}` });

  before(async () => {
    c = await startTestCluster();
    second = await createGatewayService({ nc: await c.nats.connect('second-gateway'), registry: createBuiltinRegistry(), log: silentLogger() });
    await second.ready;
  });
  after(async () => {
    await second?.close();
    await c?.stop();
  });

  test('replicas - a create through one gateway is read at once through the other', async () => {
    for (let i = 0; i < 20; i++) {
      const name = `raw-${i}`;
      const created = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name }, data: { i: String(i) } } });
      assert.equal(created.status, 201);
      const got = await second.app.inject({ method: 'GET', url: `/api/v1/namespaces/default/configmaps/${name}`, headers: auth() });
      assert.equal(got.statusCode, 200, `read-after-write ${i}`);
      assert.equal(got.json().metadata.resourceVersion, created.json.metadata.resourceVersion);
    }
    const list = await second.app.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', headers: auth() });
    assert.ok(Number(list.json().metadata.resourceVersion) >= 20);
    assert.equal(list.json().items.filter((o: any) => o.metadata.name.startsWith('raw-')).length, 20);
  });

  test("replicas - an update through the second gateway with the first one's resourceVersion succeeds, a stale one is 409", async () => {
    const created = (await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'shared' }, data: { v: '1' } } })).json;
    const put = await second.app.inject({ method: 'PUT', url: '/api/v1/namespaces/default/configmaps/shared', headers: auth(), payload: { ...created, data: { v: '2' } } });
    assert.equal(put.statusCode, 200, put.body);
    const stale = await second.app.inject({ method: 'PUT', url: '/api/v1/namespaces/default/configmaps/shared', headers: auth(), payload: { ...created, data: { v: '3' } } });
    assert.equal(stale.statusCode, 409);
    assert.equal((await c.request('GET', '/api/v1/namespaces/default/configmaps/shared')).json.data.v, '2');
  });
});
