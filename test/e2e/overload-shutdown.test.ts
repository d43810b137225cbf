// Overload protection and graceful shutdown of a gateway started as a user starts it
// (services/gateway/main.ts), beside an in-process cluster on the same NATS:
// - beyond --max-mutating-requests-inflight / --max-requests-inflight a request is answered 429
//   with Retry-After at once; a system:masters member and health checks are always served;
// - on SIGTERM /readyz fails at once while requests are still served for
//   --shutdown-delay-duration; then watches end with a final bookmark the client resumes from, and
//   the process exits 0 with every acknowledged write stored. (The 429 a request gets while the
//   gateway drains, --shutdown-send-retry-after, is shown in services/gateway/test/shutdown.test.ts.)

import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../shared/local/nats-server.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { cleanEnv, exitWithin, spawnProcess, type Proc } from '../support/processes.js';
import { assertOk, createNamespace, uniq } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A plain-HTTP request on `agent` (keep-alive when the agent keeps connections). */
function send(url: string, method: string, p: string, token: string, body?: unknown, agent?: http.Agent): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url + p,
      { method, agent, headers: { authorization: `Bearer ${token}`, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

function startGateway(c: TestCluster, port: number, args: string[]): Proc {
  return spawnProcess(['--import', 'tsx', 'services/gateway/main.ts', `--nats-url=${c.nats.url}`, `--secure-port=${port}`, ...args], { cwd: root, env: cleanEnv() });
}

// Health checks are sent as jane: with AlwaysAllow (the test cluster's mode) anonymous requests are
// refused, as upstream refuses them.
describe('overload and shutdown', { timeout: 120_000 }, () => {
  let c: TestCluster;
  let ns: string;
  before(async () => {
    c = await startTestCluster();
    ns = uniq('overload');
    await createNamespace(c, ns);
    // jane may write config maps in the namespace (and is no system:masters member).
    assertOk(
      await c.request('POST', `/apis/rbac.authorization.platform.io/v1/namespaces/${ns}/rolebindings`, {
        body: {
          apiVersion: 'rbac.authorization.platform.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'jane-edit' },
          roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'edit' },
          subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.platform.io' }],
        },
      }),
      201,
    );
  });
  after(async () => c?.stop());

  it('429 with Retry-After beyond the in-flight limits; masters and health checks always served', async () => {
    const port = await freePort();
    const gw = startGateway(c, port, ['--max-requests-inflight=1', '--max-mutating-requests-inflight=1']);
    try {
      await gw.waitFor(/gateway serving/, 30_000);
      const url = `http://127.0.0.1:${port}`;
      const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
      const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => send(url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, c.userToken, cm(`jane-${i}`))));
      const refused = burst.filter((r) => r.status === 429);
      const created = burst.filter((r) => r.status === 201);
      assert.ok(refused.length > 0, 'some writes over the limit were refused');
      assert.equal(refused.length + created.length, burst.length, `only 201 and 429: ${burst.map((r) => r.status).join(',')}`);
      const status = JSON.parse(refused[0]!.body);
      assert.deepEqual([status.kind, status.code, status.reason, status.message], ['Status', 429, 'TooManyRequests', 'Too many requests, please try again later.']);
      assert.equal(refused[0]!.headers['retry-after'], '1');
      // What was refused was not stored; what was acknowledged was.
      const list = JSON.parse((await send(url, 'GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=`, c.adminToken)).body);
      const stored = new Set(list.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      for (const r of created) assert.ok(stored.has(JSON.parse(r.body).metadata.name));
      assert.equal([...stored].filter((n) => String(n).startsWith('jane-')).length, created.length);

      // The admin (system:masters) is never refused; health checks never count.
      const admin = await Promise.all(Array.from({ length: 30 }, (_, i) => send(url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, c.adminToken, cm(`admin-${i}`))));
      assert.deepEqual([...new Set(admin.map((r) => r.status))], [201]);
      const reads = await Promise.all([
        ...Array.from({ length: 20 }, () => send(url, 'GET', '/readyz', c.userToken)),
        ...Array.from({ length: 20 }, () => send(url, 'GET', `/api/v1/namespaces/${ns}/configmaps`, c.userToken)),
      ]);
      assert.deepEqual([...new Set(reads.slice(0, 20).map((r) => r.status))], [200]);
      assert.ok(
        reads.slice(20).some((r) => r.status === 429),
        'reads have their own limit',
      );
      const metrics = (await send(url, 'GET', '/metrics', c.adminToken)).body;
      assert.match(metrics, /apiserver_dropped_requests_total\{request_kind="mutating"\} [1-9]/);
      assert.match(metrics, /apiserver_current_inflight_requests\{request_kind="mutating"\} 0/);
    } finally {
      gw.child.kill('SIGKILL');
    }
  });

  it('SIGTERM: readyz fails first, requests served for the delay, watches end with a bookmark, the rest refused with Retry-After, exit 0', async () => {
    const port = await freePort();
    const gw = startGateway(c, port, ['--shutdown-delay-duration=2s', '--shutdown-send-retry-after=true']);
    const url = `http://127.0.0.1:${port}`;
    try {
      await gw.waitFor(/gateway serving/, 30_000);
      assert.equal((await send(url, 'GET', '/readyz', c.userToken)).status, 200);
      // A watch that asked for bookmarks, and a keep-alive connection left open.
      const frames: string[] = [];
      const watchEnded = new Promise<void>((resolve, reject) => {
        const req = http.request(`${url}/api/v1/namespaces/${ns}/configmaps?watch=true&allowWatchBookmarks=true`, { headers: { authorization: `Bearer ${c.adminToken}` } }, (res) => {
          res.setEncoding('utf8');
          let buf = '';
          res.on('data', (chunk: string) => {
            buf += chunk;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              frames.push(buf.slice(0, nl));
              buf = buf.slice(nl + 1);
            }
          });
          res.on('end', resolve);
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      assert.equal((await send(url, 'GET', `/api/v1/namespaces/${ns}/configmaps`, c.adminToken, undefined, agent)).status, 200);
      await new Promise((r) => setTimeout(r, 200));

      gw.child.kill('SIGTERM');
      await gw.waitFor(/stopping/, 5_000);
      const readyz = await send(url, 'GET', '/readyz?verbose', c.userToken);
      assert.equal(readyz.status, 500);
      assert.match(readyz.body, /\[-\]shutdown failed/);
      // Still served during the delay, reads and writes alike.
      assert.equal((await send(url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, c.adminToken, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'during-delay' } })).status, 201);
      assert.equal((await send(url, 'GET', '/livez', c.userToken)).status, 200);

      // After the delay the watch ends, its last frame a bookmark at a revision the client can resume from.
      await watchEnded;
      const last = JSON.parse(frames.at(-1)!);
      assert.equal(last.type, 'BOOKMARK');
      assert.ok(Number(last.object.metadata.resourceVersion) > 0);
      // Another gateway resumes from it (no 410).
      assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${last.object.metadata.resourceVersion}&timeoutSeconds=1`));

      const exit = await exitWithin(gw, 15_000);
      assert.deepEqual(exit, { code: 0, signal: null }, gw.output().slice(-2000));
      // The write acknowledged during the delay is stored.
      assertOk(await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/during-delay`));
      agent.destroy();
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
    }
  });
});
