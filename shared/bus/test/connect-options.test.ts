import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busOptionsFrom } from '../connect.js';
import { natsOptions, OptionsError, parseOptions } from '../../config/options.js';

describe('bus connect options', () => {
  let dir: string;
  let ca: string;
  let pw: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bus-options-'));
    ca = path.join(dir, 'ca.crt');
    pw = path.join(dir, 'password');
    await writeFile(ca, 'PEM');
    await writeFile(pw, 's3cret\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const from = (argv: string[], env: NodeJS.ProcessEnv = {}) => busOptionsFrom(parseOptions(natsOptions, argv, env));

  test('bus connect options - without flags: the default URL, no TLS, no credentials, the default inbox', () => {
    assert.deepEqual(from([]), { url: 'nats://127.0.0.1:4222' });
  });

  test("bus connect options - a user with a password file (newline dropped), TLS with a CA, replies on the user's inbox", () => {
    assert.deepEqual(from(['--nats-url=nats://a:4222,nats://b:4222', '--nats-user=platform-authz', `--nats-password-file=${pw}`, `--nats-tls-ca-file=${ca}`]), {
      url: 'nats://a:4222,nats://b:4222',
      user: 'platform-authz',
      password: 's3cret',
      tls: { caFile: ca },
      inboxPrefix: '_INBOX.platform-authz',
    });
    // The password from the environment, a client certificate, an inbox prefix of one's own.
    assert.deepEqual(from(['--nats-user=u', `--nats-tls-cert-file=${ca}`, `--nats-tls-key-file=${ca}`, '--nats-inbox-prefix=_INBOX_u'], { PLATFORM_NATS_PASSWORD: 'p' }), {
      url: 'nats://127.0.0.1:4222',
      user: 'u',
      password: 'p',
      tls: { certFile: ca, keyFile: ca },
      inboxPrefix: '_INBOX_u',
    });
  });

  test('bus connect options - settings that cannot work are refused before connecting', () => {
    assert.throws(() => from([`--nats-tls-cert-file=${ca}`]), new OptionsError('--nats-tls-cert-file and --nats-tls-key-file go together'));
    assert.throws(() => from(['--nats-password=x']), /a NATS password needs --nats-user/);
    assert.throws(() => from(['--nats-user=u', '--nats-password=x', `--nats-password-file=${pw}`]), /not both/);
    assert.throws(() => from(['--nats-user=u', `--nats-creds=${ca}`]), /--nats-user or --nats-creds/);
    assert.throws(
      () => from(['--nats-user=u', `--nats-password-file=${dir}/missing`]),
      (err: Error) => err instanceof OptionsError && /--nats-password-file: .*ENOENT/.test(err.message),
    );
    assert.throws(() => from([`--nats-tls-ca-file=${dir}/missing.crt`]), /--nats-tls-ca-file: .*ENOENT/);
  });
});
