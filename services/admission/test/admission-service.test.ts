import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { Kvm, type KV } from '@nats-io/kv';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { busRequest } from '../../../shared/bus/client.js';
import { ServiceName, Subjects } from '../../../shared/bus/subjects.js';
import { protoEndpoint, startJsonService } from '../../../shared/bus/service.js';
import { AuthzMessages } from '../../../shared/bus/auth-messages.js';
import type { AdmissionReply, AdmissionRequest, AuthzAttributes, AuthzReply } from '../../../shared/bus/messages.js';
import type { StatusError } from '../../../shared/api/status.js';
import { createAdmissionService, type AdmissionServiceDeps } from '../service.js';

const nsKey = (name: string) => `core.namespaces._.${name}`;
const nsDoc = (name: string, phase: 'Active' | 'Terminating') => JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: `uid-${name}` }, spec: {}, status: { phase } });

function createConfigMap(namespace: string, name = 'cm', phase: AdmissionRequest['phase'] = 'mutating'): AdmissionRequest {
  return {
    uid: `req-${Math.random()}`,
    phase,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name,
    namespace,
    operation: 'CREATE',
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { k: 'v' } },
    oldObject: null,
    dryRun: false,
  };
}

function deleteNamespace(name: string, phase: AdmissionRequest['phase'] = 'mutating'): AdmissionRequest {
  return {
    uid: `req-${Math.random()}`,
    phase,
    kind: { group: '', version: 'v1', kind: 'Namespace' },
    resource: { group: '', version: 'v1', resource: 'namespaces' },
    name,
    namespace: name,
    operation: 'DELETE',
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object: null,
    oldObject: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    dryRun: false,
  };
}

