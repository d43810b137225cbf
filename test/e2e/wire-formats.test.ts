// Wire formats end to end over HTTPS: server-side Tables and PartialObjectMetadata (get, list,
// chunked list, watch) in either meta group spelling, and 406 for what an endpoint cannot convert.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, createNamespace, openWatch, uniq } from './helpers.js';

const table = (g: string, v = 'v1') => `application/json;as=Table;g=${g};v=${v}`;
const metadata = (list: boolean, g = 'meta.k8s.io') => `application/json;as=PartialObjectMetadata${list ? 'List' : ''};g=${g};v=v1`;

describe('wire formats - Table and PartialObjectMetadata', () => {
  let c: TestCluster;
  let ns: string;
  const path = () => `/api/v1/namespaces/${ns}/configmaps`;

  before(async () => {
    c = await startTestCluster();
    ns = uniq('wf');
    await createNamespace(c, ns);
    for (const n of ['a', 'b', 'c']) assertOk(await c.request('POST', path(), { body: configMap(n, { k: n }) }), 201);
  });
  after(async () => c?.stop());

  it('a list as a Table in the group asked for, one row per object, rows carry metadata', async () => {
    for (const g of ['meta.k8s.io', 'meta.platform.io']) {
      const r = await c.request('GET', path(), { headers: { accept: `${table(g)},application/json` } });
      const t = assertOk(r);
      assert.ok(r.headers.get('content-type')?.startsWith(table(g)), r.headers.get('content-type') ?? '');
      assert.equal(t.kind, 'Table');
      assert.equal(t.apiVersion, `${g}/v1`);
      assert.deepEqual(
        t.columnDefinitions.map((d: any) => d.name),
        ['Name', 'Data', 'Age'],
      );
      assert.deepEqual(
        t.rows.map((row: any) => [row.cells[0], row.cells[1], row.object.kind, row.object.metadata.name]),
        ['a', 'b', 'c'].map((n) => [n, 1, 'PartialObjectMetadata', n]),
      );
      assert.match(t.metadata.resourceVersion, /^\d+$/);
    }
  });

  it('a chunked list as Tables keeps continue; includeObject=Object and None', async () => {
    const first = assertOk(await c.request('GET', `${path()}?limit=2`, { headers: { accept: table('meta.k8s.io') } }));
    assert.equal(first.rows.length, 2);
    assert.equal(first.metadata.remainingItemCount, 1);
    const rest = assertOk(await c.request('GET', `${path()}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`, { headers: { accept: table('meta.k8s.io') } }));
    assert.deepEqual(
      rest.rows.map((r: any) => r.cells[0]),
      ['c'],
    );
    const whole = assertOk(await c.request('GET', `${path()}/a?includeObject=Object`, { headers: { accept: table('meta.k8s.io', 'v1beta1') } }));
    assert.equal(whole.apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual(whole.rows[0].object.data, { k: 'a' });
    const bare = assertOk(await c.request('GET', `${path()}/a?includeObject=None`, { headers: { accept: table('meta.k8s.io') } }));
    assert.equal(bare.rows[0].object, undefined);
    assertStatus(await c.request('GET', `${path()}/a?includeObject=Everything`, { headers: { accept: table('meta.k8s.io') } }), 400, 'BadRequest');
  });

  it('PartialObjectMetadata for one object and PartialObjectMetadataList for a list: no data, full metadata', async () => {
    const one = assertOk(await c.request('GET', `${path()}/b`, { headers: { accept: metadata(false) } }));
    assert.deepEqual([one.kind, one.apiVersion, one.metadata.name, one.data], ['PartialObjectMetadata', 'meta.k8s.io/v1', 'b', undefined]);
    assert.ok(one.metadata.uid && one.metadata.resourceVersion);
    const list = assertOk(await c.request('GET', path(), { headers: { accept: `${metadata(true, 'meta.platform.io')},application/json` } }));
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.equal(list.apiVersion, 'meta.platform.io/v1');
    assert.deepEqual(
      list.items.map((i: any) => [i.kind, i.metadata.name, i.data]),
      ['a', 'b', 'c'].map((n) => ['PartialObjectMetadata', n, undefined]),
    );
  });

  it('a watch as Tables and as PartialObjectMetadata', async () => {
    const list = assertOk(await c.request('GET', path()));
    const rv = list.metadata.resourceVersion;
    const tw = await openWatch(c, `${path()}?watch=true&resourceVersion=${rv}`, { accept: table('meta.k8s.io') });
    const mw = await openWatch(c, `${path()}?watch=true&resourceVersion=${rv}`, { accept: metadata(false) });
    try {
      assertOk(await c.request('POST', path(), { body: configMap('d', { k: 'd', l: 'm' }) }), 201);
      const te = await tw.waitFor((e) => e.type === 'ADDED');
      assert.equal(te.object.kind, 'Table');
      assert.deepEqual(te.object.rows[0].cells.slice(0, 2), ['d', 2]);
      const me = await mw.waitFor((e) => e.type === 'ADDED');
      assert.deepEqual([me.object.kind, me.object.metadata.name, me.object.data], ['PartialObjectMetadata', 'd', undefined]);
    } finally {
      tw.close();
      mw.close();
    }
  });

  it('406 for a conversion an endpoint cannot make, decided before any write', async () => {
    // Review kinds have no table.
    const review = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
    assertStatus(await c.request('POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', { body: review, headers: { accept: table('meta.k8s.io') } }), 406, 'NotAcceptable');
    // A create asked for something unservable is refused before the object is written.
    const name = uniq('never');
    assertStatus(await c.request('POST', path(), { body: configMap(name, {}), headers: { accept: metadata(true) } }), 406, 'NotAcceptable');
    assertStatus(await c.request('GET', `${path()}/${name}`), 404, 'NotFound');
    // A create may ask for its answer as a Table row.
    const created = assertOk(await c.request('POST', path(), { body: configMap(uniq('row'), { x: '1' }), headers: { accept: table('meta.k8s.io') } }), 201);
    assert.equal(created.kind, 'Table');
  });
});
