// End to end: hostile and odd input. Oversized, deeply nested and alias-bomb bodies, wrong media
// types, unusual but valid names, invalid names, write races, and who a request runs as when the
// credentials are missing, invalid, or the authorizer denies everything.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, configMap, names, uniq } from './helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const CLUSTERROLES = '/apis/rbac.authorization.platform.io/v1/clusterroles';

describe('hostile input', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('limits - a body over 3 MiB is 413 and the server keeps serving', async () => {
    const name = uniq('huge');
    const body = JSON.stringify(configMap(name, { big: 'x'.repeat(3 * 1024 * 1024 + 1024) }));
    let r: Awaited<ReturnType<TestCluster['request']>> | undefined;
    try {
      r = await c.request('POST', CM, { rawBody: body, headers: { 'content-type': 'application/json' } });
    } catch (err) {
      assert.fail(`the server dropped the connection instead of answering 413: ${(err as Error).message}`);
    }
    const st = assertStatus(r, 413, 'RequestEntityTooLarge');
    assert.ok(st.message.length > 0);
    assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
    const next = uniq('after-huge');
    assertOk(await c.request('POST', CM, { body: configMap(next) }), 201);
    assertOk(await c.request('GET', `${CM}/${next}`));
  });

  it('limits - a body just under the limit with a large value is accepted', async () => {
    const name = uniq('large');
    const created = assertOk(await c.request('POST', CM, { body: configMap(name, { big: 'y'.repeat(900 * 1024) }) }), 201);
    assert.equal(created.data.big.length, 900 * 1024);
    assert.equal(assertOk(await c.request('GET', `${CM}/${name}`)).data.big.length, 900 * 1024);
  });

  it('limits - JSON nested 10,000 deep is a 4xx quickly', async () => {
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${uniq('deep')}"},"data":{"a":"b"},"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const t0 = Date.now();
    const r = await c.request('POST', CM, { rawBody: deep, headers: { 'content-type': 'application/json' } });
    const elapsed = Date.now() - t0;
    assert.ok(r.status >= 400 && r.status < 500, `status ${r.status}: ${r.text.slice(0, 300)}`);
    assert.equal(r.json?.kind, 'Status');
    assert.ok(elapsed < 2000, `answered after ${elapsed} ms`);
    const deepObj = `{"metadata":{"name":"${uniq('deep')}"},"data":{"a":"b"},"x":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    const r2 = await c.request('POST', CM, { rawBody: deepObj, headers: { 'content-type': 'application/json' } });
    assert.ok(r2.status >= 400 && r2.status < 500, `status ${r2.status}: ${r2.text.slice(0, 300)}`);
    assertOk(await c.request('GET', CM));
  });

  it('limits - a YAML alias bomb is 400 quickly', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      levels.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const bomb = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${uniq('bomb')}\nx:\n${levels.map((l) => `  ${l}`).join('\n')}\n`;
    const t0 = Date.now();
    const r = await c.request('POST', CM, { rawBody: bomb, headers: { 'content-type': 'application/yaml' } });
    const elapsed = Date.now() - t0;
    assertStatus(r, 400, 'BadRequest');
    assert.ok(elapsed < 2000, `answered after ${elapsed} ms`);
    assertOk(await c.request('GET', CM));
  });

  it('limits - YAML nested 10,000 deep is a 4xx quickly', async () => {
    const deep = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${uniq('deepyaml')}\nx: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`;
    const t0 = Date.now();
    const r = await c.request('POST', CM, { rawBody: deep, headers: { 'content-type': 'application/yaml' } });
    const elapsed = Date.now() - t0;
    assert.ok(r.status >= 400 && r.status < 500, `status ${r.status}: ${r.text.slice(0, 300)}`);
    assert.equal(r.json?.kind, 'Status');
    assert.ok(elapsed < 2000, `answered after ${elapsed} ms`);
    assertOk(await c.request('GET', CM));
  });

  it('limits - YAML merge-key chains and compact sequences are 400 in milliseconds while /healthz keeps answering', async () => {
    // `bK: &bK {<<: [*b(K-1), *b(K-1)], kK: v}` doubles what each line expands: 39 lines once
    // kept the gateway busy for minutes. `x: - - - … y` on one line overflowed the parser's stack.
    const chain = (levels: number) => {
      let s = 'b0: &b0 {k0: v}\n';
      for (let k = 1; k <= levels; k++) s += `b${k}: &b${k} {<<: [*b${k - 1}, *b${k - 1}], k${k}: v}\n`;
      return s;
    };
    const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
    const bodies = [chain(16), chain(24), chain(39), `x: ${'- '.repeat(30_000)}y\n`, `x: ${'- '.repeat(100_000)}y\n`];
    for (const body of bodies) {
      let done = false;
      const t0 = performance.now();
      const sent = c.request('POST', SSR, { rawBody: body, headers: { 'content-type': 'application/yaml' } }).finally(() => (done = true));
      let slowest = 0;
      while (!done) {
        const t = performance.now();
        assert.equal((await c.request('GET', '/healthz')).status, 200);
        slowest = Math.max(slowest, performance.now() - t);
      }
      const r = await sent;
      const elapsed = performance.now() - t0;
      const st = assertStatus(r, 400, 'BadRequest');
      assert.match(st.message, /aliases or merge keys|nesting depth/);
      assert.ok(elapsed < 1000, `${body.length} bytes answered after ${elapsed.toFixed(0)} ms`);
      assert.ok(slowest < 1000, `/healthz took ${slowest.toFixed(0)} ms meanwhile`);
    }
    // Anchors and merge keys as manifests use them still work.
    const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${uniq('merged')}\n  labels: &l {app: web, tier: front}\n  annotations:\n    <<: *l\n    tier: back\ndata: {a: x}\n`;
    const created = assertOk(await c.request('POST', CM, { rawBody: cm, headers: { 'content-type': 'application/yaml' } }), 201);
    assert.deepEqual(created.metadata.annotations, { app: 'web', tier: 'back' });
  });

  it('decoding - malformed JSON is 400', async () => {
    const r = await c.request('POST', CM, { rawBody: '{"metadata": {"name": "x"', headers: { 'content-type': 'application/json' } });
    assertStatus(r, 400, 'BadRequest');
    assertStatus(await c.request('POST', CM, { rawBody: '[1,2,3]', headers: { 'content-type': 'application/json' } }), 400, 'BadRequest');
    assertStatus(await c.request('POST', CM, { rawBody: '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}', headers: { 'content-type': 'application/json' } }), 400, 'BadRequest');
  });

  it('media types - Content-Type text/plain is 415', async () => {
    const r = await c.request('POST', CM, { rawBody: JSON.stringify(configMap(uniq('txt'))), headers: { 'content-type': 'text/plain' } });
    assertStatus(r, 415, 'UnsupportedMediaType');
  });

  it('media types - Accept application/xml only is 406', async () => {
    const r = await c.request('GET', CM, { headers: { accept: 'application/xml' } });
    const st = assertStatus(r, 406, 'NotAcceptable');
    assert.match(st.message, /application\/json/);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    // A list with a supported fallback is served.
    assertOk(await c.request('GET', CM, { headers: { accept: 'application/xml, application/json;q=0.5' } }));
    assertOk(await c.request('GET', CM, { headers: { accept: '*/*' } }));
  });

  it('names - odd but valid names round-trip', async () => {
    const valid = ['my.config', 'a-b.c-d.e-f', `x${uniq('')}.y`, '0leading-digit', 'a'.repeat(253), `${'b'.repeat(63)}.${'c'.repeat(63)}`];
    for (const name of valid) {
      const created = assertOk(await c.request('POST', CM, { body: configMap(name, { n: name.slice(0, 20) }) }), 201);
      assert.equal(created.metadata.name, name);
      const got = assertOk(await c.request('GET', `${CM}/${name}`));
      assert.equal(got.metadata.name, name);
      assert.equal(got.metadata.uid, created.metadata.uid);
      const listed = assertOk(await c.request('GET', `${CM}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`));
      assert.deepEqual(names(listed), [name]);
      assertOk(await c.request('PUT', `${CM}/${name}`, { body: { ...got, data: { n: 'updated' } } }));
      assert.equal((await c.request('DELETE', `${CM}/${name}`)).status, 200);
      assertStatus(await c.request('GET', `${CM}/${name}`), 404, 'NotFound');
    }
    // A dotted name does not collide with a name spelled the same without the dot.
    assertOk(await c.request('POST', CM, { body: configMap('dot.ted', { v: 'dot' }) }), 201);
    assertOk(await c.request('POST', CM, { body: configMap('dotted', { v: 'plain' }) }), 201);
    assert.equal(assertOk(await c.request('GET', `${CM}/dot.ted`)).data.v, 'dot');
    assert.equal(assertOk(await c.request('GET', `${CM}/dotted`)).data.v, 'plain');
    // Path-segment names (RBAC) may carry colons.
    const role = `system:odd:${uniq('role')}`;
    assertOk(await c.request('POST', CLUSTERROLES, { body: { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules: [] } }), 201);
    assert.equal(assertOk(await c.request('GET', `${CLUSTERROLES}/${encodeURIComponent(role)}`)).metadata.name, role);
  });

  it('names - invalid names are 422 Invalid', async () => {
    for (const name of ['UpperCase', 'a'.repeat(254), 'a..b', '-leading', 'trailing-', 'under_score', '.dot']) {
      const r = assertStatus(await c.request('POST', CM, { body: configMap(name) }), 422, 'Invalid');
      assert.ok(
        r.details.causes.some((x: any) => x.field === 'metadata.name'),
        `${name}: ${JSON.stringify(r.details)}`,
      );
    }
  });

  it('writes - a stale resourceVersion is 409', async () => {
    const name = uniq('stale');
    const v1 = assertOk(await c.request('POST', CM, { body: configMap(name, { v: '1' }) }), 201);
    assertOk(await c.request('PUT', `${CM}/${name}`, { body: { ...v1, data: { v: '2' } } }));
    assertStatus(await c.request('PUT', `${CM}/${name}`, { body: { ...v1, data: { v: '3' } } }), 409, 'Conflict');
    assertStatus(
      await c.request('PATCH', `${CM}/${name}`, {
        body: { metadata: { resourceVersion: v1.metadata.resourceVersion }, data: { v: '4' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
      409,
      'Conflict',
    );
    // (Node's client sends no Content-Length for a DELETE body on its own, so it is given here.)
    const opts = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: v1.metadata.resourceVersion } });
    const del = await c.request('DELETE', `${CM}/${name}`, { rawBody: opts, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(opts)) } });
    assertStatus(del, 409, 'Conflict');
    assert.equal(assertOk(await c.request('GET', `${CM}/${name}`)).data.v, '2');
  });

  it('writes - 20 concurrent updates with the same resourceVersion: exactly one wins', async () => {
    const name = uniq('race');
    const base = assertOk(await c.request('POST', CM, { body: configMap(name, { v: 'base' }) }), 201);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => c.request('PUT', `${CM}/${name}`, { body: { ...base, data: { v: `writer-${i}` } } }).then((r) => ({ i, r }))));
    const winners = results.filter((x) => x.r.status === 200);
    const losers = results.filter((x) => x.r.status === 409);
    assert.equal(winners.length, 1, `status codes: ${results.map((x) => x.r.status).join(',')}`);
    assert.equal(losers.length, 19);
    for (const l of losers) assert.equal(l.r.json.reason, 'Conflict');
    const final = assertOk(await c.request('GET', `${CM}/${name}`));
    assert.equal(final.data.v, `writer-${winners[0]!.i}`);
    assert.equal(final.metadata.resourceVersion, winners[0]!.r.json.metadata.resourceVersion);
  });

  it('authentication - no bearer token is anonymous, which AlwaysAllow turns away (401, as upstream); an invalid token is 401', async () => {
    assert.equal(assertStatus(await c.request('GET', CM, { token: null }), 401, 'Unauthorized').message, 'Unauthorized');
    const bad = assertStatus(await c.request('GET', CM, { token: 'not-a-valid-token' }), 401, 'Unauthorized');
    assert.equal(bad.message, 'Unauthorized');
    assertStatus(await c.request('GET', '/api/v1/namespaces', { token: 'not-a-valid-token' }), 401, 'Unauthorized');
    assertStatus(await c.request('POST', CM, { token: 'not-a-valid-token', body: configMap(uniq('anon')) }), 401, 'Unauthorized');
  });

  it('impersonation - hostile header combinations are 400 and never run as anyone', async () => {
    const cases: Array<Record<string, string>> = [
      { 'Impersonate-Group': 'system:masters' },
      { 'Impersonate-Uid': 'x' },
      { 'Impersonate-Extra-Scopes': 'all' },
      { 'Impersonate-User': '' },
      { 'Impersonate-Whatever': 'x', 'Impersonate-User': 'jane' },
    ];
    for (const headers of cases) {
      const r = await c.request('GET', '/api/v1/namespaces/default/configmaps', { headers });
      assert.equal(r.status, 400, JSON.stringify(headers));
      assert.equal(r.json.kind, 'Status');
    }
    const r = await c.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'Impersonate-Extra-%zz': 'x', 'Impersonate-User': 'jane' } });
    assert.equal(r.status, 400);
    assert.equal((await c.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  });

  it('large YAML - a 2.9 MiB YAML body is parsed off the event loop: other requests are not held up', async () => {
    const rows = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: big-yaml', 'data:'];
    for (let i = 0, size = 0; size < 2.9 * 1024 * 1024; i++) {
      const row = `  key${i}: "value ${i} padded to look like a real configuration entry"`;
      rows.push(row);
      size += row.length + 1;
    }
    const started = performance.now();
    let done = false;
    const create = c.request('POST', '/api/v1/namespaces/default/configmaps', { rawBody: rows.join('\n'), headers: { 'content-type': 'application/yaml' } }).then((r) => {
      done = true;
      return { r, ms: performance.now() - started };
    });
    // Probe all along the create: whichever probe meets the parse would wait for it if it ran inline.
    // /livez is answered by the gateway alone, so a probe measures its event loop, not a NATS round
    // trip that another suite on this machine may slow down.
    let slowest = 0;
    while (!done) {
      const t = performance.now();
      assert.equal((await c.request('GET', '/livez')).status, 200);
      slowest = Math.max(slowest, performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
    const { r, ms } = await create;
    // Parsed in full, then refused by the type's own rule: ConfigMap data is limited to 1 MiB.
    assert.equal(r.status, 422, r.text.slice(0, 300));
    assert.match(r.json.message, /must have at most 1048576 bytes/);
    assert.ok(slowest < ms / 3, `the slowest small GET took ${slowest.toFixed(0)} ms while the YAML create took ${ms.toFixed(0)} ms`);
  });

  it('large YAML - errors found by the off-loop decoder are Status errors (alias bomb 400, malformed 400)', async () => {
    const pad = `# ${'x'.repeat(70 * 1024)}\n`;
    const bomb =
      pad +
      [
        'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
        ...Array.from(
          { length: 8 },
          (_, i) =>
            `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
              .fill(`*${String.fromCharCode(97 + i)}`)
              .join(',')}]`,
        ),
      ].join('\n');
    const r1 = await c.request('POST', '/api/v1/namespaces/default/configmaps', { rawBody: bomb, headers: { 'content-type': 'application/yaml' } });
    assert.equal(r1.status, 400);
    assert.equal(r1.json.kind, 'Status');
    const r2 = await c.request('POST', '/api/v1/namespaces/default/configmaps', { rawBody: pad + 'metadata: [unclosed', headers: { 'content-type': 'application/yaml' } });
    assert.equal(r2.status, 400);
    assert.equal(r2.json.reason, 'BadRequest');
  });
});

