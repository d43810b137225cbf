// End to end: writes that race each other and writes that change nothing, as controllers rely on
// them upstream. Unconditional updates (no resourceVersion) are retried by the server until they
// win, so only a request carrying a precondition sees 409; and a write that changes nothing keeps
// the resourceVersion and produces no watch event.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, deployment, openWatch, summary, uniq, type WatchStream } from './helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };
const WRITERS = 12;

let c: TestCluster;

before(async () => {
  c = await startTestCluster();
});

after(async () => {
  await c?.stop();
});

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function assertAllOk(results: Array<{ status: number; text: string }>, what: string): void {
  const failed = results.map((r, i) => ({ i, status: r.status, text: r.text.slice(0, 200) })).filter((r) => r.status !== 200);
  assert.deepEqual(failed, [], `every ${what} answers 200`);
}

/**
 * Runs `noop` between a watch opened at the object's current resourceVersion and a real change
 * (`marker`): the first event the watch sees must be the marker's, so the no-op wrote nothing.
 */
async function assertNoEvent(path: string, name: string, rv: string, noop: () => Promise<void>, marker: () => Promise<string>): Promise<void> {
  const w: WatchStream = await openWatch(c, `${path}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3D${name}&timeoutSeconds=10`);
  try {
    assert.equal(w.status, 200);
    await noop();
    const markerRv = await marker();
    await w.waitFor((e) => e.object?.metadata?.resourceVersion === markerRv, 5_000, `the marker write at ${markerRv}`);
    assert.equal(w.events[0]?.object?.metadata?.resourceVersion, markerRv, `the no-op produced a watch event: ${summary(w.events)}`);
  } finally {
    w.close();
  }
}

describe('concurrent unconditional writes', () => {
  it('concurrent writes - merge patches of different keys all land', async () => {
    const name = uniq('race');
    assertOk(await c.request('POST', CM, { body: configMap(name, { base: 'x' }) }), 201);
    const results = await Promise.all(range(WRITERS).map((i) => c.request('PATCH', `${CM}/${name}`, { body: { data: { [`k${i}`]: `v${i}` } }, headers: MERGE })));
    assertAllOk(results, 'merge patch');
    const got = assertOk(await c.request('GET', `${CM}/${name}`));
    for (const i of range(WRITERS)) assert.equal(got.data[`k${i}`], `v${i}`, `key k${i} landed`);
    assert.equal(got.data.base, 'x');
  });

  it('concurrent writes - JSON patches adding different keys all land', async () => {
    const name = uniq('race');
    assertOk(await c.request('POST', CM, { body: configMap(name, { base: 'x' }) }), 201);
    const results = await Promise.all(range(WRITERS).map((i) => c.request('PATCH', `${CM}/${name}`, { body: [{ op: 'add', path: `/data/j${i}`, value: `v${i}` }], headers: JSON_PATCH })));
    assertAllOk(results, 'JSON patch');
    const got = assertOk(await c.request('GET', `${CM}/${name}`));
    for (const i of range(WRITERS)) assert.equal(got.data[`j${i}`], `v${i}`, `key j${i} landed`);
  });

  it('concurrent writes - PUTs without resourceVersion all succeed and the last one wins', async () => {
    const name = uniq('race');
    assertOk(await c.request('POST', CM, { body: configMap(name, { base: 'x' }) }), 201);
    const results = await Promise.all(range(WRITERS).map((i) => c.request('PUT', `${CM}/${name}`, { body: configMap(name, { writer: String(i) }) })));
    assertAllOk(results, 'unconditional PUT');
    const got = assertOk(await c.request('GET', `${CM}/${name}`));
    assert.match(got.data.writer, /^\d+$/);
    assert.deepEqual(Object.keys(got.data), ['writer'], 'a PUT replaces the whole object');
    // The newest resourceVersion among the answers is the stored one: every PUT was written in turn.
    const newest = results.map((r) => Number(r.json.metadata.resourceVersion)).sort((a, b) => b - a)[0];
    assert.equal(got.metadata.resourceVersion, String(newest));
  });

  it('concurrent writes - a PUT with a stale resourceVersion is still a 409 Conflict', async () => {
    const name = uniq('race');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { v: '1' }) }), 201);
    assertOk(await c.request('PATCH', `${CM}/${name}`, { body: { data: { v: '2' } }, headers: MERGE }));
    assertStatus(await c.request('PUT', `${CM}/${name}`, { body: { ...created, data: { v: 'stale' } } }), 409, 'Conflict');
    assertStatus(await c.request('PATCH', `${CM}/${name}`, { body: { metadata: { resourceVersion: created.metadata.resourceVersion }, data: { v: 'stale' } }, headers: MERGE }), 409, 'Conflict');
    const got = assertOk(await c.request('GET', `${CM}/${name}`));
    assert.equal(got.data.v, '2');
  });

  it('concurrent writes - a uid precondition that does not match is a 409 Conflict', async () => {
    const name = uniq('race');
    assertOk(await c.request('POST', CM, { body: configMap(name, { v: '1' }) }), 201);
    const wrongUid = '00000000-0000-0000-0000-000000000000';
    assertStatus(await c.request('PUT', `${CM}/${name}`, { body: configMap(name, { v: '2' }, undefined, { uid: wrongUid }) }), 409, 'Conflict');
    assertStatus(await c.request('PATCH', `${CM}/${name}`, { body: { metadata: { uid: wrongUid }, data: { v: '3' } }, headers: MERGE }), 409, 'Conflict');
    const got = assertOk(await c.request('GET', `${CM}/${name}`));
    assert.equal(got.data.v, '1');
  });
});

