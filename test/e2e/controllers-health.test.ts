// The controllers service's own HTTPS endpoint, end to end: services/controllers/main.ts run as a
// process with its defaults (HTTPS on 10257, every address, a self-signed certificate made at
// start, /healthz /livez /readyz open to anyone), probed as a kubelet or compose would; /metrics
// protected by a TokenReview and a SubjectAccessReview through the API; and a replica that cannot
// reach the API, whose /readyz fails naming the `apiserver` check while /livez stays green.

import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../support/processes.js';
import { issueClientCert, issueServingCert } from '../../shared/local/pki.js';
import { writeKubeconfig } from '../../shared/local/kubeconfig.js';
import { freePort } from '../../shared/local/nats-server.js';
import { eventually } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const USER = 'system:platform-controller-manager';
const DEFAULT_PORT = 10257;

interface Probe {
  status: number;
  body: string;
  /** The certificate the server presented. */
  cert: X509Certificate;
}

/** One HTTPS GET; `ca` verifies the server, else any certificate is accepted (a self-signed one). */
function probe(port: number, p: string, o: { token?: string; ca?: string } = {}): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: '127.0.0.1', port, path: p, agent: false, timeout: 10_000, ...(o.ca ? { ca: o.ca } : { rejectUnauthorized: false }), headers: o.token ? { authorization: `Bearer ${o.token}` } : {} },
      (res) => {
        const cert = new X509Certificate((res.socket as import('node:tls').TLSSocket).getPeerCertificate().raw);
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cert }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });
}

