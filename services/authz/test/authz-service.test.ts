import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { requestAuthorization } from '../../../shared/bus/auth-messages.js';
import type { AuthzAttributes, AuthzReply } from '../../../shared/bus/messages.js';
import type { StatusError } from '../../../shared/api/status.js';
import { createAuthzService } from '../service.js';

const jane: AuthzAttributes = {
  user: { username: 'jane', groups: ['developers', 'system:authenticated'] },
  verb: 'create',
  isResourceRequest: true,
  path: '/api/v1/namespaces/a/configmaps',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'configmaps',
  namespace: 'a',
};
const admin: AuthzAttributes = { ...jane, user: { username: 'root', groups: ['system:masters', 'system:authenticated'] } };
const healthz: AuthzAttributes = { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, verb: 'get', isResourceRequest: false, path: '/healthz' };

describe('authz service', () => {
  let nats: TestNats;
  before(async () => {
    nats = await startTestNats();
  });
  after(async () => {
    await nats.stop();
  });

  async function withModes(modes: string[], fn: (ask: (a: AuthzAttributes) => Promise<AuthzReply>) => Promise<void>) {
    const nc = await nats.connect('authz');
    const client = await nats.connect('gateway');
    const svc = await createAuthzService({ nc, config: { modes }, syncTimeoutMs: 50 });
    try {
      // The bucket these cases run without is never created, so every reply says its RBAC
      // revision is unknown (-1): check that once here and compare the decisions alone.
      await fn(async (a) => {
        const { revision, decidedBy: _decider, ...reply } = await requestAuthorization(client, a);
        assert.equal(revision, -1);
        return reply;
      });
    } finally {
      await svc.stop();
      await nc.close();
      await client.close();
    }
  }

  test('authz - AlwaysAllow allows resource and non-resource requests', async () => {
    await withModes(['AlwaysAllow'], async (ask) => {
      assert.deepEqual(await ask(jane), { decision: 'Allow' });
      assert.deepEqual(await ask(healthz), { decision: 'Allow' });
    });
  });

  test('authz - AlwaysDeny denies with "Everything is forbidden." but system:masters is still allowed', async () => {
    await withModes(['AlwaysDeny'], async (ask) => {
      assert.deepEqual(await ask(jane), { decision: 'Deny', reason: 'Everything is forbidden.' });
      assert.deepEqual(await ask(healthz), { decision: 'Deny', reason: 'Everything is forbidden.' });
      assert.deepEqual(await ask(admin), { decision: 'Allow' });
    });
  });

  test('authz - modes are consulted in order; AlwaysDeny abstains like upstream so a later mode may allow', async () => {
    await withModes(['AlwaysAllow', 'AlwaysDeny'], async (ask) => {
      assert.deepEqual(await ask(jane), { decision: 'Allow' });
    });
    await withModes(['AlwaysDeny', 'AlwaysAllow'], async (ask) => {
      assert.deepEqual(await ask(jane), { decision: 'Allow' });
    });
  });

  test('authz - unknown modes, modes missing their configuration and empty lists fail start-up', async () => {
    const nc = await nats.connect('authz-bad');
    await assert.rejects(createAuthzService({ nc, config: { modes: ['AlwaysAllow', 'Bogus'] } }), /--authorization-mode: unknown mode "Bogus"/);
    await assert.rejects(createAuthzService({ nc, config: { modes: ['ABAC'] } }), /ABAC needs --authorization-policy-file/);
    await assert.rejects(createAuthzService({ nc, config: { modes: [] } }), /at least one mode is required/);
    await nc.close();
  });

  test('authz - malformed attributes are a 400, not a decision', async () => {
    await withModes(['AlwaysAllow'], async (ask) => {
      await assert.rejects(ask({ verb: 'get' } as unknown as AuthzAttributes), (err: StatusError) => err.code === 400);
    });
  });
});
