// `--use-service-account-credentials`, end to end: the controllers service run as a process with
// its own client certificate (user system:platform-controller-manager) against a cluster that
// authorizes with Node,RBAC and the bootstrap policy. What is asserted is what an operator sees:
// each controller's ServiceAccount appears in platform-system; namespace deletion, CSR signing,
// garbage collection, the per-namespace objects and token secrets still complete while the
// service's own identity holds only upstream's controller-manager rights; a controller whose
// `system:controller:` binding loses its account is refused by RBAC *as that account* while the
// others keep working; and without the flag the service's own identity is the one acting.

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { csrRequest } from '../support/csr.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../support/processes.js';
import { issueClientCert } from '../../shared/local/pki.js';
import { writeKubeconfig } from '../../shared/local/kubeconfig.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { ServiceAccountTokenSource } from '../../services/controllers/client-builder.js';
import { assertOk, configMap, createNamespace, eventually, sleep, uniq } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const USER = 'system:platform-controller-manager';
const RBAC_V1 = '/apis/rbac.authorization.platform.io/v1';
const CSRS = '/apis/certificates.platform.io/v1/certificatesigningrequests';
const SYSTEM_NS = 'platform-system';
const ELECTION_FLAGS = ['--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=300ms'];
const START_TIMEOUT_MS = 30_000;
/** The accounts of the controllers on by default (serviceaccount-token keeps the service's own identity). */
const ACCOUNTS = ['namespace-controller', 'generic-garbage-collector', 'service-account-controller', 'root-ca-cert-publisher', 'pod-garbage-collector', 'certificate-controller'];

const ns = (name: string) => `/api/v1/namespaces/${name}`;
const binding = (name: string) => `${RBAC_V1}/clusterrolebindings/${name}`;
/** A log line of the process naming `user` in an RBAC refusal (pino escapes the quotes). */
const refusedAs = (user: string) => new RegExp(`forbidden: User \\\\?"${user.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\\\?" cannot`);

