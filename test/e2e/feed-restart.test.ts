// The bucket watch under the gateway's cache (and under every service's object feed) breaks: its
// consumer is deleted, or NATS restarts. The gateway must be ready again within seconds, and its
// watchers go on without a gap (the changes missed meanwhile come from the bucket's change log)
// or, when those cannot be accounted for, are told 410 Expired — never silently miss a change.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, configMap, createNamespace, eventually, openWatch, uniq } from './helpers.js';

const STREAM = 'KV_objects';

async function deleteBucketConsumers(c: TestCluster): Promise<number> {
  const jsm = await jetstreamManager(c.nc);
  let n = 0;
  for await (const ci of jsm.consumers.list(STREAM)) {
    await jsm.consumers.delete(STREAM, ci.name).catch(() => false);
    n++;
  }
  return n;
}

describe('bucket feed restart', { timeout: 90_000 }, () => {
  let c: TestCluster;
  let ns: string;
  before(async () => {
    // RBAC: anonymous probes are allowed (system:public-info-viewer); under AlwaysAllow anonymous is off.
    c = await startTestCluster({ authorizationModes: ['RBAC'] });
    ns = uniq('feed');
    await createNamespace(c, ns);
    // The authz service writes its default policy in the background after start-up.
    await eventually('the default policy lets anonymous probes in', async () => assert.equal((await c.request('GET', '/livez', { token: null })).status, 200), { timeoutMs: 15_000, intervalMs: 100 });
  });
  after(() => c?.stop());

  const cmPath = () => `/api/v1/namespaces/${ns}/configmaps`;
  const put = async (name: string, v: string) => {
    const cur = await c.request('GET', `${cmPath()}/${name}`);
    if (cur.status === 404) return assertOk(await c.request('POST', cmPath(), { body: configMap(name, { v }) }), 201);
    return assertOk(await c.request('PUT', `${cmPath()}/${name}`, { body: { ...cur.json, data: { v } } }));
  };

  it('feed - a deleted consumer with a change made meanwhile: ready again, the watcher gets the change from the change log, reads see it', async () => {
    const created = await put('a', '1');
    const w = await openWatch(c, `${cmPath()}?watch=1&resourceVersion=${created.metadata.resourceVersion}`);
    assert.ok((await deleteBucketConsumers(c)) > 0, 'there were consumers to delete');
    // Written straight away, while the feeds may still be down: through storage, not the cache.
    const changed = await put('a', '2');
    await eventually('the gateway is ready again', async () => assert.equal((await c.request('GET', '/readyz')).status, 200), { timeoutMs: 10_000, intervalMs: 100 });
    await eventually('the change is visible', async () => assert.equal((await c.request('GET', `${cmPath()}/a`)).json.data.v, '2'), { timeoutMs: 10_000, intervalMs: 100 });
    // The change missed while the feed was down is filled in from the change log: the watcher
    // sees it in order instead of being told to start over.
    const ev = await w.waitFor((e) => (e.type === 'MODIFIED' && e.object.data?.v === '2') || e.type === 'ERROR', 10_000, 'MODIFIED v=2');
    assert.equal(ev.type, 'MODIFIED', JSON.stringify(ev.object));
    assert.equal(ev.object.metadata.resourceVersion, changed.metadata.resourceVersion);
    w.close();
  });

  it('feed - after the restart new watches and writes work as before', async () => {
    const start = assertOk(await c.request('GET', cmPath())).metadata.resourceVersion;
    const w = await openWatch(c, `${cmPath()}?watch=1&resourceVersion=${start}`);
    await put('b', '1');
    await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'b', 10_000, 'ADDED b');
    w.close();
  });

  it('feed - NATS gone past the grace period: open watches end with ERROR 503, new ones are refused, /readyz fails; all back after', async (t) => {
    if (!c.nats.restart) return t.skip('the test NATS is not a local server');
    const start = assertOk(await c.request('GET', cmPath())).metadata.resourceVersion;
    const w = await openWatch(c, `${cmPath()}?watch=1&resourceVersion=${start}`);
    // A probe as load balancers and kubelets send them (anonymous), before the outage.
    for (const probe of ['/readyz', '/livez']) assert.equal((await c.request('GET', probe, { token: null })).status, 200);
    await c.nats.restart(async () => {
      // Not silent: the open watch is told, within the grace period (3 s) of the loss.
      const e = await w.waitFor((e) => e.type === 'ERROR', 10_000, 'an ERROR event');
      assert.equal(e.object.code, 503);
      assert.equal(e.object.reason, 'ServiceUnavailable');
      await w.ended;
      // A new one is refused: by the cache, or already by its authorization, which needs NATS too.
      const again = await openWatch(c, `${cmPath()}?watch=1&resourceVersion=${start}`);
      const refused = await again.waitFor((e) => e.type === 'ERROR' || e.type === 'HTTP', 10_000, 'a refused watch');
      assert.ok([503, 504].includes(refused.object.code), JSON.stringify(refused));
      // Probes are answered without the services (their last answer): /readyz says why it fails,
      // /livez stays ok, so an outage of NATS does not get the gateway restarted.
      const ready = await c.request('GET', '/readyz?verbose', { token: null });
      assert.equal(ready.status, 500, ready.text);
      assert.match(ready.text, /\[-\]nats failed/);
      assert.equal((await c.request('GET', '/livez', { token: null })).status, 200);
      // Anything else still needs the services: refused at once, not after a timeout.
      assert.equal((await c.request('GET', '/version', { token: null })).status, 503);
    });
    await eventually('the gateway is ready again', async () => assert.equal((await c.request('GET', '/readyz')).status, 200), { timeoutMs: 20_000, intervalMs: 200 });
    const after = await openWatch(c, `${cmPath()}?watch=1&resourceVersion=${start}`);
    await put('d', '1');
    await after.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'd', 10_000, 'ADDED d');
    after.close();
  });

  it('feed - NATS restarted: the gateway is ready again and serves new changes', async (t) => {
    if (!c.nats.restart) return t.skip('the test NATS is not a local server');
    await c.nats.restart();
    await eventually('the gateway is ready again', async () => assert.equal((await c.request('GET', '/readyz')).status, 200), { timeoutMs: 20_000, intervalMs: 200 });
    await eventually('writes go through', async () => void (await put('c', '1')), { timeoutMs: 20_000, intervalMs: 200 });
    const start = assertOk(await c.request('GET', cmPath())).metadata.resourceVersion;
    const w = await openWatch(c, `${cmPath()}?watch=1&resourceVersion=${start}`);
    await put('c', '2');
    await w.waitFor((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'c', 10_000, 'MODIFIED c');
    w.close();
  });
});
