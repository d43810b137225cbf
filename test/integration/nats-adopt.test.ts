// A data directory written before JetStream had an account of its own keeps its objects: the
// bucket's stream moves from nats-server's global account into the store account at start.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { startLocalNats } from '../../shared/local/nats-server.js';
import { NATS_USER_ROLES, NatsUser, natsPermissions } from '../../shared/bus/permissions.js';

test('local NATS - a bucket from before the store account keeps its entries', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-adopt-'));
  try {
    // As earlier versions ran it: no accounts, so JetStream keeps the bucket in `$G`.
    const before = await startLocalNats(dir);
    const nc = await connect({ servers: before.url });
    const kv = await new Kvm(nc).create('objects', { history: 1 });
    await kv.put('core.configmaps.default.kept', '{"kept":true}');
    await nc.close();
    await before.stop();

    const permissions = natsPermissions('objects');
    const users = NATS_USER_ROLES.map((role) => ({ user: NatsUser[role], password: `pw-${role}`, permissions: permissions[role] }));
    const after = await startLocalNats(dir, { users, bucket: 'objects' });
    try {
      const reader = await connect({ servers: after.url, user: NatsUser.authn, pass: 'pw-authn', inboxPrefix: `_INBOX.${NatsUser.authn}` });
      const entry = await (await new Kvm(reader).open('objects')).get('core.configmaps.default.kept');
      assert.equal(entry?.string(), '{"kept":true}');
      await reader.close();
    } finally {
      await after.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
