// Wire formats end to end over HTTPS: protobuf requests and answers (objects, lists, chunked
// lists, Status errors, length-prefixed watch frames) under both media type names; server-side
// Tables and PartialObjectMetadata (get, list, chunked list, watch) in either meta group
// spelling; 406 for what an endpoint cannot convert.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { decodeObject, encodeObject } from '../../shared/proto/envelope.js';
import { decode } from '../../shared/proto/wire.js';
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

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const PLATFORM_PROTOBUF = 'application/vnd.platform.protobuf';

/** Reads `n` length-prefixed protobuf watch frames, then closes the stream. */
function protobufWatch(c: TestCluster, path: string, n: number, onOpen: () => Promise<void>): Promise<{ contentType: string; events: Array<{ type: string; object: any }> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(c.url + path, { headers: { accept: `${PROTOBUF}, application/json`, authorization: `Bearer ${c.adminToken}` }, ca: c.caPem, agent: false }, (res) => {
      let buf = Buffer.alloc(0);
      const events: Array<{ type: string; object: any }> = [];
      res.on('data', (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
          const frame = buf.subarray(4, 4 + buf.readUInt32BE(0));
          buf = buf.subarray(4 + frame.length);
          const ev = decode('meta.v1.WatchEvent', frame) as { type: string; object: string };
          events.push({ type: ev.type, object: decodeObject(Buffer.from(ev.object, 'base64')) });
        }
        if (events.length >= n) {
          req.destroy();
          resolve({ contentType: String(res.headers['content-type']), events });
        }
      });
      res.on('error', () => undefined);
      onOpen().catch(reject);
    });
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
}

describe('wire formats - protobuf', () => {
  let c: TestCluster;
  let ns: string;
  const path = () => `/api/v1/namespaces/${ns}/configmaps`;
  const pb = (o: Record<string, unknown>) => encodeObject(o)!;

  before(async () => {
    c = await startTestCluster();
    ns = uniq('pb');
    await createNamespace(c, ns);
  });
  after(async () => c?.stop());

  it('create and update with protobuf bodies, answered in the media type the client named', async () => {
    for (const mediaType of [PROTOBUF, PLATFORM_PROTOBUF]) {
      const name = uniq('p');
      const r = await c.request('POST', path(), {
        rawBody: pb({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { a: 'b' } }, data: { k: 'v' } }),
        headers: { 'content-type': mediaType, accept: mediaType },
      });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers.get('content-type'), mediaType);
      const created = decodeObject(r.bytes) as any;
      assert.deepEqual([created.kind, created.metadata.name, created.data, created.metadata.labels], ['ConfigMap', name, { k: 'v' }, { a: 'b' }]);
      assert.match(created.metadata.uid, /^[0-9a-f-]{36}$/);
      created.data = { k: 'w' };
      const put = await c.request('PUT', `${path()}/${name}`, { rawBody: pb(created), headers: { 'content-type': mediaType, accept: 'application/json' } });
      assert.deepEqual(assertOk(put).data, { k: 'w' });
    }
  });

  it('get, list and chunked list in protobuf', async () => {
    for (const n of ['l1', 'l2', 'l3']) assertOk(await c.request('POST', path(), { body: configMap(n, { n }) }), 201);
    const one = decodeObject((await c.request('GET', `${path()}/l2`, { headers: { accept: PROTOBUF } })).bytes) as any;
    assert.deepEqual([one.apiVersion, one.kind, one.data], ['v1', 'ConfigMap', { n: 'l2' }]);
    const page = await c.request('GET', `${path()}?limit=2&labelSelector=`, { headers: { accept: `${PROTOBUF},application/json` } });
    const list = decodeObject(page.bytes) as any;
    assert.equal(list.kind, 'ConfigMapList');
    assert.equal(list.items.length, 2);
    assert.ok(list.metadata.continue);
    const rest = decodeObject((await c.request('GET', `${path()}?limit=2&continue=${encodeURIComponent(list.metadata.continue)}`, { headers: { accept: PROTOBUF } })).bytes) as any;
    assert.ok(rest.items.length >= 1);
  });

  it('errors are protobuf Status; a delete takes protobuf DeleteOptions', async () => {
    const missing = await c.request('GET', `${path()}/nope`, { headers: { accept: PROTOBUF } });
    assert.equal(missing.status, 404);
    const st = decodeObject(missing.bytes) as any;
    assert.deepEqual([st.kind, st.code, st.reason], ['Status', 404, 'NotFound']);
    assertOk(await c.request('POST', path(), { body: configMap('gone', {}) }), 201);
    const del = await c.request('DELETE', `${path()}/gone`, { rawBody: pb({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } }), headers: { 'content-type': PROTOBUF } });
    assertStatus(del, 409, 'Conflict');
    assertOk(await c.request('DELETE', `${path()}/gone`, { rawBody: pb({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 }), headers: { 'content-type': PROTOBUF } }));
  });

  it('hostile bodies: a wrong prefix or truncated message is 400, a protobuf patch is 415, nothing is stored', async () => {
    const good = pb({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hostile' }, data: { k: 'v' } });
    const bad = async (body: Buffer, code: number, reason: string) => assertStatus(await c.request('POST', path(), { rawBody: body, headers: { 'content-type': PROTOBUF } }), code, reason);
    await bad(Buffer.concat([Buffer.from('k8s\x01'), good.subarray(4)]), 400, 'BadRequest');
    await bad(good.subarray(0, good.length - 3), 400, 'BadRequest');
    await bad(pb({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'hostile' } }), 400, 'BadRequest');
    assertStatus(await c.request('GET', `${path()}/hostile`), 404, 'NotFound');
    assertStatus(await c.request('PATCH', `${path()}/l1`, { rawBody: good, headers: { 'content-type': PROTOBUF } }), 415, 'UnsupportedMediaType');
  });

  it('watch: length-prefixed WatchEvent frames carrying enveloped objects', async () => {
    const rv = assertOk(await c.request('GET', path())).metadata.resourceVersion;
    const { contentType, events } = await protobufWatch(c, `${path()}?watch=true&resourceVersion=${rv}`, 2, async () => {
      assertOk(await c.request('POST', path(), { body: configMap('w1', { a: '1' }) }), 201);
      assertOk(await c.request('DELETE', `${path()}/w1`));
    });
    assert.equal(contentType, PROTOBUF);
    assert.deepEqual(
      events.map((e) => [e.type, e.object.kind, e.object.metadata.name, e.object.data]),
      [
        ['ADDED', 'ConfigMap', 'w1', { a: '1' }],
        ['DELETED', 'ConfigMap', 'w1', { a: '1' }],
      ],
    );
  });
});