describe('authorization AlwaysDeny', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster({ authorizationModes: ['AlwaysDeny'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('authorization - AlwaysDeny answers 403 Forbidden with the upstream message', async () => {
    const token = c.userToken; // jane, in no privileged group
    const r = assertStatus(await c.request('GET', CM, { token }), 403, 'Forbidden');
    assert.match(r.message, /^configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "default"/);
    assert.equal(r.details?.kind, 'configmaps');
    const one = assertStatus(await c.request('GET', `${CM}/x`, { token }), 403, 'Forbidden');
    assert.match(one.message, /^configmaps "x" is forbidden: User "jane" cannot get resource "configmaps" in API group "" in the namespace "default"/);
    const deploy = assertStatus(await c.request('POST', '/apis/apps/v1/namespaces/default/deployments', { token, body: { metadata: { name: 'd' } } }), 403, 'Forbidden');
    assert.match(deploy.message, /^deployments\.apps is forbidden: User "jane" cannot create resource "deployments" in API group "apps" in the namespace "default"/);
    const ns = assertStatus(await c.request('GET', '/api/v1/namespaces', { token }), 403, 'Forbidden');
    assert.match(ns.message, /^namespaces is forbidden: User "jane" cannot list resource "namespaces" in API group "" at the cluster scope/);
  });

  it('authorization - system:masters is allowed even under AlwaysDeny', async () => {
    assertOk(await c.request('GET', CM));
  });

  it('authorization - an anonymous request is denied as system:anonymous and a bad token is 401', async () => {
    const anon = assertStatus(await c.request('GET', CM, { token: null }), 403, 'Forbidden');
    assert.match(anon.message, /User "system:anonymous" cannot list resource "configmaps"/);
    assertStatus(await c.request('GET', CM, { token: 'not-a-valid-token' }), 401, 'Unauthorized');
  });
});
