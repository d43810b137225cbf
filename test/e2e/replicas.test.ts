// Two gateways on one bus, as when the gateway is scaled horizontally: a write through one is
// visible to a consistent read through the other at once, and both stream the same events.
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { createGatewayService, type GatewayService } from '../../services/gateway/service.js';
import { createBuiltinRegistry } from '../../shared/registry/builtin-registry.js';
import { silentLogger } from '../../shared/log.js';
import { connectBus } from '../../shared/bus/connect.js';

/** A TCP relay to `target` that hands what the server sends to the client `delayMs` late (in order). */
async function laggingRelay(target: URL, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) sockets.add(s);
    client.on('data', (d) => void upstream.write(d));
    upstream.on('data', (d) => void setTimeout(() => client.destroyed || client.write(d), delayMs));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) s.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `nats://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

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

  test('replicas - consistent reads that share revision fetches with a stream of other readers still see every write completed before them', async () => {
    // A third gateway whose NATS traffic reaches it 30 ms late: its cache lags every write by that
    // much, and a revision fetch answered before a write was stored comes back after the write was
    // acknowledged. Other readers keep such a fetch out all the time, so a read that starts once a
    // write is acknowledged always finds one in flight and must wait for the next.
    const lag = await laggingRelay(new URL(c.nats.url), 30);
    const nc = await connectBus({ url: lag.url, name: 'lagging-gateway' });
    const lagging = await createGatewayService({ nc, registry: createBuiltinRegistry(), log: silentLogger() });
    let reading = true;
    const background: Promise<void>[] = [];
    try {
      await lagging.ready;
      background.push(
        ...Array.from({ length: 8 }, async () => {
          while (reading) await lagging.app.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/none', headers: auth() });
        }),
      );
      // One object, updated through the first gateway and read back through the lagging one (the
      // same read each time, so its authorization is cached and adds no round trip of its own).
      const path = '/api/v1/namespaces/default/configmaps/shared-fetch';
      let written = (await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'shared-fetch' }, data: { i: '0' } } })).json;
      for (let i = 1; i <= 15; i++) {
        const put = await c.request('PUT', path, { body: { ...written, data: { i: String(i) } } });
        assert.equal(put.status, 200);
        written = put.json;
        const reads = await Promise.all(Array.from({ length: 3 }, () => lagging.app.inject({ method: 'GET', url: path, headers: auth() })));
        assert.deepEqual(
          reads.map((r) => r.json().data?.i),
          [String(i), String(i), String(i)],
          `read-after-write ${i}`,
        );
      }
    } finally {
      reading = false;
      await Promise.all(background);
      await lagging.close();
      await nc.close();
      await lag.close();
    }
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
