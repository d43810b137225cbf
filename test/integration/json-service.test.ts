// A JSON service in a queue group, against a real nats-server: a stopping replica answers the
// requests it already took and the next ones go to the replica that stays (a rolling restart
// loses nothing).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/nats-core';
import { startTestNats, type TestNats } from '../support/nats.js';
import { busRequest } from '../../shared/bus/client.js';
import { jsonEndpoint, startJsonService } from '../../shared/bus/service.js';
import { Subjects } from '../../shared/bus/subjects.js';

describe('startJsonService', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  before(async () => {
    nats = await startTestNats();
    nc = await nats.connect('client');
  });
  after(async () => nats?.stop());

  /** A replica whose handler answers after `delay` ms, or once `delay` resolves. */
  const replica = async (name: string, delay: number | Promise<void>, answered: string[]) => {
    const conn = await nats.connect(name);
    const service = await startJsonService(conn, {
      name: 'platform-echo',
      version: '0.0.1',
      description: 'echo',
      endpoints: [
        jsonEndpoint<{ n: number }, { n: number; by: string }>('platform.echo.call', async (req) => {
          await (typeof delay === 'number' ? new Promise((r) => setTimeout(r, delay)) : delay);
          answered.push(`${name}:${req.n}`);
          return { n: req.n, by: name };
        }),
      ],
    });
    return { conn, service };
  };

  it('stop() waits for the requests taken, then the other replica answers', async () => {
    const answered: string[] = [];
    const slow = await replica('slow', 600, answered);
    // Only the slow replica exists: these requests are all its.
    const taken = [1, 2, 3].map((n) => busRequest<{ by: string }>(nc, 'platform.echo.call', { n }, 5_000));
    await new Promise((r) => setTimeout(r, 50));
    const fast = await replica('fast', 0, answered);
    const stopped = slow.service.stop();
    // Sent while the slow one still answers what it took (600 ms each) but no longer takes more:
    // the fast one answers. Its unsubscription has to reach the server first.
    await new Promise((r) => setTimeout(r, 150));
    const later = await busRequest<{ by: string }>(nc, 'platform.echo.call', { n: 4 }, 5_000);
    await stopped;
    await slow.conn.drain();
    const replies = await Promise.all(taken);
    assert.deepEqual(
      replies.map((r) => r.by),
      ['slow', 'slow', 'slow'],
    );
    assert.equal(later.by, 'fast');
    assert.deepEqual(answered.sort(), ['fast:4', 'slow:1', 'slow:2', 'slow:3']);
    await fast.service.stop();
  });

  it('stop() gives up on a request that outlives the grace period', async () => {
    // A handler that never finishes by itself: released at the end, as a timer of its own would
    // keep this file's process alive after its tests.
    let release!: () => void;
    const hung = await replica('hung', new Promise<void>((r) => (release = r)), []);
    const pending = busRequest(nc, 'platform.echo.call', { n: 1 }, 2_000).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await hung.service.stop(200);
    // The handler is still waiting; a machine busy with the rest of the suite may be slow to
    // run the 200 ms timer, so the bound only tells giving up from waiting the handler out.
    assert.ok(Date.now() - started < 10_000, 'stop returned after the grace period');
    await hung.conn.close();
    assert.ok((await pending) instanceof Error);
    release();
  });

  it('a request left unanswered by a replica that died is sent once more when idempotent, never when a write', async () => {
    const seen: string[] = [];
    const replicaOf = async (name: string, hang: boolean) => {
      const conn = await nats.connect(name);
      const handler = (subject: string) =>
        jsonEndpoint<{ n: number }, { by: string }>(subject, async () => {
          seen.push(`${name}:${subject}`);
          if (hang) await new Promise(() => undefined);
          return { by: name };
        });
      await startJsonService(conn, { name: 'platform-storage', version: '0.0.1', description: 'fake storage', endpoints: [handler(Subjects.storageGet), handler(Subjects.storageCreate)] });
      return conn;
    };
    const dying = await replicaOf('dying', true);
    const get = busRequest<{ by: string }>(nc, Subjects.storageGet, { n: 1 }, 500);
    const create = busRequest<{ by: string }>(nc, Subjects.storageCreate, { n: 2 }, 500).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 100));
    // Killed mid-request: its connection goes without answering; another replica is up.
    await dying.close();
    const healthy = await replicaOf('healthy', false);
    assert.equal((await get).by, 'healthy');
    const refused = await create;
    assert.ok(refused instanceof Error && /did not reply/.test(refused.message), String(refused));
    assert.deepEqual(seen.sort(), [`dying:${Subjects.storageCreate}`, `dying:${Subjects.storageGet}`, `healthy:${Subjects.storageGet}`]);
    await healthy.close();
  });
});