function approveCsr(username: string): AdmissionRequest {
  const csr = (signerName: string, conditions: unknown[]) => ({
    apiVersion: 'certificates.platform.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'csr1' },
    spec: { request: 'cmVxdWVzdA==', signerName, usages: ['client auth'] },
    status: { conditions },
  });
  return {
    uid: `req-${Math.random()}`,
    phase: 'validating',
    kind: { group: 'certificates.platform.io', version: 'v1', kind: 'CertificateSigningRequest' },
    resource: { group: 'certificates.platform.io', version: 'v1', resource: 'certificatesigningrequests' },
    subResource: 'approval',
    name: 'csr1',
    operation: 'UPDATE',
    userInfo: { username, groups: ['system:authenticated'] },
    object: csr('example.com/foo', [{ type: 'Approved', status: 'True' }]),
    oldObject: csr('example.com/foo', []),
    dryRun: false,
  };
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('admission service', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let kv: KV;

  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('storage-stand-in');
    kv = await new Kvm(nc).create('objects', { history: 1 });
    await kv.put(nsKey('team-a'), nsDoc('team-a', 'Active'));
    await kv.put(nsKey('closing'), nsDoc('closing', 'Terminating'));
    await kv.put(nsKey('default'), nsDoc('default', 'Active'));
  });
  after(async () => {
    await nats.stop();
  });

  async function withService(deps: Omit<AdmissionServiceDeps, 'nc'>, fn: (admit: (r: AdmissionRequest) => Promise<AdmissionReply>) => Promise<void>, waitForWatch = true) {
    const svcNc = await nats.connect('admission');
    const client = await nats.connect('gateway');
    const svc = await createAdmissionService({ nc: svcNc, ...deps });
    try {
      if (waitForWatch) await svc.namespacesWatching;
      await fn((r) => busRequest<AdmissionReply>(client, Subjects.admissionAdmit, r));
    } finally {
      await svc.stop();
      await svcNc.close();
      await client.close();
    }
  }

  test('admission - create in an existing namespace is admitted and the object comes back', async () => {
    await withService({ config: {} }, async (admit) => {
      const req = createConfigMap('team-a');
      assert.deepEqual(await admit(req), { allowed: true, object: req.object });
      assert.deepEqual(await admit({ ...req, phase: 'validating' }), { allowed: true });
    });
  });

  test('admission - create in a missing namespace is 404 NotFound', async () => {
    await withService({ config: {} }, async (admit) => {
      const reply = await admit(createConfigMap('nowhere'));
      assert.equal(reply.allowed, false);
      assert.equal(reply.status?.code, 404);
      assert.equal(reply.status?.reason, 'NotFound');
      assert.equal(reply.status?.message, 'namespaces "nowhere" not found');
      assert.deepEqual(reply.status?.details, { name: 'nowhere', group: '', kind: 'namespaces' });
    });
  });

  test('admission - create in a terminating namespace is 403 Forbidden; updates and deletes there pass', async () => {
    await withService({ config: {} }, async (admit) => {
      const reply = await admit(createConfigMap('closing'));
      assert.equal(reply.allowed, false);
      assert.equal(reply.status?.code, 403);
      assert.equal(reply.status?.reason, 'Forbidden');
      assert.equal(reply.status?.message, 'configmaps "cm" is forbidden: unable to create new content in namespace closing because it is being terminated');
      assert.deepEqual(reply.status?.details?.causes, [
        { reason: 'NamespaceTerminating', message: 'unable to create new content in namespace closing because it is being terminated', field: 'metadata.namespace' },
      ]);
      const existing = createConfigMap('closing');
      assert.equal((await admit({ ...existing, operation: 'UPDATE', oldObject: existing.object })).allowed, true);
      assert.equal((await admit({ ...existing, operation: 'DELETE', object: null, oldObject: existing.object })).allowed, true);
    });
  });

  test('admission - a namespace created a moment ago is admitted (cache miss, then a live read)', async () => {
    await withService({ config: {} }, async (admit) => {
      for (let i = 0; i < 20; i++) {
        const name = `fresh-${i}`;
        await kv.put(nsKey(name), nsDoc(name, 'Active'));
        const reply = await admit(createConfigMap(name));
        assert.equal(reply.allowed, true, `${name}: ${reply.status?.message}`);
      }
    });
  });

  test('admission - namespace changes reach the service through the watch', async () => {
    await withService({ config: {} }, async (admit) => {
      await kv.put(nsKey('short-lived'), nsDoc('short-lived', 'Active'));
      assert.equal((await admit(createConfigMap('short-lived'))).allowed, true);
      await kv.put(nsKey('short-lived'), nsDoc('short-lived', 'Terminating'));
      await eventually(async () => (await admit(createConfigMap('short-lived'))).status?.code === 403, 'the terminating phase to be seen');
      await kv.delete(nsKey('short-lived'));
      await eventually(async () => (await admit(createConfigMap('short-lived'))).status?.code === 404, 'the deletion to be seen');
    });
  });

  test('admission - default, platform-system and platform-public cannot be deleted; other namespaces can', async () => {
    await withService({ config: {} }, async (admit) => {
      for (const name of ['default', 'platform-system', 'platform-public']) {
        const reply = await admit(deleteNamespace(name));
        assert.equal(reply.allowed, false, name);
        assert.equal(reply.status?.code, 403);
        assert.equal(reply.status?.reason, 'Forbidden');
        assert.equal(reply.status?.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      }
      assert.equal((await admit(deleteNamespace('team-a'))).allowed, true);
    });
  });

  test('admission - AlwaysDeny rejects every write in both phases', async () => {
    await withService({ config: { enable: ['AlwaysDeny'] } }, async (admit) => {
      for (const phase of ['mutating', 'validating'] as const) {
        const reply = await admit(createConfigMap('team-a', 'cm', phase));
        assert.equal(reply.allowed, false);
        assert.equal(reply.status?.code, 403);
        assert.equal(reply.status?.message, 'configmaps "cm" is forbidden: admission control is denying all modifications');
      }
    });
  });

  test('admission - disabling NamespaceLifecycle lets writes into missing namespaces through', async () => {
    await withService({ config: { disable: ['NamespaceLifecycle'], enable: ['AlwaysAdmit'] } }, async (admit) => {
      assert.equal((await admit(createConfigMap('nowhere'))).allowed, true);
      assert.equal((await admit(deleteNamespace('default'))).allowed, true);
    });
  });

  test('admission - CertificateApproval asks the authz service about the signer: approve allows, none is 403, no authz is 503', async () => {
    const asked: AuthzAttributes[] = [];
    const authzNc = await nats.connect('authz-stand-in');
    const authz = await startJsonService(authzNc, {
      name: ServiceName.authz,
      version: '0.0.1',
      description: 'fake authz for admission tests',
      endpoints: [
        protoEndpoint<AuthzAttributes, AuthzReply>(Subjects.authzAuthorize, AuthzMessages.attributes, AuthzMessages.reply, (a) => {
          asked.push(a);
          return { decision: a.user.username === 'approver' && a.verb === 'approve' && a.name === 'example.com/*' ? 'Allow' : 'NoOpinion' };
        }),
      ],
    });
    let authzUp = true;
    try {
      await withService({ config: {} }, async (admit) => {
        assert.deepEqual(await admit(approveCsr('approver')), { allowed: true });
        assert.deepEqual(
          asked.map((a) => [a.user.username, a.verb, a.isResourceRequest, a.apiGroup, a.resource, a.name]),
          [
            ['approver', 'approve', true, 'certificates.platform.io', 'signers', 'example.com/foo'],
            ['approver', 'approve', true, 'certificates.platform.io', 'signers', 'example.com/*'],
          ],
        );
        const denied = await admit(approveCsr('jane'));
        assert.equal(denied.allowed, false);
        assert.equal(denied.status?.code, 403);
        assert.equal(denied.status?.message, 'certificatesigningrequests.certificates.platform.io "csr1" is forbidden: user not permitted to approve requests with signerName "example.com/foo"');
        await authz.stop();
        authzUp = false;
        const down = await admit(approveCsr('approver'));
        assert.equal(down.allowed, false, 'an unanswered authorization never admits');
        assert.equal(down.status?.code, 503);
      });
    } finally {
      if (authzUp) await authz.stop();
      await authzNc.close();
    }
  });

  test('admission - the certificate plugins can be disabled', async () => {
    await withService({ config: { disable: ['CertificateApproval'] } }, async (admit) => {
      assert.deepEqual(await admit(approveCsr('jane')), { allowed: true });
    });
  });

  test('admission - unknown plugins and bad plugin configurations fail start-up', async () => {
    const c = await nats.connect('admission-bad');
    await assert.rejects(createAdmissionService({ nc: c, config: { enable: ['Nope'] } }), /unknown admission plugin "Nope"/);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'admission-config-'));
    const file = path.join(dir, 'admission.yaml');
    await writeFile(
      file,
      'apiVersion: apiserver.config.platform.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  configuration:\n    apiVersion: eventratelimit.admission.platform.io/v1alpha1\n    kind: Configuration\n    limits: []\n',
    );
    await assert.rejects(createAdmissionService({ nc: c, config: { enable: ['EventRateLimit'], configFile: file } }), /EventRateLimit/);
    await rm(dir, { recursive: true, force: true });
    await c.close();
  });

  test('admission - a malformed request is a 400 error reply', async () => {
    await withService({ config: {} }, async (admit) => {
      await assert.rejects(admit({ ...createConfigMap('team-a'), phase: 'sideways' as never }), (err: StatusError) => err.code === 400 && /unknown admission phase/.test(err.message));
    });
  });

  test('admission - started before the bucket exists: 503 until the store appears, then namespaces are checked', async () => {
    const bucket = 'late-objects';
    await withService(
      { config: {}, bucket, retryMs: 50 },
      async (admit) => {
        const early = await admit(createConfigMap('team-a'));
        assert.equal(early.allowed, false);
        assert.equal(early.status?.code, 503);
        const late = await new Kvm(nc).create(bucket, { history: 1 });
        await late.put(nsKey('team-a'), nsDoc('team-a', 'Active'));
        assert.equal((await admit(createConfigMap('team-a'))).allowed, true);
        assert.equal((await admit(createConfigMap('nowhere'))).status?.code, 404);
      },
      false,
    );
  });
});
