// What NATS permissions cannot forbid on the bucket's stream, the storage service removes
// (services/storage/consumer-rules.ts): an attacker holding a reader's NATS credentials (authn's
// here) makes pull consumers, consumers that deliver to a service's request subject, consumers
// pointed at another service's inbox, and far more consumers than its share. Storage runs as users
// run it (services/storage/main.ts with its own credentials, on a nats-server secured as `npm start`
// secures it); a gateway's watch made through the gateway's credentials keeps its consumer and
// keeps receiving writes throughout.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AckPolicy, DeliverPolicy, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { DEFAULT_CONSUMER_RULES } from '../../services/storage/consumer-rules.js';
import { NatsUser } from '../../shared/bus/permissions.js';
import { freePort } from '../../shared/local/nats-server.js';
import { startSecureTestNats, type SecureTestNats } from '../support/nats.js';
import { cleanEnv, spawnProcess, type Proc } from '../support/processes.js';
import { eventually } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STREAM = 'KV_objects';
const { perOwner, unboundAllowance, unboundGraceMs } = DEFAULT_CONSUMER_RULES;

describe('nats consumer warden', { timeout: 180_000 }, () => {
  let nats: SecureTestNats;
  let storage: Proc;
  let metricsUrl: string;
  let attacker: NatsConnection;
  let jsm: JetStreamManager;
  /** The test's own look at the stream (with storage's credentials: readers may not list consumers). */
  let observer: NatsConnection;
  let observed: JetStreamManager;

  const consumers = async () => {
    const out: Array<{ name: string; deliver?: string; bound: boolean }> = [];
    for await (const c of observed.consumers.list(STREAM)) out.push({ name: c.name, ...(c.config.deliver_subject ? { deliver: c.config.deliver_subject } : {}), bound: c.push_bound === true });
    return out;
  };
  // An attacker's consumers outlive their subscribers: nats-server itself would remove an ephemeral
  // consumer 5 s after its last subscriber went, unless it is told to wait an hour.
  const push = (name: string, deliver: string) =>
    jsm.consumers.add(STREAM, { name, deliver_subject: deliver, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.New, inactive_threshold: nanos(3_600_000) });

  before(async () => {
    nats = await startSecureTestNats();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    storage = spawnProcess(['--import', 'tsx', 'services/storage/main.ts', ...nats.flags('storage'), '--log-level=warn', `--metrics-bind-address=127.0.0.1:${metricsPort}`], {
      cwd: root,
      env: cleanEnv(),
    });
    await eventually(
      'storage serves its metrics',
      async () => {
        const res = await fetch(metricsUrl).catch(() => undefined);
        assert.equal(res?.status, 200);
      },
      { timeoutMs: 60_000 },
    );
    attacker = await nats.connectAs('authn', 'attacker');
    // The attacker's own client, as a reader's is: it may not ask for account info.
    jsm = await jetstreamManager(attacker, { checkAPI: false });
    observer = await nats.connectAs('storage', 'observer');
    observed = await jetstreamManager(observer, { checkAPI: false });
    await eventually('storage made the bucket', () => observed.streams.info(STREAM), { timeoutMs: 60_000, intervalMs: 200 });
  });

  after(async () => {
    await attacker?.close();
    await observer?.close();
    storage?.child.kill('SIGTERM');
    await storage?.exited;
    await nats?.stop();
  });

  test('consumer warden - a pull consumer and one delivering outside every inbox are removed at once', async () => {
    await jsm.consumers.add(STREAM, { name: 'pull-attack', ack_policy: AckPolicy.Explicit });
    await push('to-storage-create', 'platform.v1.storage.create');
    await eventually(
      'both removed',
      async () =>
        assert.deepEqual(
          (await consumers()).filter((c) => c.name === 'pull-attack' || c.name === 'to-storage-create'),
          [],
        ),
      { timeoutMs: 5_000 },
    );
    // The removals are logged by the storage process; its lines may reach us after the removal shows.
    await eventually('both removals logged', () => {
      assert.match(storage.output(), /removed a consumer on the bucket: a pull consumer/);
      assert.match(storage.output(), /delivers to platform\.v1\.storage\.create, outside every inbox/);
    });
  });

  test("consumer warden - consumers pointed at another service's inbox go (the newest at once, the rest after the grace); the gateway's watch is untouched", async () => {
    const gw = await nats.connectAs('gateway', 'gateway-watch');
    const kv: KV = await new Kvm(gw).open('objects');
    const seen: string[] = [];
    const watch = await kv.watch({ key: 'warden.>' });
    void (async () => {
      for await (const e of watch) if (e.operation === 'PUT') seen.push(e.key);
    })();
    const writer = await nats.connectAs('storage', 'writer');
    const writes: KV = await new Kvm(writer).open('objects');
    try {
      const fakes = unboundAllowance + 6;
      for (let i = 0; i < fakes; i++) await push(`fake-${i}`, `_INBOX.${NatsUser.gateway}.guess${i}`);
      // Beyond the allowance, the newest go at once.
      await eventually('the allowance left', async () => assert.equal((await consumers()).filter((c) => c.name.startsWith('fake-')).length, unboundAllowance), { timeoutMs: 5_000 });
      // The rest once the grace is over.
      await eventually('none left', async () => assert.equal((await consumers()).filter((c) => c.name.startsWith('fake-')).length, 0), { timeoutMs: unboundGraceMs + 10_000, intervalMs: 500 });
      await writes.put('warden.a', 'x');
      await eventually('the watch saw the write', () => assert.deepEqual(seen, ['warden.a']), { timeoutMs: 5_000 });
      const mine = (await consumers()).filter((c) => c.deliver?.startsWith(`_INBOX.${NatsUser.gateway}.`));
      assert.equal(mine.length, 1, "the gateway's watch kept its consumer");
      assert.equal(mine[0]!.bound, true);
    } finally {
      watch.stop();
      await gw.close();
      await writer.close();
    }
  });

  test("consumer warden - bound consumers beyond a user's share are removed, and the share is per user", async () => {
    // JetStream counts a consumer bound when a subscription on exactly its delivery subject exists.
    const subs = Array.from({ length: perOwner + 10 }, (_, i) => attacker.subscribe(`_INBOX.${NatsUser.authn}.attack.${i}`));
    await attacker.flush();
    try {
      for (let i = 0; i < subs.length; i++) await push(`mine-${i}`, `_INBOX.${NatsUser.authn}.attack.${i}`);
      await eventually(
        'the share left',
        async () => {
          const left = (await consumers()).filter((c) => c.name.startsWith('mine-'));
          assert.equal(left.length, perOwner);
          // The newest went.
          assert.ok(!left.some((c) => c.name === `mine-${perOwner + 9}`));
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      await eventually('the removal logged', () => assert.match(storage.output(), new RegExp(`${NatsUser.authn} holds more than ${perOwner} consumers`)));
    } finally {
      for (const sub of subs) sub.unsubscribe();
    }
    const metrics = await (await fetch(metricsUrl)).text();
    for (const rule of ['pull', 'outside-inboxes', 'unbound', 'unbound-excess', 'over-share']) {
      assert.match(metrics, new RegExp(`platform_storage_bucket_consumers_removed_total\\{rule="${rule}"\\} [1-9]`), rule);
    }
    // Unsubscribed, the attacker's consumers serve nobody: the next consumer announced has them judged,
    // and they go (beyond the allowance at once, the rest after the grace).
    await push('trigger', `_INBOX.${NatsUser.authn}.nobody`);
    await eventually('none left', async () => assert.equal((await consumers()).filter((c) => c.name.startsWith('mine-') || c.name === 'trigger').length, 0), {
      timeoutMs: unboundGraceMs + 15_000,
      intervalMs: 500,
    });
  });
});
