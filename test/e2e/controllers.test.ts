// The controllers service (services/controllers/main.ts) run as a process, the way an operator runs
// it: a plain HTTPS client of the gateway with a client certificate of user
// system:platform-controller-manager, against a cluster that authorizes with Node,RBAC — so every
// test here also proves the bootstrap ClusterRole suffices. What is asserted is what a user sees:
// namespaces that go away on `kubectl delete ns`, the per-namespace `default` service account and
// `platform-root-ca.crt` config map, and a Lease that only one replica holds at a time.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { findKubectl, Kubectl } from '../support/kubectl.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../support/processes.js';
import { createCA, issueClientCert } from '../../shared/local/pki.js';
import { writeKubeconfig } from '../../shared/local/kubeconfig.js';
import { assertOk, configMap, createNamespace, deployment, eventually, openWatch, sleep, uniq } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const USER = 'system:platform-controller-manager';
const LEASE_NS = 'platform-system';
const LEASE_NAME = 'platform-controller-manager';
const LEASE_PATH = `/apis/coordination.platform.io/v1/namespaces/${LEASE_NS}/leases/${LEASE_NAME}`;
const ROOT_CA_CM = 'platform-root-ca.crt';
/** Short election timings keep the suite fast: a killed leader is replaced after ~3 s. */
const LEASE_MS = 3_000;
const ELECTION_FLAGS = ['--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=300ms'];
const START_TIMEOUT_MS = 30_000;

const ns = (name: string) => `/api/v1/namespaces/${name}`;
const sa = (namespace: string, name = 'default') => `/api/v1/namespaces/${namespace}/serviceaccounts/${name}`;
const cm = (namespace: string, name = ROOT_CA_CM) => `/api/v1/namespaces/${namespace}/configmaps/${name}`;

interface LogLine {
  msg?: string;
  identity?: string;
  [k: string]: unknown;
}

/** The JSON (pino) lines of a process's output. */
function logLines(p: Proc): LogLine[] {
  const out: LogLine[] = [];
  for (const line of p.output().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // a partial line
    }
  }
  return out;
}

function becameLeader(p: Proc): LogLine[] {
  return logLines(p).filter((l) => l.msg === 'became leader');
}

function alive(p: Proc): boolean {
  return p.child.exitCode === null && p.child.signalCode === null;
}

