// `--service-account-key-file` defaults to the serving key (`--tls-private-key-file`) when that is an
// RSA or ECDSA key, as the spec's flag table and upstream say: the authn entry point started with
// only the serving key accepts a service-account token signed by it.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../../../test/support/nats.js';
import { cleanEnv, exitWithin, spawnProcess, tail, type Proc } from '../../../test/support/processes.js';
import { requestAuthentication } from '../../../shared/bus/auth-messages.js';
import type { AuthnReply } from '../../../shared/bus/messages.js';
import { ServiceName } from '../../../shared/bus/subjects.js';
import { signLegacyServiceAccountToken } from '../../../shared/serviceaccount/tokens.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SUBJECT = { namespace: 'team-a', serviceAccountName: 'builder', serviceAccountUid: '7f1c0de0-0000-4000-8000-000000000001', secretName: 'builder-token' };

describe('authn entry point - the serving key verifies service-account tokens by default', { timeout: 120_000 }, () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let dir: string;
  const serving = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const files: Record<string, string> = {};

  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('serving-key-test');
    dir = await mkdtemp(path.join(os.tmpdir(), 'authn-serving-key-'));
    const write = async (name: string, pem: string) => writeFile((files[name] = path.join(dir, name)), pem);
    await write('serving.key', serving.privateKey.export({ type: 'sec1', format: 'pem' }) as string);
    await write('other.pub', other.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    await write('ed25519.key', generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  });
  after(async () => {
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts `services/authn/main.ts` with `flags`, asks it about a token signed by `key`, stops it. */
  async function authenticate(flags: string[], key: KeyObject): Promise<{ reply: AuthnReply; output: string }> {
    const proc: Proc = spawnProcess(['--import', 'tsx', 'services/authn/main.ts', `--nats-url=${nats.url}`, '--service-account-lookup=false', ...flags], { cwd: root, env: cleanEnv() });
    try {
      const until = Date.now() + 30_000;
      for (;;) {
        if (proc.child.exitCode !== null) throw new Error(`authn exited ${proc.child.exitCode}:\n${tail(proc.output())}`);
        try {
          await nc.request(`$SRV.PING.${ServiceName.authn}`, undefined, { timeout: 500 });
          break;
        } catch (err) {
          if (Date.now() > until) throw err;
        }
      }
      const token = await signLegacyServiceAccountToken(key, SUBJECT);
      const reply = await requestAuthentication(nc, { token });
      return { reply, output: proc.output() };
    } finally {
      proc.child.kill('SIGTERM');
      await exitWithin(proc, 5_000);
    }
  }

  test('serving key - with only --tls-private-key-file a token signed by the serving key authenticates; one by another key does not', async () => {
    const { reply } = await authenticate([`--tls-private-key-file=${files['serving.key']}`], serving.privateKey);
    assert.equal(reply.authenticated, true, JSON.stringify(reply));
    assert.equal(reply.user?.username, 'system:serviceaccount:team-a:builder');
    assert.deepEqual(reply.user?.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
    const stranger = await authenticate([`--tls-private-key-file=${files['serving.key']}`], other.privateKey);
    assert.equal(stranger.reply.authenticated, false);
  });

  test('serving key - an explicit --service-account-key-file replaces it', async () => {
    const { reply } = await authenticate([`--tls-private-key-file=${files['serving.key']}`, `--service-account-key-file=${files['other.pub']}`], serving.privateKey);
    assert.equal(reply.authenticated, false);
    const byOther = await authenticate([`--tls-private-key-file=${files['serving.key']}`, `--service-account-key-file=${files['other.pub']}`], other.privateKey);
    assert.equal(byOther.reply.authenticated, true);
  });

  test('serving key - one that is no RSA or ECDSA key is skipped with upstream warning, and the service still starts', async () => {
    const { reply, output } = await authenticate([`--tls-private-key-file=${files['ed25519.key']}`], serving.privateKey);
    assert.equal(reply.authenticated, false);
    assert.match(output, /No TLS key provided, service account token authentication disabled/);
  });
});
