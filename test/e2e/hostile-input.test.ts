// End to end: input whose meaning a naive decoder would change. Numbers that cannot be held
// exactly, keys named like Object.prototype members, and Authorization headers that are almost
// `Bearer <token>` — each is refused clearly or kept exactly, never silently altered.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { assertOk, assertStatus, deployment, uniq } from './helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

function job(name: string, activeDeadlineSeconds: string): string {
  return `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"${name}"},"spec":{"activeDeadlineSeconds":${activeDeadlineSeconds},"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`;
}

function deploymentJson(name: string, replicas: string): string {
  return JSON.stringify(deployment(name, 7)).replace('"replicas":7', `"replicas":${replicas}`);
}

describe('hostile input - numbers, prototype keys, bearer headers', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  const post = (path: string, body: string, type = 'application/json') => c.request('POST', path, { rawBody: body, headers: { 'content-type': type } });

  it('numbers - 1e400 and 2^53+1 in replicas or an int64 field are 400 naming the field, and nothing is stored', async () => {
    const cases: { path: string; body: (n: string) => string; type?: string; field: string; literal: string }[] = [
      { path: DEPLOY, body: (n) => deploymentJson(n, '1e400'), field: 'spec.replicas', literal: '1e400' },
      { path: DEPLOY, body: (n) => deploymentJson(n, '9007199254740993'), field: 'spec.replicas', literal: '9007199254740993' },
      { path: JOBS, body: (n) => job(n, '1e400'), field: 'spec.activeDeadlineSeconds', literal: '1e400' },
      { path: JOBS, body: (n) => job(n, '9007199254740993'), field: 'spec.activeDeadlineSeconds', literal: '9007199254740993' },
      { path: JOBS, body: (n) => job(n, '-9223372036854775809'), field: 'spec.activeDeadlineSeconds', literal: '-9223372036854775809' },
      {
        path: JOBS,
        body: (n) =>
          `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${n}\nspec:\n  activeDeadlineSeconds: 9007199254740993\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n`,
        type: 'application/yaml',
        field: 'spec.activeDeadlineSeconds',
        literal: '9007199254740993',
      },
      {
        path: DEPLOY,
        body: (n) => `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${n}\nspec:\n  replicas: .inf\n`,
        type: 'application/yaml',
        field: 'spec.replicas',
        literal: '.inf',
      },
    ];
    for (const k of cases) {
      const name = uniq('num');
      const st = assertStatus(await post(k.path, k.body(name), k.type), 400, 'BadRequest');
      assert.ok(st.message.includes(k.field) && st.message.includes(k.literal), st.message);
      assertStatus(await c.request('GET', `${k.path}/${name}`), 404, 'NotFound');
    }
  });

  it('numbers - out-of-range int32, fractions and unsafe int64 values are 422 on the field', async () => {
    const cases: { path: string; body: (n: string) => string; field: string }[] = [
      { path: DEPLOY, body: (n) => deploymentJson(n, String(2 ** 31)), field: 'spec.replicas' },
      { path: DEPLOY, body: (n) => deploymentJson(n, '-2147483649'), field: 'spec.replicas' },
      { path: DEPLOY, body: (n) => deploymentJson(n, '1.5'), field: 'spec.replicas' },
      { path: JOBS, body: (n) => job(n, '1e17'), field: 'spec.activeDeadlineSeconds' },
      { path: JOBS, body: (n) => job(n, '0.5'), field: 'spec.activeDeadlineSeconds' },
    ];
    for (const k of cases) {
      const name = uniq('num');
      const st = assertStatus(await post(k.path, k.body(name)), 422, 'Invalid');
      assert.ok(
        st.details.causes.some((x: { field: string }) => x.field === k.field),
        JSON.stringify(st),
      );
      assertStatus(await c.request('GET', `${k.path}/${name}`), 404, 'NotFound');
    }
    // The largest values that fit are stored exactly.
    const ok = uniq('num');
    assertOk(await post(DEPLOY, deploymentJson(ok, String(2 ** 31 - 1))), 201);
    assert.equal(assertOk(await c.request('GET', `${DEPLOY}/${ok}`)).spec.replicas, 2 ** 31 - 1);
    const okJob = uniq('num');
    assertOk(await post(JOBS, job(okJob, '9007199254740991')), 201);
    assert.equal(assertOk(await c.request('GET', `${JOBS}/${okJob}`)).spec.activeDeadlineSeconds, 9007199254740991);
  });

  it('numbers - values introduced through patches are checked the same way', async () => {
    const name = uniq('patched');
    assertOk(await c.request('POST', DEPLOY, { body: deployment(name, 2) }), 201);
    const patch = (type: string, body: string) => c.request('PATCH', `${DEPLOY}/${name}`, { rawBody: body, headers: { 'content-type': type } });
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      assertStatus(await patch(type, '{"spec":{"replicas":1e400}}'), 400, 'BadRequest');
      assertStatus(await patch(type, '{"spec":{"replicas":9007199254740993}}'), 400, 'BadRequest');
      assertStatus(await patch(type, `{"spec":{"replicas":${2 ** 31}}}`), 422, 'Invalid');
    }
    assertStatus(await patch('application/json-patch+json', '[{"op":"replace","path":"/spec/replicas","value":1e400}]'), 400, 'BadRequest');
    assertStatus(await patch('application/json-patch+json', `[{"op":"replace","path":"/spec/replicas","value":${2 ** 31}}]`), 422, 'Invalid');
    assert.equal(assertOk(await c.request('GET', `${DEPLOY}/${name}`)).spec.replicas, 2);
  });

  it('keys - a ConfigMap with data keys named like Object.prototype members is stored and read back exactly', async () => {
    const name = uniq('proto');
    const data = `{${KEYS.map((k) => `"${k}":"value of ${k}"`).join(',')}}`;
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":{"constructor":"x","toString":"y"}},"data":${data}}`;
    const created = assertOk(await post(CM, body), 201);
    const read = assertOk(await c.request('GET', `${CM}/${name}`));
    for (const o of [created, read]) {
      assert.deepEqual(Object.keys(o.data), KEYS);
      for (const k of KEYS) assert.equal(o.data[k], `value of ${k}`, k);
      assert.deepEqual(o.metadata.labels, { constructor: 'x', toString: 'y' });
    }
    // A merge patch may set `__proto__` and `constructor` like any key, and remove them.
    const patch = (body: string) => c.request('PATCH', `${CM}/${name}`, { rawBody: body, headers: { 'content-type': 'application/merge-patch+json' } });
    const patched = assertOk(await patch('{"data":{"__proto__":"new","constructor":null}}'));
    assert.equal(patched.data.__proto__, 'new');
    assert.equal(Object.hasOwn(patched.data, 'constructor'), false);
    assert.deepEqual(Object.keys(assertOk(await c.request('GET', `${CM}/${name}`)).data).sort(), ['__proto__', 'hasOwnProperty', 'toString', 'valueOf']);
    // And a Secret's stringData keys are merged into data, `__proto__` included.
    const secret = uniq('proto');
    const s = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${secret}"},"stringData":${data}}`;
    assertOk(await post('/api/v1/namespaces/default/secrets', s), 201);
    const got = assertOk(await c.request('GET', `/api/v1/namespaces/default/secrets/${secret}`));
    assert.deepEqual(Object.keys(got.data).sort(), [...KEYS].sort());
    for (const k of KEYS) assert.equal(Buffer.from(got.data[k], 'base64').toString(), `value of ${k}`, k);
  });

  it('keys - request headers named like Object.prototype members do not break impersonation', async () => {
    const r = await c.request('POST', SSR, { body: SSR_BODY, headers: { 'impersonate-user': 'bob', 'impersonate-extra-constructor': 'a', constructor: 'x', tostring: 'y' } });
    const review = assertOk(r, 201);
    assert.equal(review.status.userInfo.username, 'bob');
    assert.deepEqual(review.status.userInfo.extra, { constructor: ['a'] });
  });

  it('authentication - `Bearer` with two spaces or a tab is no token: the request runs as anonymous', async () => {
    const whoami = async (authorization: string) => {
      const r = await c.request('POST', SSR, { token: null, body: SSR_BODY, headers: { authorization } });
      return assertOk(r, 201).status.userInfo.username as string;
    };
    assert.equal(await whoami(`Bearer ${c.adminToken}`), 'platform-admin');
    assert.equal(await whoami(`bearer ${c.userToken}`), 'jane');
    // Anonymous, which this cluster's AlwaysAllow turns away with 401 (upstream's ApplyAuthorization).
    for (const header of [`Bearer  ${c.adminToken}`, `Bearer\t${c.adminToken}`, `Bearer \t${c.userToken}`.replace(' \t', '\t '), `Bearer   ${c.userToken}`]) {
      const r = await c.request('POST', SSR, { token: null, body: SSR_BODY, headers: { authorization: header } });
      assertStatus(r, 401, 'Unauthorized');
    }
    // Trailing junk after the token is ignored as upstream does; a tab inside makes it another token.
    assert.equal(await whoami(`Bearer ${c.adminToken} trailing`), 'platform-admin');
    assertStatus(await c.request('GET', CM, { token: null, headers: { authorization: `Bearer ${c.adminToken}\tx` } }), 401, 'Unauthorized');
  });
});

describe('hostile input - malformed bearer headers without anonymous access', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster({ anonymousAuth: false });
  });
  after(async () => {
    await c?.stop();
  });

  it('authentication - `Bearer  <token>` is 401, as no credentials at all', async () => {
    for (const authorization of [`Bearer  ${c.adminToken}`, `Bearer\t${c.adminToken}`]) {
      assertStatus(await c.request('GET', CM, { token: null, headers: { authorization } }), 401, 'Unauthorized');
    }
    assertOk(await c.request('GET', CM));
  });
});
