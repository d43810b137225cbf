import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { requestAuthentication } from '../../../shared/bus/auth-messages.js';
import type { AuthnReply, AuthnRequest } from '../../../shared/bus/messages.js';
import { createAuthnService, type AuthnService } from '../service.js';

const ADMIN_TOKEN = 'admin-token-0123456789';
const JANE_TOKEN = 'jane-token-abcdefghij';
const TOKENS = `${ADMIN_TOKEN},platform-admin,admin-uid,"system:masters"\n${JANE_TOKEN},jane,jane-uid,"developers,qa"\nplain-token-xyz,sam,,\n`;

describe('authn service', () => {
  let nats: TestNats;
  let dir: string;
  let tokenFile: string;

  before(async () => {
    nats = await startTestNats();
    dir = await mkdtemp(path.join(os.tmpdir(), 'authn-test-'));
    tokenFile = path.join(dir, 'tokens.csv');
    await writeFile(tokenFile, TOKENS);
  });
  after(async () => {
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  });

  // Each case starts its own service on its own connection and stops it, so services with
  // different configurations never answer each other's requests.
  async function withService(config: Parameters<typeof createAuthnService>[0]['config'], fn: (ask: (req: AuthnRequest) => Promise<AuthnReply>) => Promise<void>) {
    const nc: NatsConnection = await nats.connect('authn');
    const client = await nats.connect('gateway');
    const svc: AuthnService = await createAuthnService({ nc, config });
    try {
      await fn((req) => requestAuthentication(client, req));
    } finally {
      await svc.stop();
      await nc.close();
      await client.close();
    }
  }

  test('authn - a static token maps to its user, uid and groups plus system:authenticated', async () => {
    await withService({ tokenAuthFile: tokenFile }, async (ask) => {
      assert.deepEqual(await ask({ token: JANE_TOKEN }), { authenticated: true, user: { username: 'jane', uid: 'jane-uid', groups: ['developers', 'qa', 'system:authenticated'] } });
      assert.deepEqual(await ask({ token: ADMIN_TOKEN }), {
        authenticated: true,
        user: { username: 'platform-admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] },
      });
      assert.deepEqual(await ask({ token: 'plain-token-xyz' }), { authenticated: true, user: { username: 'sam', groups: ['system:authenticated'] } });
    });
  });

  test('authn - an invalid token is rejected and never becomes anonymous', async () => {
    for (const anonymousAuth of [true, false]) {
      await withService({ tokenAuthFile: tokenFile, anonymousAuth }, async (ask) => {
        assert.deepEqual(await ask({ token: 'not-a-token' }), { authenticated: false, error: 'invalid bearer token' });
        assert.deepEqual(await ask({ token: `${JANE_TOKEN}x` }), { authenticated: false, error: 'invalid bearer token' });
      });
    }
  });

  test('authn - a token is rejected even when no token authenticator is configured', async () => {
    await withService({}, async (ask) => {
      assert.deepEqual(await ask({ token: JANE_TOKEN }), { authenticated: false, error: 'invalid bearer token' });
    });
  });

  test('authn - no credential is system:anonymous when anonymous auth is on (the default)', async () => {
    await withService({ tokenAuthFile: tokenFile }, async (ask) => {
      const anon = { authenticated: true, user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } };
      assert.deepEqual(await ask({}), anon);
      // An empty token carries no credential. The gateway's header rule (shared/api/bearer-token.ts)
      // never sends white space; a token that is only white space is presented and refused.
      assert.deepEqual(await ask({ token: '' }), anon);
      assert.deepEqual(await ask({ token: '   ' }), { authenticated: false, error: 'invalid bearer token' });
    });
  });

  test('authn - no credential is unauthenticated without an error when anonymous auth is off', async () => {
    await withService({ tokenAuthFile: tokenFile, anonymousAuth: false }, async (ask) => {
      assert.deepEqual(await ask({}), { authenticated: false });
    });
  });

  test('authn - start-up fails on a malformed or missing token file', async () => {
    const bad = path.join(dir, 'bad.csv');
    await writeFile(bad, `${ADMIN_TOKEN},admin,1\nsecond-token,bob\n`);
    const nc = await nats.connect('authn-bad');
    await assert.rejects(createAuthnService({ nc, config: { tokenAuthFile: bad } }), (err: Error) => {
      assert.match(err.message, /bad\.csv: line 2: expected at least 3 columns/);
      assert.ok(!err.message.includes(ADMIN_TOKEN));
      return true;
    });
    await assert.rejects(createAuthnService({ nc, config: { tokenAuthFile: path.join(dir, 'missing.csv') } }), /--token-auth-file: cannot read/);
    await nc.close();
  });
});
