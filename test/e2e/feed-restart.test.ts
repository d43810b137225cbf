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
    c = await startTestCluster();
    ns = uniq('feed');
    await createNamespace(c, ns);
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
