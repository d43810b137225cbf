// End to end: patches whose work grows much faster than their size (issue 9, B1). A 52 KB JSON
// patch of self-copies once took the gateway to its 4 GB heap; each hostile patch here must get
// a 4xx Status quickly, leave the object as it was, and leave the gateway answering.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, uniq } from './helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
/** A refused patch is answered in milliseconds; the rest is room for a busy test machine. */
const ANSWERED_WITHIN_MS = 3000;

describe('hostile patches', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  /** Sends `body` as a patch of a fresh ConfigMap; checks the answer, the gateway and the object. */
  async function refused(contentType: string, body: string, code: number, message: RegExp): Promise<void> {
    const name = uniq('target');
    const original = assertOk(await c.request('POST', CM, { body: configMap(name, { keep: 'me' }) }), 201);
    const t0 = Date.now();
    const r = await c.request('PATCH', `${CM}/${name}`, { rawBody: body, headers: { 'content-type': contentType } });
    const elapsed = Date.now() - t0;
    const st = assertStatus(r, code);
    assert.match(st.message, message);
    assert.ok(elapsed < ANSWERED_WITHIN_MS, `answered after ${elapsed} ms`);

    const t1 = Date.now();
    const live = await c.request('GET', '/livez');
    assert.equal(live.status, 200, live.text);
    assert.ok(Date.now() - t1 < 1000, `/livez took ${Date.now() - t1} ms`);

    const now = assertOk(await c.request('GET', `${CM}/${name}`));
    assert.deepEqual(now.data, { keep: 'me' });
    assert.equal(now.metadata.resourceVersion, original.metadata.resourceVersion, 'the object was not written');
  }

  it('json patch - 40 self-copies of a 50 KB value (52 KB body) are refused', async () => {
    const ops: unknown[] = [{ op: 'add', path: '/x', value: { a: 'x'.repeat(50 * 1024) } }];
    for (let i = 0; i < 40; i++) ops.push({ op: 'copy', from: '/x', path: `/x/c${i}` });
    const body = JSON.stringify(ops);
    assert.ok(body.length < 53 * 1024, `body is ${body.length} bytes`);
    await refused('application/json-patch+json', body, 422, /Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728/);
  });

  it('json patch - self-appends of an array are refused', async () => {
    const ops: unknown[] = [{ op: 'add', path: '/x', value: new Array(25_000).fill(0) }];
    for (let i = 0; i < 25; i++) ops.push({ op: 'copy', from: '/x', path: '/x/-' });
    await refused('application/json-patch+json', JSON.stringify(ops), 422, /accumulated size increase of copy/);
  });

  it('merge patch - a result larger than storage accepts is 413 before it is stored', async () => {
    const body = JSON.stringify({ data: { a: 'a'.repeat(1_000_000), b: 'b'.repeat(1_000_000) } });
    await refused('application/merge-patch+json', body, 413, /the patched object would be larger than the limit of 1572864 bytes/);
  });

  it('strategic merge patch - a list repeating one merge key is refused', async () => {
    // Each repeat re-merges the 20,000-member item before it.
    const first: Record<string, string> = { uid: 'u1', apiVersion: 'v1', kind: 'ConfigMap', name: 'owner' };
    for (let i = 0; i < 20_000; i++) first[`k${i}`] = 'v';
    const refs = [first, ...Array.from({ length: 20_000 }, () => ({ uid: 'u1' }))];
    await refused('application/strategic-merge-patch+json', JSON.stringify({ metadata: { ownerReferences: refs } }), 413, /strategic merge patch would take more than \d+ steps/);
  });

  it('json patch - an honest copy still applies', async () => {
    const name = uniq('honest');
    assertOk(await c.request('POST', CM, { body: configMap(name, { a: 'v'.repeat(100_000) }) }), 201);
    const r = await c.request('PATCH', `${CM}/${name}`, {
      rawBody: JSON.stringify([{ op: 'copy', from: '/data/a', path: '/data/b' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(assertOk(r).data.b.length, 100_000);
  });
});
