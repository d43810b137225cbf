// The authorization block printed for an existing NATS: the users and permissions npm start and
// the Helm chart's bundled NATS run with, passwords read from the server's environment.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { natsAuthorizationBlock } from '../nats-authorization.js';
import { findNatsServer } from '../../shared/local/nats-server-binary.js';

const natsServer = findNatsServer();

test('nats-authorization - one entry per service user, passwords from the environment, inboxes following the user names', () => {
  const block = natsAuthorizationBlock({ bucket: 'things', names: { gateway: 'gw' } });
  const users = [...block.matchAll(/\{user: "([^"]+)", password: \$(NATS_PASSWORD_[A-Z]+), permissions: (\{.*\})\}$/gm)].map((m) => ({ user: m[1], env: m[2], p: JSON.parse(m[3]!) }));
  assert.deepEqual(
    users.map((u) => `${u.user} ${u.env}`),
    ['platform-storage NATS_PASSWORD_STORAGE', 'platform-authn NATS_PASSWORD_AUTHN', 'platform-authz NATS_PASSWORD_AUTHZ', 'platform-admission NATS_PASSWORD_ADMISSION', 'gw NATS_PASSWORD_GATEWAY'],
  );
  assert.ok(users[0]!.p.publish.allow.includes('$KV.things.>'));
  assert.deepEqual(users[4]!.p.subscribe.allow, ['platform.v1.admission.interestchanged', '_INBOX.gw.>']);
  assert.match(natsAuthorizationBlock({ monitor: true }), /user: "platform-monitor", password: \$NATS_PASSWORD_MONITOR/);
});

test('nats-authorization - nats-server reads the block', { skip: natsServer ? false : 'nats-server not installed' }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nats-authorization-'));
  try {
    const file = path.join(dir, 'nats.conf');
    await writeFile(file, `listen: 127.0.0.1:4222\n${natsAuthorizationBlock()}`);
    const env = { ...process.env, NATS_PASSWORD_STORAGE: 'a', NATS_PASSWORD_AUTHN: 'b', NATS_PASSWORD_AUTHZ: 'c', NATS_PASSWORD_ADMISSION: 'd', NATS_PASSWORD_GATEWAY: 'e' };
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(natsServer!, ['-c', file, '-t'], { env }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: stdout + stderr })),
    );
    assert.equal(r.code, 0, r.out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