describe('controllers service health endpoints (run as a process)', { timeout: 180_000 }, () => {
  let c: TestCluster;
  let dir: string;
  let kubeconfig: string;
  const procs: Proc[] = [];

  function start(flags: string[]): Proc {
    const p = spawnProcess(['--import', 'tsx', 'services/controllers/main.ts', `--kubeconfig=${kubeconfig}`, ...flags], { cwd: root, env: cleanEnv() });
    procs.push(p);
    return p;
  }

  async function stop(p: Proc): Promise<void> {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return;
    p.child.kill('SIGTERM');
    assert.deepEqual(await exitWithin(p, 8_000), { code: 0, signal: null }, tail(p.output()));
  }

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-controllers-health-'));
    const cert = await issueClientCert(c.ca, { commonName: USER });
    kubeconfig = path.join(dir, 'controllers.kubeconfig');
    await writeKubeconfig(kubeconfig, { server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, certUserName: USER });
  });

  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => exitWithin(p, 5_000)));
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('controllers health - with its defaults it serves HTTPS on 10257 with a self-signed certificate; /readyz?verbose names every check, /livez and /healthz answer ok, without credentials', async (t) => {
    if (!(await portFree(DEFAULT_PORT))) return t.skip(`port ${DEFAULT_PORT} is in use on this machine`);
    const p = start([]);
    try {
      await p.waitFor(/"msg":"controllers running"/, 30_000);
      const ready = await eventually(
        '/readyz passes',
        async () => {
          const r = await probe(DEFAULT_PORT, '/readyz?verbose');
          assert.equal(r.status, 200, r.body);
          return r;
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      const lines = ready.body.trim().split('\n');
      console.log(`/readyz?verbose:\n${ready.body}`);
      for (const check of [
        'ping',
        'leaderElection',
        'apiserver',
        'namespace',
        'garbagecollector',
        'serviceaccount',
        'root-ca-cert-publisher',
        'podgc',
        'resourcequota',
        'pvc-protection',
        'pv-protection',
        'csrapproving',
        'csrcleaner',
        'customresourcedefinitions',
        'apiservice-availability',
        'shutdown',
      ]) {
        assert.ok(lines.includes(`[+]${check} ok`), `${check} in:\n${ready.body}`);
      }
      assert.equal(lines.at(-1), 'readyz check passed');
      // A self-signed pair of its own, not one from the cluster CA.
      assert.match(ready.cert.subject, new RegExp(`CN=${os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}@\\d+`));
      assert.equal(ready.cert.checkIssued(new X509Certificate(c.caPem)), false);
      assert.deepEqual([(await probe(DEFAULT_PORT, '/livez')).status, (await probe(DEFAULT_PORT, '/livez')).body], [200, 'ok']);
      const live = await probe(DEFAULT_PORT, '/livez?verbose');
      assert.equal(live.body, '[+]ping ok\n[+]leaderElection ok\nlivez check passed\n');
      assert.deepEqual([(await probe(DEFAULT_PORT, '/healthz')).status, (await probe(DEFAULT_PORT, '/healthz')).body], [200, 'ok']);
      const excluded = await probe(DEFAULT_PORT, '/readyz?verbose&exclude=apiserver');
      assert.ok(excluded.body.includes('[+]apiserver excluded: ok'), excluded.body);

      // Anything else needs someone the API authenticates and allows: per-check paths and /metrics.
      const single = await probe(DEFAULT_PORT, '/readyz/apiserver');
      assert.equal(single.status, 403, single.body);
      const anonymous = await probe(DEFAULT_PORT, '/metrics');
      assert.equal(anonymous.status, 403, anonymous.body);
      assert.equal(JSON.parse(anonymous.body).message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
      const jane = await probe(DEFAULT_PORT, '/metrics', { token: c.userToken });
      assert.equal(jane.status, 403);
      assert.equal(JSON.parse(jane.body).message, 'forbidden: User "jane" cannot get path "/metrics"');
      const bogus = await probe(DEFAULT_PORT, '/metrics', { token: 'not-a-token' });
      assert.equal(bogus.status, 401, bogus.body);
      const admin = await probe(DEFAULT_PORT, '/metrics', { token: c.adminToken });
      assert.equal(admin.status, 200, admin.body.slice(0, 300));
      assert.match(admin.body, /^leader_election_master_status\{name="platform-controller-manager"\} 1$/m);
      assert.match(admin.body, /^process_cpu_seconds_total /m);
      assert.equal((await probe(DEFAULT_PORT, '/readyz/apiserver', { token: c.adminToken })).body, 'ok');
      assert.equal((await probe(DEFAULT_PORT, '/nothing-here', { token: c.adminToken })).status, 404);
    } finally {
      await stop(p);
    }
    assert.ok(await portFree(DEFAULT_PORT), 'the port is released on a clean stop');
  });

  test('controllers health - a replica that cannot reach the API fails /readyz naming the apiserver check, stays live, and serves --tls-cert-file', async () => {
    // A port nobody listens on stands for the unreachable API server.
    const deadPort = await freePort();
    const port = await freePort();
    const serving = await issueServingCert(c.ca, { commonName: 'controllers' });
    const certFile = path.join(dir, 'serving.crt');
    const keyFile = path.join(dir, 'serving.key');
    await writeFile(certFile, serving.certPem);
    await writeFile(keyFile, serving.keyPem);
    const p = start([`--master=https://127.0.0.1:${deadPort}`, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--tls-cert-file=${certFile}`, `--tls-private-key-file=${keyFile}`]);
    try {
      await p.waitFor(/"msg":"serving \/healthz, \/livez, \/readyz and \/metrics"/, 30_000);
      // Verified against the cluster CA: the given pair, not a self-signed one.
      const ready = await probe(port, '/readyz?verbose', { ca: c.caPem });
      console.log(`/readyz?verbose with the API unreachable (HTTP ${ready.status}):\n${ready.body}`);
      assert.equal(ready.status, 500);
      const lines = ready.body.trim().split('\n');
      assert.ok(lines.includes('[-]apiserver failed: reason withheld'), ready.body);
      assert.ok(lines.includes('[+]leaderElection ok'), 'a replica that never led is a healthy standby');
      assert.equal(lines.at(-1), 'readyz check failed');
      assert.equal((await probe(port, '/readyz', { ca: c.caPem })).status, 500);
      const live = await probe(port, '/livez', { ca: c.caPem });
      assert.deepEqual([live.status, live.body], [200, 'ok'], 'an unreachable API is no reason to restart it');
      assert.equal((await probe(port, '/healthz', { ca: c.caPem })).status, 500);
    } finally {
      await stop(p);
    }
  });
});
