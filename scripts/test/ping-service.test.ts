// The exec probe of the NATS-only services (scripts/ping-service.ts) against a real NATS: it
// passes only when the replica on this host answers `$SRV.PING`, not when another replica does,
// and a broker that cannot be reached fails readiness but not liveness.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/nats-core';
import { startJsonService, INSTANCE_HOST_METADATA } from '../../shared/bus/service.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { freePort } from '../../shared/local/nats-server.js';
import { startTestNats, type TestNats } from '../../test/support/nats.js';
import { pingOptionsFromArgs, pingOwnReplica } from '../ping-service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Asynchronous: the replica it pings lives in this process and must keep answering meanwhile.
function runProbe(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/ping-service.ts', ...args], { cwd: root, timeout: 30_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

describe('ping-service', () => {
  let nats: TestNats;
  let nc: NatsConnection;

  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('ping-test');
  });
  after(async () => {
    await nats.stop();
  });

  test('ping-service - passes when the replica on this host answers, fails when only another replica does', async () => {
    // Another pod's replica: same service name, another host.
    const other = await new Svcm(nc).add({ name: ServiceName.authz, version: '0.0.1', queue: ServiceName.authz, metadata: { [INSTANCE_HOST_METADATA]: 'authz-7d9f-elsewhere' } });
    const base = { service: 'authz' as const, bus: { url: nats.url }, timeoutMs: 500, liveness: false };
    const alone = await pingOwnReplica(base);
    assert.equal(alone.ok, false, alone.message);
    assert.match(alone.message, /did not answer .*1 other replica/);
    assert.equal((await pingOwnReplica({ ...base, liveness: true })).ok, false, 'a connected probe fails liveness too when this replica is silent');

    const own = await startJsonService(nc, { name: ServiceName.authz, version: '0.0.1', description: 'test', endpoints: [] });
    const found = await pingOwnReplica(base);
    assert.equal(found.ok, true, found.message);
    assert.equal((await pingOwnReplica({ ...base, hostname: 'authz-7d9f-elsewhere' })).ok, true, 'the other replica is found by its own host name');
    await own.stop();
    await other.stop();
    assert.equal((await pingOwnReplica(base)).ok, false, 'a stopped replica fails');
  });

  test('ping-service - NATS unreachable fails readiness and passes liveness', async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const ready = await pingOwnReplica({ service: 'storage', bus: { url }, timeoutMs: 1_000, liveness: false });
    assert.equal(ready.ok, false);
    assert.match(ready.message, /NATS unreachable/);
    const live = await pingOwnReplica({ service: 'storage', bus: { url }, timeoutMs: 1_000, liveness: true });
    assert.equal(live.ok, true, live.message);
  });

  test("ping-service - reads NATS from the service's own flags, environment and --config file", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ping-service-'));
    try {
      const config = path.join(dir, 'config.yaml');
      const password = path.join(dir, 'storage.password');
      const ca = path.join(dir, 'ca.crt');
      await writeFile(password, 'pw\n');
      await writeFile(ca, 'PEM');
      // The storage service's whole config file: its other keys must not trip the probe.
      await writeFile(config, `nats-url: nats://nats.example:4222\nnats-user: platform-storage\nnats-password-file: ${password}\nnats-tls-ca-file: ${ca}\nreplicas: 3\nbucket: objects\n`);
      assert.deepEqual(pingOptionsFromArgs(['storage', '--liveness', '--timeout=2s', `--config=${config}`], {}), {
        service: 'storage',
        bus: { url: 'nats://nats.example:4222', user: 'platform-storage', password: 'pw', tls: { caFile: ca }, inboxPrefix: '_INBOX.platform-storage' },
        timeoutMs: 2_000,
        liveness: true,
      });
      assert.throws(() => pingOptionsFromArgs(['authn', `--config=${config}`], {}), /unknown option replicas/, "another service's file is refused, as the service would");
      assert.equal(pingOptionsFromArgs(['admission'], { PLATFORM_NATS_URL: 'nats://env:4222' }).bus.url, 'nats://env:4222');
      assert.throws(() => pingOptionsFromArgs(['gateway'], {}), /expected a service name/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('ping-service - as a command: exit 0 for an answering replica, 1 for none, 2 for a bad service', async () => {
    const svc = await startJsonService(nc, { name: ServiceName.admission, version: '0.0.1', description: 'test', endpoints: [] });
    try {
      const ok = await runProbe(['admission', `--nats-url=${nats.url}`]);
      assert.equal(ok.code, 0, ok.out);
      assert.match(ok.out, /platform-admission on .* answered/);
    } finally {
      await svc.stop();
    }
    const none = await runProbe(['storage', '--timeout=300ms'], { PLATFORM_NATS_URL: nats.url });
    assert.equal(none.code, 1, none.out);
    assert.equal((await runProbe(['nope'])).code, 2);
  });
});