describe('controllers service with --use-service-account-credentials (Node,RBAC)', { timeout: 240_000 }, () => {
  let c: TestCluster;
  let dir: string;
  let kubeconfig: string;
  let signingFlags: string[];
  const procs: Proc[] = [];

  function startControllers(flags: string[]): Proc {
    const p = spawnProcess(['--import', 'tsx', 'services/controllers/main.ts', `--kubeconfig=${kubeconfig}`, '--secure-port=0', ...ELECTION_FLAGS, ...signingFlags, ...flags], {
      cwd: root,
      env: cleanEnv(),
    });
    procs.push(p);
    return p;
  }

  async function startLeader(flags: string[]): Promise<Proc> {
    const p = startControllers(flags);
    await p.waitFor(/"msg":"controllers running"/, START_TIMEOUT_MS);
    return p;
  }

  async function stopCleanly(p: Proc): Promise<void> {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return;
    p.child.kill('SIGTERM');
    const status = await exitWithin(p, 8_000);
    assert.deepEqual(status, { code: 0, signal: null }, `exit after SIGTERM:\n${tail(p.output())}`);
  }

  /** Replaces a default binding's subjects (autoupdate off, as an administrator would). */
  async function setSubjects(name: string, subjects: unknown[]): Promise<void> {
    const b = assertOk(await c.request('GET', binding(name)));
    b.subjects = subjects;
    b.metadata.annotations = { ...b.metadata.annotations, 'rbac.authorization.platform.io/autoupdate': 'false' };
    assertOk(await c.request('PUT', binding(name), { body: b }));
  }

  async function deleteNamespaceWithContent(): Promise<string> {
    const name = uniq('doomed');
    await createNamespace(c, name);
    assertOk(await c.request('POST', `${ns(name)}/configmaps`, { body: configMap('payload', { a: '1' }) }), 201);
    assertOk(await c.request('DELETE', ns(name)));
    return name;
  }

  async function assertGone(p: string, timeoutMs = 15_000): Promise<void> {
    await eventually(
      `${p} is gone`,
      async () => {
        const r = await c.request('GET', p);
        assert.equal(r.status, 404, `GET ${p}: ${r.status} ${r.text.slice(0, 300)}`);
      },
      { timeoutMs, intervalMs: 200 },
    );
  }

  /** A client request for CN=<name>, approved by the admin; resolves with the issued PEM. */
  async function signedCertificate(name: string, timeoutMs = 15_000): Promise<string> {
    const body = {
      apiVersion: 'certificates.platform.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request: await csrRequest(`CN=${name}`), signerName: 'platform.io/apiserver-client', usages: ['digital signature', 'client auth'] },
    };
    assertOk(await c.request('POST', CSRS, { body }), 201);
    const csr = assertOk(await c.request('GET', `${CSRS}/${name}`));
    csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'E2E', message: 'approved by the e2e test' }] };
    assertOk(await c.request('PUT', `${CSRS}/${name}/approval`, { body: csr }));
    const issued = await eventually(
      `certificate of ${name}`,
      async () => {
        const o = assertOk(await c.request('GET', `${CSRS}/${name}`));
        assert.ok(o.status?.certificate, JSON.stringify(o.status));
        return o;
      },
      { timeoutMs, intervalMs: 200 },
    );
    return Buffer.from(issued.status.certificate, 'base64').toString('utf8');
  }

  before(async () => {
    c = await startTestCluster({ authorizationModes: ['Node', 'RBAC'], fullAuthn: true });
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-controllers-sa-e2e-'));
    const cert = await issueClientCert(c.ca, { commonName: USER });
    kubeconfig = path.join(dir, 'controllers.kubeconfig');
    await writeKubeconfig(kubeconfig, { server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, certUserName: USER });
    const files = { caCert: path.join(dir, 'ca.crt'), caKey: path.join(dir, 'ca.key'), saKey: path.join(dir, 'sa.key') };
    await writeFile(files.caCert, c.ca.certPem);
    await writeFile(files.caKey, c.ca.keyPem);
    await writeFile(files.saKey, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    signingFlags = [`--cluster-signing-cert-file=${files.caCert}`, `--cluster-signing-key-file=${files.caKey}`, `--service-account-private-key-file=${files.saKey}`];
    await eventually('the default policy is written', async () => assertOk(await c.request('GET', binding('system:controller:namespace-controller'))), { timeoutMs: 15_000 });
  });

  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => exitWithin(p, 5_000)));
    await c?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('with the flag', () => {
    let leader: Proc;
    const saUser = (account: string) => `system:serviceaccount:${SYSTEM_NS}:${account}`;

    before(async () => {
      // The service's own identity keeps only its own role: upstream's controller-manager rights.
      await setSubjects('system:platform-controller-manager:controllers', []);
      leader = await startLeader(['--use-service-account-credentials']);
    });
    after(async () => {
      if (leader) await stopCleanly(leader);
      await setSubjects('system:platform-controller-manager:controllers', [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: USER }]);
    });

    test('controllers - each controller gets its own service account in platform-system, made and given a token by the service', async () => {
      const list = assertOk(await c.request('GET', `${ns(SYSTEM_NS)}/serviceaccounts`));
      const names = list.items.map((i: any) => i.metadata.name);
      for (const a of ACCOUNTS) assert.ok(names.includes(a), `service account ${a} in ${SYSTEM_NS}: ${names.join(', ')}`);
      // The service's own identity is not refused anything while doing its part.
      assert.doesNotMatch(leader.output(), refusedAs(USER), tail(leader.output()));
      assert.doesNotMatch(leader.output(), /serving \/healthz/, '--secure-port=0 serves nothing');
    });

    test("controllers - namespace deletion, CSR signing, garbage collection, per-namespace objects and token secrets complete with the service's own identity holding only upstream's rights", async () => {
      const doomed = await deleteNamespaceWithContent();
      await assertGone(ns(doomed));

      const pem = await signedCertificate(uniq('signed'));
      assert.match(pem, /BEGIN CERTIFICATE/);

      const fresh = uniq('fresh');
      await createNamespace(c, fresh);
      await eventually(
        `default SA and root CA in ${fresh}`,
        async () => {
          assertOk(await c.request('GET', `${ns(fresh)}/serviceaccounts/default`));
          assert.deepEqual(assertOk(await c.request('GET', `${ns(fresh)}/configmaps/platform-root-ca.crt`)).data, { 'ca.crt': c.caPem });
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      );

      const owner = assertOk(await c.request('POST', `${ns(fresh)}/configmaps`, { body: configMap('owner') }), 201);
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid };
      assertOk(await c.request('POST', `${ns(fresh)}/configmaps`, { body: configMap('dependent', {}, undefined, { ownerReferences: [ref] }) }), 201);
      assertOk(await c.request('DELETE', `${ns(fresh)}/configmaps/owner`));
      await assertGone(`${ns(fresh)}/configmaps/dependent`);

      // serviceaccount-token keeps the service's own credentials; its role allows what it does.
      const secret = { apiVersion: 'v1', kind: 'Secret', type: 'platform.io/service-account-token', metadata: { name: 'legacy', annotations: { 'platform.io/service-account.name': 'default' } } };
      assertOk(await c.request('POST', `${ns(fresh)}/secrets`, { body: secret }), 201);
      await eventually(
        'the token secret is filled in',
        async () => {
          assert.ok(assertOk(await c.request('GET', `${ns(fresh)}/secrets/legacy`)).data?.token, 'token written');
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      assert.doesNotMatch(leader.output(), /forbidden: User/, `no controller was refused:\n${tail(leader.output())}`);
    });

    test("controllers - a controller's account deleted under it is made again with a new token, and the controller carries on", async () => {
      const path_ = `${ns(SYSTEM_NS)}/serviceaccounts/certificate-controller`;
      const old = assertOk(await c.request('GET', path_));
      assertOk(await c.request('DELETE', path_));
      // Its token dies with it (the account is looked up) once the gateway's 10 s authentication
      // cache lets go of it; the next write is refused (401), then made again as the new account.
      await sleep(10_500);
      await signedCertificate(uniq('after-delete'), 20_000);
      const again = assertOk(await c.request('GET', path_));
      assert.notEqual(again.metadata.uid, old.metadata.uid, 'a new account');
      const made = leader
        .output()
        .split('\n')
        .filter((l) => l.includes('service account created for a controller') && l.includes('platform-system/certificate-controller'));
      assert.equal(made.length, 2, 'made at start and again after the refusal');
    });

    test("controllers - taking the namespace controller's binding away refuses it as system:serviceaccount:platform-system:namespace-controller, while CSR signing goes on; giving it back finishes the deletion", async () => {
      const name = 'system:controller:namespace-controller';
      const before_ = assertOk(await c.request('GET', binding(name))).subjects;
      assert.deepEqual(before_, [{ kind: 'ServiceAccount', name: 'namespace-controller', namespace: SYSTEM_NS }]);
      await setSubjects(name, []);
      try {
        const doomed = await deleteNamespaceWithContent();
        await leader.waitFor(refusedAs(saUser('namespace-controller')), 15_000);
        const held = assertOk(await c.request('GET', ns(doomed)));
        assert.equal(held.status.phase, 'Terminating', 'the namespace waits while its controller is refused');
        // The other controllers are not affected: their own accounts are still bound.
        await signedCertificate(uniq('meanwhile'));
        await sleep(500);
        assert.equal(assertOk(await c.request('GET', ns(doomed))).status.phase, 'Terminating');
        assert.doesNotMatch(leader.output(), refusedAs(USER), "the service's own identity was not what the namespace controller used");
        await setSubjects(name, before_);
        await assertGone(ns(doomed), 90_000);
      } finally {
        await setSubjects(name, before_);
      }
    });
  });

  test("service-account credentials - the service's identity makes the account, a token is renewed once 80 % of its life is gone, and at once when invalidated", async () => {
    const rootClient = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: kubeconfig } }));
    let now = Date.now();
    const account = uniq('probe');
    const tokens = new ServiceAccountTokenSource(rootClient, SYSTEM_NS, account, { now: () => now, expirationSeconds: 3600 });
    const whoAmI = async (authorization: string) => {
      const r = await c.request('POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', {
        token: authorization.replace(/^Bearer /, ''),
        body: { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' },
      });
      return assertOk(r, 201).status.userInfo.username as string;
    };
    try {
      const first = (await tokens.headers()).Authorization!;
      assertOk(await c.request('GET', `${ns(SYSTEM_NS)}/serviceaccounts/${account}`));
      assert.equal(await whoAmI(first), `system:serviceaccount:${SYSTEM_NS}:${account}`);
      assert.equal((await tokens.headers()).Authorization, first, 'reused while fresh');
      now += 47 * 60_000;
      assert.equal((await tokens.headers()).Authorization, first, 'still used at 78 % of its life');
      now += 2 * 60_000;
      // Past 80 %: the old token still serves this request while a new one is fetched in the background.
      assert.equal((await tokens.headers()).Authorization, first);
      const renewed = await eventually(
        'a renewed token',
        async () => {
          const h = (await tokens.headers()).Authorization!;
          assert.notEqual(h, first);
          return h;
        },
        { timeoutMs: 5_000, intervalMs: 50 },
      );
      assert.equal(await whoAmI(renewed), `system:serviceaccount:${SYSTEM_NS}:${account}`);
      tokens.invalidate();
      assert.notEqual((await tokens.headers()).Authorization, renewed, 'a new token after invalidate()');
    } finally {
      await c.request('DELETE', `${ns(SYSTEM_NS)}/serviceaccounts/${account}`);
      rootClient.close();
    }
  });

  test("controllers - without the flag the service's own identity acts: without its controllers binding the namespace controller is refused as system:platform-controller-manager", async () => {
    const leader = await startLeader([]);
    try {
      const ok = await deleteNamespaceWithContent();
      await assertGone(ns(ok));
      await setSubjects('system:platform-controller-manager:controllers', []);
      try {
        const doomed = await deleteNamespaceWithContent();
        await leader.waitFor(refusedAs(USER), 15_000);
        assert.equal(assertOk(await c.request('GET', ns(doomed))).status.phase, 'Terminating');
        assert.doesNotMatch(leader.output(), /system:serviceaccount:platform-system:namespace-controller/, 'no service account is used without the flag');
        await setSubjects('system:platform-controller-manager:controllers', [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: USER }]);
        await assertGone(ns(doomed), 90_000);
      } finally {
        await setSubjects('system:platform-controller-manager:controllers', [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: USER }]);
      }
    } finally {
      await stopCleanly(leader);
    }
  });
});
