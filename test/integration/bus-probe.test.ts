// A connection into a partition is moved at its first unanswered request, not when pings catch
// it 10-15 s later. Against a real nats-server, through two TCP relays that can go silent on the
// connections they carry (what a node cut off by a partition looks like to its clients: no reset,
// no answer) while still relaying new ones.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../support/nats.js';
import { timedRejection } from '../support/timing.js';
import { busRequest } from '../../shared/bus/client.js';
import { BUS_CONNECT_TIMEOUT_MS, connectBus } from '../../shared/bus/connect.js';
import { Subjects } from '../../shared/bus/subjects.js';

/**
 * A relay to `target` whose current connections can be made silent (new ones are relayed); those
 * accepted before `silentUntil` (ms since the epoch) are silent from the start.
 */
async function relay(target: URL, silentUntil = 0): Promise<{ url: string; carrying(): number; silence(): void; close(): Promise<void> }> {
  const pairs = new Set<{ silent: boolean; a: net.Socket; b: net.Socket }>();
  const server = net.createServer((a) => {
    const b = net.connect(Number(target.port), target.hostname);
    const pair = { silent: Date.now() < silentUntil, a, b };
    pairs.add(pair);
    a.on('data', (d) => void (pair.silent || b.write(d)));
    b.on('data', (d) => void (pair.silent || a.write(d)));
    const end = () => {
      pairs.delete(pair);
      a.destroy();
      b.destroy();
    };
    a.on('close', end).on('error', end);
    b.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `nats://127.0.0.1:${port}`,
    carrying: () => [...pairs].filter((p) => !p.silent).length,
    silence: () => {
      for (const p of pairs) p.silent = true;
    },
    close: async () => {
      for (const p of pairs) p.a.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('bus requests into a partition', () => {
  let nats: TestNats;
  let responder: NatsConnection;
  const relays: Awaited<ReturnType<typeof relay>>[] = [];
  const clients: NatsConnection[] = [];
  before(async () => {
    nats = await startTestNats();
    // Answers storage creates and authz questions; never answers storage updates (a stuck replica).
    responder = await nats.connect('responder');
    responder.subscribe(Subjects.storageCreate, { callback: (_, m) => void m.respond('{}') });
    responder.subscribe(Subjects.authzAuthorize, { callback: (_, m) => void m.respond('{"decision":"Allow"}') });
    responder.subscribe(Subjects.storageUpdate, { callback: () => undefined });
    await responder.flush();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(relays.map((r) => r.close()));
    await nats?.stop();
  });

  const target = () => new URL(nats.url.split(',')[0]!.replace(/^nats:/, 'http:'));

  /** A client connected through two relays (nats.js picks one), and the status events it sees. */
  const client = async () => {
    const pair = [await relay(target()), await relay(target())];
    relays.push(...pair);
    const nc = await connectBus({ url: pair.map((r) => r.url).join(','), name: 'client' });
    clients.push(nc);
    const events: string[] = [];
    void (async () => {
      for await (const s of nc.status()) events.push(s.type);
    })();
    assert.equal(await busRequest(nc, Subjects.storageCreate, {}, 1_000).then(() => 'answered'), 'answered');
    return { nc, events, silence: () => pair.forEach((r) => r.silence()), carrying: () => pair.reduce((n, r) => n + r.carrying(), 0) };
  };

  it('the first unanswered request moves the connection; the next is answered within seconds, not after the pings notice', async () => {
    const c = await client();
    c.silence();
    const { err, ms } = await timedRejection(busRequest(c.nc, Subjects.storageCreate, {}, 1_000));
    assert.equal(err.status.code, 504);
    assert.ok(ms < 1_500, `${ms} ms`);
    const start = performance.now();
    // The probe (a ping with a second to answer) found the connection silent and moved it.
    for (;;) {
      const answered = await busRequest(c.nc, Subjects.storageCreate, {}, 1_000).then(
        () => true,
        () => false,
      );
      if (answered) break;
      assert.ok(performance.now() - start < 5_000, `still unanswered after ${Math.round(performance.now() - start)} ms; status events ${c.events.join(',')}`);
    }
    assert.ok(c.events.includes('forceReconnect') && c.events.includes('reconnect'), c.events.join(','));
    assert.equal(c.carrying(), 1, 'the client is on a live connection of its own');
  });

  it('an idempotent request sent into the silence is sent again on the moved connection and answered within its deadline', async () => {
    const c = await client();
    c.silence();
    const start = performance.now();
    const reply = await busRequest<{ decision: string }>(c.nc, Subjects.authzAuthorize, {}, 1_000);
    assert.equal(reply.decision, 'Allow');
    const ms = performance.now() - start;
    // One timeout, one probe, one reconnect, one answer.
    assert.ok(ms < 4_000, `${Math.round(ms)} ms`);
  });

  it('a silent responder on a live connection only costs a ping: the connection stays where it is', async () => {
    const c = await client();
    const { err } = await timedRejection(busRequest(c.nc, Subjects.storageUpdate, {}, 500));
    assert.equal(err.status.code, 504);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.deepEqual(
      c.events.filter((e) => /connect/i.test(e)),
      [],
    );
    assert.equal(await busRequest(c.nc, Subjects.storageCreate, {}, 1_000).then(() => 'answered'), 'answered');
  });

  it('a first connection slower than one attempt (a node or machine busy starting) is tried again until it succeeds, with a warning each time', async () => {
    const slow = await relay(target(), Date.now() + BUS_CONNECT_TIMEOUT_MS + 500);
    relays.push(slow);
    const warnings: unknown[] = [];
    const start = performance.now();
    const nc = await connectBus({ url: slow.url, name: 'slow-start', log: { warn: (o: unknown) => void warnings.push(o) } });
    clients.push(nc);
    assert.ok(performance.now() - start > BUS_CONNECT_TIMEOUT_MS, 'the first attempt timed out');
    assert.ok(warnings.length >= 1, 'each retry is logged');
    assert.equal(await busRequest(nc, Subjects.storageCreate, {}, 1_000).then(() => 'answered'), 'answered');
  });

  it("a first connection gives up after its deadline, with the last attempt's error", async () => {
    const dead = await relay(target(), Date.now() + 60_000);
    relays.push(dead);
    const start = performance.now();
    await assert.rejects(connectBus({ url: dead.url, name: 'never', firstConnectDeadlineMs: 2_000 }), /timeout|connection/i);
    assert.ok(performance.now() - start < 2 * BUS_CONNECT_TIMEOUT_MS + 2_000);
  });
});