describe('writes that change nothing', () => {
  it('no-op writes - a merge patch that changes nothing keeps the resourceVersion and emits no event', async () => {
    const name = uniq('noop');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { a: 'same', b: '1' }, { app: 'x' }) }), 201);
    const rv = created.metadata.resourceVersion;
    await assertNoEvent(
      CM,
      name,
      rv,
      async () => {
        const r = assertOk(await c.request('PATCH', `${CM}/${name}`, { body: { data: { a: 'same' } }, headers: MERGE }));
        assert.equal(r.metadata.resourceVersion, rv, 'the answer keeps the resourceVersion');
        const j = assertOk(await c.request('PATCH', `${CM}/${name}`, { body: [{ op: 'replace', path: '/data/b', value: '1' }], headers: JSON_PATCH }));
        assert.equal(j.metadata.resourceVersion, rv, 'a JSON patch that changes nothing keeps it too');
        const got = assertOk(await c.request('GET', `${CM}/${name}`));
        assert.equal(got.metadata.resourceVersion, rv, 'a consistent read sees no new revision');
      },
      async () => assertOk(await c.request('PATCH', `${CM}/${name}`, { body: { data: { a: 'changed' } }, headers: MERGE })).metadata.resourceVersion,
    );
  });

  it('no-op writes - a PUT of the object as read keeps the resourceVersion and emits no event', async () => {
    const name = uniq('noop');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { a: 'same' }, { app: 'x' }) }), 201);
    const rv = created.metadata.resourceVersion;
    await assertNoEvent(
      CM,
      name,
      rv,
      async () => {
        const asRead = assertOk(await c.request('GET', `${CM}/${name}`));
        assert.equal(assertOk(await c.request('PUT', `${CM}/${name}`, { body: asRead })).metadata.resourceVersion, rv, 'PUT as read');
        // Without the server-set metadata and in another key order: still the same object.
        const minimal = { data: { a: 'same' }, metadata: { labels: { app: 'x' }, name }, kind: 'ConfigMap', apiVersion: 'v1' };
        assert.equal(assertOk(await c.request('PUT', `${CM}/${name}`, { body: minimal })).metadata.resourceVersion, rv, 'PUT without resourceVersion');
        assert.equal(assertOk(await c.request('GET', `${CM}/${name}`)).metadata.resourceVersion, rv);
      },
      async () => assertOk(await c.request('PATCH', `${CM}/${name}`, { body: { data: { a: 'changed' } }, headers: MERGE })).metadata.resourceVersion,
    );
  });

  it('no-op writes - a patch whose result the server defaults back keeps the resourceVersion', async () => {
    const ns = uniq('noop');
    const created = assertOk(await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
    assert.ok(Object.keys(created.metadata.labels ?? {}).length > 0, 'a namespace gets a label naming it');
    const rv = created.metadata.resourceVersion;
    await assertNoEvent(
      '/api/v1/namespaces',
      ns,
      rv,
      async () => {
        // Removing the server-set label: the server puts it back, so nothing changes.
        const r = assertOk(await c.request('PATCH', `/api/v1/namespaces/${ns}`, { body: { metadata: { labels: null } }, headers: MERGE }));
        assert.deepEqual(r.metadata.labels, created.metadata.labels);
        assert.equal(r.metadata.resourceVersion, rv);
      },
      async () => assertOk(await c.request('PATCH', `/api/v1/namespaces/${ns}`, { body: { metadata: { annotations: { marker: 'yes' } } }, headers: MERGE })).metadata.resourceVersion,
    );
  });

  it('no-op writes - a deployment PUT as read does not bump generation or the resourceVersion', async () => {
    const name = uniq('noop');
    const created = assertOk(await c.request('POST', DEPLOY, { body: deployment(name, 2) }), 201);
    const asRead = assertOk(await c.request('GET', `${DEPLOY}/${name}`));
    const rv = asRead.metadata.resourceVersion;
    await assertNoEvent(
      DEPLOY,
      name,
      rv,
      async () => {
        const r = assertOk(await c.request('PUT', `${DEPLOY}/${name}`, { body: asRead }));
        assert.equal(r.metadata.resourceVersion, rv);
        assert.equal(r.metadata.generation, created.metadata.generation);
        const p = assertOk(await c.request('PATCH', `${DEPLOY}/${name}`, { body: { spec: { replicas: 2 } }, headers: MERGE }));
        assert.equal(p.metadata.resourceVersion, rv, 'no-op merge patch');
        const containers = [{ image: 'registry.example/app:1', name: 'main' }];
        const s = assertOk(await c.request('PATCH', `${DEPLOY}/${name}`, { body: { spec: { template: { spec: { containers } } } }, headers: STRATEGIC }));
        assert.equal(s.metadata.resourceVersion, rv, 'no-op strategic merge patch');
        // The same object with its members in another order and without server-set metadata.
        const { uid: _u, creationTimestamp: _c, generation: _g, resourceVersion: _r, ...meta } = asRead.metadata;
        const reordered = { spec: Object.fromEntries(Object.entries(asRead.spec).reverse()), metadata: meta, kind: 'Deployment', apiVersion: 'apps/v1' };
        const o = assertOk(await c.request('PUT', `${DEPLOY}/${name}`, { body: reordered }));
        assert.equal(o.metadata.generation, created.metadata.generation, 'key order is no spec change');
        assert.equal(o.metadata.resourceVersion, rv, 'reordered PUT');
      },
      async () => assertOk(await c.request('PATCH', `${DEPLOY}/${name}`, { body: { metadata: { labels: { marker: 'yes' } } }, headers: MERGE })).metadata.resourceVersion,
    );
  });

  it('no-op writes - /status and /scale of a deployment that change nothing keep the resourceVersion', async () => {
    const name = uniq('noop');
    assertOk(await c.request('POST', DEPLOY, { body: deployment(name, 3) }), 201);
    const withStatus = assertOk(await c.request('PATCH', `${DEPLOY}/${name}/status`, { body: { status: { replicas: 3, readyReplicas: 1, observedGeneration: 1 } }, headers: MERGE }));
    const rv = withStatus.metadata.resourceVersion;
    await assertNoEvent(
      DEPLOY,
      name,
      rv,
      async () => {
        const st = assertOk(await c.request('PATCH', `${DEPLOY}/${name}/status`, { body: { status: { readyReplicas: 1 } }, headers: MERGE }));
        assert.equal(st.metadata.resourceVersion, rv, 'no-op status patch');
        const asRead = assertOk(await c.request('GET', `${DEPLOY}/${name}/status`));
        assert.equal(assertOk(await c.request('PUT', `${DEPLOY}/${name}/status`, { body: asRead })).metadata.resourceVersion, rv, 'no-op status PUT');
        const sc = assertOk(await c.request('PATCH', `${DEPLOY}/${name}/scale`, { body: { spec: { replicas: 3 } }, headers: MERGE }));
        assert.equal(sc.kind, 'Scale');
        assert.equal(sc.metadata.resourceVersion, rv, 'no-op scale patch');
        const scale = assertOk(await c.request('GET', `${DEPLOY}/${name}/scale`));
        assert.equal(assertOk(await c.request('PUT', `${DEPLOY}/${name}/scale`, { body: scale })).metadata.resourceVersion, rv, 'no-op scale PUT');
        const { resourceVersion: _rv, ...meta } = scale.metadata;
        assert.equal(assertOk(await c.request('PUT', `${DEPLOY}/${name}/scale`, { body: { ...scale, metadata: meta } })).metadata.resourceVersion, rv, 'no-op scale PUT without resourceVersion');
        assert.equal(assertOk(await c.request('GET', `${DEPLOY}/${name}`)).metadata.resourceVersion, rv);
      },
      async () => assertOk(await c.request('PATCH', `${DEPLOY}/${name}/scale`, { body: { spec: { replicas: 4 } }, headers: MERGE })).metadata.resourceVersion,
    );
  });
});
