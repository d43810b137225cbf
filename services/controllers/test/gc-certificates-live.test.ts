// The garbage collector and the certificate controllers against a running cluster, driven
// in-process with the admin's client: what a user sees after kubectl delete --cascade=… and after
// approving a certificate signing request.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestCluster, type TestCluster } from '../../../test/support/cluster.js';
import { loadClientConfig } from '../../../shared/client/config.js';
import { ApiClient, isNotFound, type ResourceRef } from '../../../shared/client/rest.js';
import { silentLogger } from '../../../shared/log.js';
import { createControllersService, type ControllersService } from '../service.js';
import { loadSigningCA } from '../certificates/signers.js';
import type { ApiObject } from '../../../shared/api/types.js';

describe('garbage collection and certificates against a cluster', () => {
  let c: TestCluster;
  let client: ApiClient;
  let svc: ControllersService;
  before(async () => {
    c = await startTestCluster({ fullAuthn: true });
    client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: c.kubeconfigPath } }));
    svc = createControllersService({
      client: new ApiClient(client.config),
      log: silentLogger(),
      config: { controllers: ['garbagecollector', 'csrsigning', 'csrapproving'], signingCA: await loadSigningCA(c.ca.certPem, c.ca.keyPem), signingDurationMs: 24 * 3_600_000 },
    });
    await svc.leading;
  });
  after(async () => {
    await svc?.stop();
    client?.close();
    await c?.stop();
  });

  const DEPLOY = (ns: string, name?: string): ResourceRef => ({ group: 'apps', version: 'v1', resource: 'deployments', namespace: ns, ...(name ? { name } : {}) });
  const RS = (ns: string, name?: string): ResourceRef => ({ group: 'apps', version: 'v1', resource: 'replicasets', namespace: ns, ...(name ? { name } : {}) });
  const POD = (ns: string, name?: string): ResourceRef => ({ group: '', version: 'v1', resource: 'pods', namespace: ns, ...(name ? { name } : {}) });
  const CSR = (name?: string): ResourceRef => ({ group: 'certificates.platform.io', version: 'v1', resource: 'certificatesigningrequests', ...(name ? { name } : {}) });
  const exists = async (r: ResourceRef) =>
    client.get(r).then(
      () => true,
      (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
    );
  async function until(what: string, fn: () => Promise<boolean>, ms = 10_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await fn())) {
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const owner = (o: ApiObject, kind: string, apiVersion: string) => [{ apiVersion, kind, name: o.metadata.name!, uid: o.metadata.uid!, controller: true, blockOwnerDeletion: true }];
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

  /** A Deployment → ReplicaSet → Pod chain built by hand, as the workload controllers would. */
  async function chain(ns: string) {
    await client.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: ns } });
    const d = await client.create(DEPLOY(ns), { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
    const rs = await client.create(RS(ns), { metadata: { name: 'web-1', ownerReferences: owner(d, 'Deployment', 'apps/v1') }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
    await client.create(POD(ns), { metadata: { name: 'web-1-a', labels: { app: 'web' }, ownerReferences: owner(rs, 'ReplicaSet', 'apps/v1') }, spec: template.spec });
  }

  it('background (the default): the ReplicaSet and its Pod follow the Deployment', async () => {
    await chain('gc-bg');
    await client.delete(DEPLOY('gc-bg', 'web'));
    await until('the chain to go', async () => !(await exists(RS('gc-bg', 'web-1'))) && !(await exists(POD('gc-bg', 'web-1-a'))));
  });

  it('foreground: the Deployment waits with foregroundDeletion and goes last', async () => {
    await chain('gc-fg');
    const marked = await client.delete(DEPLOY('gc-fg', 'web'), { propagationPolicy: 'Foreground' });
    assert.ok(marked.metadata.deletionTimestamp && marked.metadata.finalizers?.includes('foregroundDeletion'), JSON.stringify(marked.metadata));
    await until('the dependents to go', async () => !(await exists(POD('gc-fg', 'web-1-a'))) && !(await exists(RS('gc-fg', 'web-1'))));
    await until('the owner to go last', async () => !(await exists(DEPLOY('gc-fg', 'web'))));
  });

  it('orphan: the ReplicaSet and Pod stay, the ReplicaSet loses its owner reference', async () => {
    await chain('gc-or');
    await client.delete(DEPLOY('gc-or', 'web'), { propagationPolicy: 'Orphan' });
    await until('the owner to go', async () => !(await exists(DEPLOY('gc-or', 'web'))));
    const rs = await client.get(RS('gc-or', 'web-1'));
    assert.equal(rs.metadata.ownerReferences, undefined);
    assert.equal((await client.get(POD('gc-or', 'web-1-a'))).metadata.ownerReferences?.[0]?.kind, 'ReplicaSet');
  });

  it('a dependent of an owner that never existed is deleted; one with another live owner only loses the dead reference', async () => {
    const ns = 'default';
    const cms = { group: '', version: 'v1', resource: 'configmaps', namespace: ns };
    const live = await client.create(cms, { metadata: { name: 'live-owner' } });
    const ghost = { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' };
    await client.create(cms, { metadata: { name: 'orphaned', ownerReferences: [ghost] } });
    await client.create(cms, { metadata: { name: 'shared', ownerReferences: [ghost, { apiVersion: 'v1', kind: 'ConfigMap', name: 'live-owner', uid: live.metadata.uid! }] } });
    await until('the orphan to go', async () => !(await exists({ ...cms, name: 'orphaned' })));
    await until('the dead reference to go', async () => (await client.get({ ...cms, name: 'shared' })).metadata.ownerReferences?.length === 1);
  });

  it("an approved client request is signed under the cluster CA and authenticates as its subject; a bad one fails with the signer's reason", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'csr-live-'));
    try {
      execFileSync(
        'openssl',
        ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, 'k'), '-out', path.join(dir, 'r'), '-subj', '/CN=bob/O=dev'],
        { stdio: 'ignore' },
      );
      const request = Buffer.from(readFileSync(path.join(dir, 'r'))).toString('base64');
      const approve = async (name: string) => {
        const o = await client.get(CSR(name));
        await client.update({ ...CSR(name), subresource: 'approval' }, { ...o, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] } });
      };
      await client.create(CSR(), { metadata: { name: 'bob' }, spec: { request, signerName: 'platform.io/apiserver-client', usages: ['client auth', 'digital signature'], expirationSeconds: 3600 } });
      await client.create(CSR(), { metadata: { name: 'bad' }, spec: { request, signerName: 'platform.io/apiserver-client', usages: ['server auth'] } });
      await approve('bob');
      await approve('bad');
      let issued: { status?: { certificate?: string; conditions?: Array<{ type: string; reason?: string; message?: string }> } } = {};
      await until('the certificate', async () => Boolean((issued = (await client.get(CSR('bob'))) as typeof issued).status?.certificate));
      const pem = Buffer.from(issued.status!.certificate!, 'base64').toString();
      const cert = new X509Certificate(pem);
      assert.ok(cert.verify(new X509Certificate(c.ca.certPem).publicKey));
      const hours = (Date.parse(cert.validTo) - Date.now()) / 3_600_000;
      assert.ok(hours > 0.9 && hours < 1.1, `valid for ${hours} h`);
      const who = await c.request('POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', {
        token: null,
        cert: { certPem: pem, keyPem: readFileSync(path.join(dir, 'k'), 'utf8') },
        body: { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' },
      });
      assert.equal(who.json?.status?.userInfo?.username, 'bob', who.text);
      await until('the refusal', async () => Boolean(((await client.get(CSR('bad'))) as typeof issued).status?.conditions?.some((x) => x.type === 'Failed')));
      const failed = ((await client.get(CSR('bad'))) as typeof issued).status!;
      assert.equal(failed.certificate, undefined);
      assert.deepEqual(failed.conditions!.find((x) => x.type === 'Failed')!.message, 'invalid usage for client certificate: server auth');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a node client request from someone allowed to request node certificates is approved and issued without anyone approving it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'csr-node-'));
    try {
      execFileSync(
        'openssl',
        ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, 'k'), '-out', path.join(dir, 'r'), '-subj', '/CN=system:node:n1/O=system:nodes'],
        { stdio: 'ignore' },
      );
      await client.create(CSR(), {
        metadata: { name: 'node-n1' },
        spec: { request: readFileSync(path.join(dir, 'r')).toString('base64'), signerName: 'platform.io/apiserver-client-agent', usages: ['client auth', 'digital signature', 'key encipherment'] },
      });
      await until('auto-approval and issuance', async () => {
        const s = ((await client.get(CSR('node-n1'))) as { status?: { certificate?: string; conditions?: Array<{ type: string; reason?: string }> } }).status;
        return Boolean(s?.certificate && s.conditions?.some((x) => x.type === 'Approved' && x.reason === 'AutoApproved'));
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