describe('controllers service (run as a process, RBAC-authorized as system:platform-controller-manager)', { timeout: 180_000 }, () => {
  let c: TestCluster;
  let dir: string;
  let kubeconfig: string;
  let kubectl: Kubectl | undefined;
  const procs: Proc[] = [];

  /**
   * Starts a replica; every replica started here is SIGKILLed in `after` if still running. Several
   * replicas share this host, so none serves the health port (controllers-health.test.ts does).
   */
  function startControllers(flags: string[] = []): Proc {
    const p = spawnProcess(['--import', 'tsx', 'services/controllers/main.ts', `--kubeconfig=${kubeconfig}`, '--secure-port=0', ...ELECTION_FLAGS, ...flags], { cwd: root, env: cleanEnv() });
    procs.push(p);
    return p;
  }

  /** Starts a replica and waits until it leads with its controllers synced. */
  async function startLeader(flags: string[] = []): Promise<Proc> {
    const p = startControllers(flags);
    await p.waitFor(/"msg":"controllers running"/, START_TIMEOUT_MS);
    return p;
  }

  /** SIGTERM, then a clean exit (code 0) within a few seconds. */
  async function stopCleanly(p: Proc): Promise<void> {
    if (!alive(p)) return;
    p.child.kill('SIGTERM');
    const status = await exitWithin(p, 8_000);
    assert.ok(status, `controllers still run 8 s after SIGTERM:\n${tail(p.output())}`);
    assert.deepEqual(status, { code: 0, signal: null }, `exit status after SIGTERM:\n${tail(p.output())}`);
  }

  function get(p: string): ReturnType<TestCluster['request']> {
    return c.request('GET', p);
  }

  async function assertGone(what: string, p: string, timeoutMs: number): Promise<void> {
    await eventually(
      `${what} is gone`,
      async () => {
        const r = await get(p);
        assert.equal(r.status, 404, `GET ${p}: ${r.status} ${r.text.slice(0, 300)}`);
      },
      { timeoutMs, intervalMs: 200 },
    );
  }

  /** Waits for the `default` service account and the root CA config map of a namespace; returns them. */
  async function perNamespaceObjects(namespace: string, caPem: string, timeoutMs = 10_000): Promise<{ sa: any; cm: any }> {
    return eventually(
      `default SA and ${ROOT_CA_CM} in ${namespace}`,
      async () => {
        const s = await get(sa(namespace));
        assert.equal(s.status, 200, `GET ${sa(namespace)}: ${s.status} ${s.text.slice(0, 200)}`);
        const m = await get(cm(namespace));
        assert.equal(m.status, 200, `GET ${cm(namespace)}: ${m.status} ${m.text.slice(0, 200)}`);
        assert.deepEqual(m.json.data, { 'ca.crt': caPem }, `${ROOT_CA_CM} data in ${namespace}`);
        return { sa: s.json, cm: m.json };
      },
      { timeoutMs, intervalMs: 200 },
    );
  }

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-controllers-e2e-'));
    const cert = await issueClientCert(c.ca, { commonName: USER });
    kubeconfig = path.join(dir, 'controllers.kubeconfig');
    await writeKubeconfig(kubeconfig, { server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, certUserName: USER });
    const bin = findKubectl();
    if (bin) kubectl = new Kubectl(bin, c.kubeconfigPath);
  });

  after(async () => {
    for (const p of procs) if (alive(p)) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => exitWithin(p, 5_000)));
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    if (kubectl) await rm(kubectl.cacheDir, { recursive: true, force: true });
  });

  test('controllers - without the controllers a deleted namespace stays Terminating; once they start it goes away', async (t) => {
    if (!kubectl) return t.skip('kubectl is not on PATH');
    const name = uniq('orphan');
    await createNamespace(c, name);
    assertOk(await c.request('POST', `${ns(name)}/configmaps`, { body: configMap('payload', { a: '1' }) }), 201);

    const del = await kubectl.run(['delete', 'namespace', name, '--wait=false']);
    assert.equal(del.code, 0, `kubectl delete ns ${name} --wait=false: ${del.stderr}`);
    // The gateway alone never finalizes: the namespace stays Terminating with its finalizer.
    for (let i = 0; i < 4; i++) {
      const r = assertOk(await get(ns(name)));
      assert.equal(r.status?.phase, 'Terminating', JSON.stringify(r));
      assert.ok(r.metadata.deletionTimestamp, 'deletionTimestamp set');
      assert.deepEqual(r.spec?.finalizers, ['platform'], 'spec.finalizers');
      await sleep(500);
    }
    assertOk(await get(cm(name, 'payload')));

    const p = await startLeader();
    await assertGone(`namespace ${name}`, ns(name), 10_000);
    const left = assertOk(await get(`/api/v1/configmaps?fieldSelector=metadata.namespace=${name}`));
    assert.deepEqual(left.items, [], 'no config map of the deleted namespace remains');
    await stopCleanly(p);
  });

  describe('with the default controllers running', () => {
    let leader: Proc;
    let before_: string;

    before(async () => {
      // A namespace that exists before the controllers start.
      before_ = uniq('preexisting');
      await createNamespace(c, before_);
      leader = await startLeader();
    });
    after(async () => {
      if (leader) await stopCleanly(leader);
    });

    test('controllers - every namespace gets the default service account and the root CA config map, kept as they should be', async () => {
      // Namespaces that existed before the start: a system one and one of ours.
      for (const name of ['default', before_]) await perNamespaceObjects(name, c.caPem);

      const name = uniq('fresh');
      await createNamespace(c, name);
      const first = await perNamespaceObjects(name, c.caPem);
      assert.equal(first.cm.metadata.namespace, name);

      // Deleted: both come back (new objects).
      assertOk(await c.request('DELETE', sa(name)));
      assertOk(await c.request('DELETE', cm(name)));
      const again = await perNamespaceObjects(name, c.caPem);
      assert.notEqual(again.sa.metadata.uid, first.sa.metadata.uid, 'the service account is a new object');
      assert.notEqual(again.cm.metadata.uid, first.cm.metadata.uid, 'the config map is a new object');

      // Changed: the data is put back.
      const changed = assertOk(await c.request('PATCH', cm(name), { body: { data: { 'ca.crt': 'not a CA', extra: 'x' } }, headers: { 'content-type': 'application/merge-patch+json' } }));
      assert.equal(changed.data['ca.crt'], 'not a CA');
      const restored = await perNamespaceObjects(name, c.caPem);
      assert.equal(restored.cm.metadata.uid, again.cm.metadata.uid, 'restored in place, not re-created');

      // Same in a namespace that predates the controllers.
      assertOk(await c.request('DELETE', cm('default')));
      assertOk(await c.request('DELETE', sa(before_)));
      await perNamespaceObjects('default', c.caPem);
      await perNamespaceObjects(before_, c.caPem);
    });

    test('controllers - kubectl delete ns returns within seconds and the namespace and its content are gone', async (t) => {
      if (!kubectl) return t.skip('kubectl is not on PATH');
      const name = uniq('doomed');
      await createNamespace(c, name);
      const content: Array<[string, unknown]> = [
        [`${ns(name)}/configmaps`, configMap('settings', { a: '1' })],
        [`${ns(name)}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, stringData: { password: 'hunter2' } }],
        [`/apis/apps/v1/namespaces/${name}/deployments`, deployment('web')],
        [
          `/apis/rbac.authorization.platform.io/v1/namespaces/${name}/roles`,
          { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
        ],
      ];
      for (const [p, body] of content) assertOk(await c.request('POST', p, { body }), 201);
      await perNamespaceObjects(name, c.caPem);

      const t0 = Date.now();
      const del = await kubectl.run(['delete', 'namespace', name, '--timeout=20s'], { timeoutMs: 25_000 });
      const took = Date.now() - t0;
      console.log(`kubectl delete namespace ${name}: exit ${del.code} after ${took} ms`);
      assert.equal(del.code, 0, `kubectl delete ns: ${del.stdout}${del.stderr}`);
      assert.match(del.stdout, new RegExp(`namespace "${name}" deleted`));
      assert.ok(took < 10_000, `kubectl delete ns took ${took} ms`);

      const r = await get(ns(name));
      assert.equal(r.status, 404, `GET namespace after kubectl delete: ${r.status} ${r.text.slice(0, 300)}`);
      // Nothing of the namespace is left, anywhere.
      for (const p of ['/api/v1/configmaps', '/api/v1/secrets', '/api/v1/serviceaccounts', '/apis/apps/v1/deployments', '/apis/rbac.authorization.platform.io/v1/roles']) {
        const list = assertOk(await get(`${p}?fieldSelector=metadata.namespace=${name}`));
        assert.deepEqual(
          list.items.map((i: any) => i.metadata.name),
          [],
          `${p} in ${name}`,
        );
      }
      for (const [p, body] of content) {
        const one = await get(`${p}/${(body as { metadata: { name: string } }).metadata.name}`);
        assert.equal(one.status, 404, `GET ${p}/…: ${one.status}`);
      }
    });

    test('controllers - content with a finalizer holds the namespace in Terminating with conditions saying why, until the finalizer goes', async () => {
      const name = uniq('held');
      await createNamespace(c, name);
      assertOk(await c.request('POST', `${ns(name)}/configmaps`, { body: configMap('held', { a: '1' }, undefined, { finalizers: ['example.com/hold'] }) }), 201);
      assertOk(await c.request('POST', `${ns(name)}/configmaps`, { body: configMap('free', { b: '2' }) }), 201);
      assertOk(await c.request('POST', `${ns(name)}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: {} } }), 201);
      await perNamespaceObjects(name, c.caPem);

      assertOk(await c.request('DELETE', ns(name)));
      const nsObj = await eventually(
        `conditions on ${name}`,
        async () => {
          const r = assertOk(await get(ns(name)));
          assert.equal(r.status?.phase, 'Terminating');
          const by = Object.fromEntries((r.status?.conditions ?? []).map((x: any) => [x.type, x]));
          assert.equal(by.NamespaceFinalizersRemaining?.status, 'True', JSON.stringify(r.status));
          assert.equal(by.NamespaceContentRemaining?.status, 'True', JSON.stringify(r.status));
          return r;
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      const by = Object.fromEntries(nsObj.status.conditions.map((x: any) => [x.type, x]));
      assert.deepEqual(
        { reason: by.NamespaceFinalizersRemaining.reason, message: by.NamespaceFinalizersRemaining.message },
        { reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: example.com/hold has 1 resource instances' },
      );
      assert.deepEqual(
        { reason: by.NamespaceContentRemaining.reason, message: by.NamespaceContentRemaining.message },
        { reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps has 1 resource instances' },
      );
      assert.equal(by.NamespaceDeletionContentFailure?.status, 'False', JSON.stringify(by.NamespaceDeletionContentFailure));
      assert.equal(by.NamespaceDeletionDiscoveryFailure?.status, 'False', JSON.stringify(by.NamespaceDeletionDiscoveryFailure));
      for (const x of nsObj.status.conditions) assert.ok(x.lastTransitionTime, `${x.type} has a lastTransitionTime`);

      // Everything else is gone; the held config map waits with a deletionTimestamp.
      await eventually(
        'only the held config map is left',
        async () => {
          const cms = assertOk(await get(`${ns(name)}/configmaps`));
          assert.deepEqual(
            cms.items.map((i: any) => i.metadata.name),
            ['held'],
          );
          assert.ok(cms.items[0].metadata.deletionTimestamp, 'the held config map is being deleted');
          assert.deepEqual(assertOk(await get(`${ns(name)}/secrets`)).items, []);
          assert.deepEqual(assertOk(await get(`${ns(name)}/serviceaccounts`)).items, []);
        },
        { timeoutMs: 5_000, intervalMs: 200 },
      );
      // And it stays that way while the finalizer holds.
      await sleep(1_500);
      assert.equal(assertOk(await get(ns(name))).status.phase, 'Terminating');

      assertOk(await c.request('PATCH', `${ns(name)}/configmaps/held`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } }));
      await assertGone(`namespace ${name}`, ns(name), 10_000);
    });
  });

  test('controllers - --controllers=*,-serviceaccount publishes the root CA (from --root-ca-file) but makes no service account', async () => {
    const other = await createCA('controllers-e2e-other-root');
    const caFile = path.join(dir, 'root-ca.crt');
    await writeFile(caFile, other.certPem);
    const p = await startLeader(['--controllers=*,-serviceaccount', `--root-ca-file=${caFile}`]);
    try {
      const name = uniq('nosa');
      await createNamespace(c, name);
      await eventually(
        `${ROOT_CA_CM} in ${name}`,
        async () => {
          const m = assertOk(await get(cm(name)));
          assert.deepEqual(m.data, { 'ca.crt': other.certPem });
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      // The existing config maps follow the new root CA too.
      await eventually(
        `${ROOT_CA_CM} in default follows --root-ca-file`,
        async () => {
          assert.deepEqual(assertOk(await get(cm('default'))).data, { 'ca.crt': other.certPem });
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      for (let i = 0; i < 6; i++) {
        const s = await get(sa(name));
        assert.equal(s.status, 404, `no default service account expected in ${name}: ${s.status} ${s.text.slice(0, 200)}`);
        await sleep(500);
      }
    } finally {
      await stopCleanly(p);
    }
  });

  test('controllers - an unknown controller name fails the start with exit code 2 and names it', async () => {
    const p = startControllers(['--controllers=bogus']);
    let stderr = '';
    p.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const status = await exitWithin(p, 20_000);
    assert.ok(status, `still running with --controllers=bogus:\n${tail(p.output())}`);
    assert.deepEqual(status, { code: 2, signal: null }, tail(p.output()));
    assert.match(stderr, /unknown controller "bogus"/);
    // The message lists the known controllers (more may be added; these three must be there).
    const known = /known: (.*)$/m.exec(stderr)?.[1]?.split(/,\s*/) ?? [];
    for (const name of ['namespace', 'serviceaccount', 'root-ca-cert-publisher']) assert.ok(known.includes(name), `stderr names ${name} as known: ${stderr}`);
  });

  test('controllers - leader election: one replica leads; a killed leader is replaced after the lease expires, a stopped one at once', async () => {
    const a = startControllers();
    const b = startControllers();
    const replicas = [a, b];
    const first = await eventually(
      'one replica leads',
      () => {
        const leading = replicas.filter((p) => becameLeader(p).length > 0);
        assert.equal(leading.length, 1, 'replicas that logged "became leader"');
        return leading[0]!;
      },
      { timeoutMs: START_TIMEOUT_MS, intervalMs: 200 },
    );
    await first.waitFor(/"msg":"controllers running"/, START_TIMEOUT_MS);
    const second = first === a ? b : a;
    const firstId = becameLeader(first)[0]!.identity!;
    assert.match(firstId, new RegExp(`^${os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_[0-9a-f-]{36}$`), 'identity is <hostname>_<uuid>');

    const lease = assertOk(await get(LEASE_PATH));
    assert.equal(lease.spec.holderIdentity, firstId, 'the Lease names the leader');
    assert.equal(lease.spec.leaseDurationSeconds, LEASE_MS / 1000);
    // The other replica keeps waiting and does nothing.
    await sleep(1_500);
    assert.equal(becameLeader(second).length, 0, `the second replica must not lead:\n${tail(second.output())}`);
    assert.equal(assertOk(await get(LEASE_PATH)).spec.holderIdentity, firstId);
    const ns1 = uniq('le-one');
    await createNamespace(c, ns1);
    await perNamespaceObjects(ns1, c.caPem);

    // SIGKILL: no release; the other replica takes over once the lease has expired.
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await first.exited;
    await second.waitFor(/"msg":"became leader"/, LEASE_MS + 7_000);
    const took = Date.now() - killedAt;
    console.log(`leader SIGKILLed → the other replica became leader after ${took} ms (lease ${LEASE_MS} ms)`);
    const secondId = becameLeader(second)[0]!.identity!;
    assert.notEqual(secondId, firstId);
    assert.ok(took >= LEASE_MS - 1_500, `took over after ${took} ms, before the ${LEASE_MS} ms lease could have expired`);
    const afterKill = assertOk(await get(LEASE_PATH));
    assert.equal(afterKill.spec.holderIdentity, secondId);
    assert.ok(afterKill.spec.leaseTransitions >= 1, `leaseTransitions: ${afterKill.spec.leaseTransitions}`);
    const ns2 = uniq('le-two');
    await createNamespace(c, ns2);
    await perNamespaceObjects(ns2, c.caPem);

    // SIGTERM: the leader releases the lease (holderIdentity emptied) and a standby takes it at once.
    const third = startControllers();
    await third.waitFor(/"msg":"controllers service started"/, START_TIMEOUT_MS);
    await sleep(1_000); // the standby is polling the lease
    assert.equal(becameLeader(third).length, 0, 'the third replica waits while the lease is held');
    const watch = await openWatch(c, `/apis/coordination.platform.io/v1/namespaces/${LEASE_NS}/leases?watch=1&fieldSelector=metadata.name=${LEASE_NAME}`);
    try {
      const termAt = Date.now();
      await stopCleanly(second);
      const released = await watch.waitFor((e) => e.type === 'MODIFIED' && e.object?.spec?.holderIdentity === '', 5_000, 'the lease released (holderIdentity "")');
      assert.equal(released.object.spec.holderIdentity, '');
      await third.waitFor(/"msg":"became leader"/, 5_000);
      const handover = Date.now() - termAt;
      console.log(`leader SIGTERMed → the standby became leader after ${handover} ms`);
      assert.ok(handover < LEASE_MS, `a released lease is taken at once, not after expiry: ${handover} ms`);
      const thirdId = becameLeader(third)[0]!.identity!;
      await watch.waitFor((e) => e.object?.spec?.holderIdentity === thirdId, 5_000, 'the lease held by the third replica');
      assert.equal(assertOk(await get(LEASE_PATH)).spec.holderIdentity, thirdId);
    } finally {
      watch.close();
    }
    await third.waitFor(/"msg":"controllers running"/, 10_000);
    const ns3 = uniq('le-three');
    await createNamespace(c, ns3);
    await perNamespaceObjects(ns3, c.caPem);

    // A clean stop of the last replica leaves the lease free for whoever comes next.
    await stopCleanly(third);
    assert.equal(assertOk(await get(LEASE_PATH)).spec.holderIdentity, '', 'released on the last stop');
  });
});
