// Storage started against a NATS whose JetStream is not available yet (a cluster still electing
// its meta leader looks the same to a client): it waits, a log line per attempt, and provisions
// the bucket once JetStream answers; with none by its deadline it fails so that main exits 1.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../../shared/log.js';
import { connectBus } from '../../../shared/bus/connect.js';
import { freePort } from '../../../shared/local/nats-server.js';
import { natsServerBinary } from '../../../shared/local/nats-server-binary.js';
import { JetStreamStartTimeoutError } from '../../../shared/store/wait-for-jetstream.js';
import { createStorageService } from '../service.js';

const NATS = natsServerBinary();

async function natsServer(port: number, jetstreamDir?: string): Promise<ChildProcess> {
  const args = ['-a', '127.0.0.1', '-p', String(port), ...(jetstreamDir ? ['-js', '-sd', jetstreamDir] : [])];
  const child = spawn(NATS, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d) => (log += d));
  for (let i = 0; i < 100 && !log.includes('Server is ready'); i++) await new Promise((r) => setTimeout(r, 100));
  assert.match(log, /Server is ready/, log);
  return child;
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** A logger whose lines the test reads. */
function recordingLogger(): { log: Logger; lines: Array<{ level: number; msg: string; attempt?: number }> } {
  const lines: Array<{ level: number; msg: string; attempt?: number }> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)));
      cb();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

describe('storage start-up', () => {
  const servers: ChildProcess[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const s of servers) await stopServer(s);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('storage - start-up waits for JetStream and provisions the bucket once it answers', async () => {
    const port = await freePort();
    const withoutJetStream = await natsServer(port);
    servers.push(withoutJetStream);
    const nc = await connectBus({ url: `nats://127.0.0.1:${port}`, name: 'storage-wait' });
    const { log, lines } = recordingLogger();
    try {
      const starting = createStorageService({ nc, log, startDeadlineMs: 30_000 });
      // A few attempts against a server without JetStream, then the same port with it.
      await new Promise((r) => setTimeout(r, 1_500));
      const waits = lines.filter((l) => l.msg.includes('not possible yet')).length;
      assert.ok(waits >= 1, `a log line per attempt: ${JSON.stringify(lines)}`);
      await stopServer(withoutJetStream);
      const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-storage-wait-'));
      dirs.push(dir);
      servers.push(await natsServer(port, dir));
      const svc = await starting;
      try {
        const rev = await svc.kv.put('core.configmaps.default.x', '{}');
        assert.ok(rev > 0);
        assert.ok(lines.some((l) => l.msg === 'storage service started'));
      } finally {
        await svc.stop();
      }
    } finally {
      await nc.close();
    }
  });

  test('storage - without JetStream by its deadline, start-up fails (main exits 1 and the restart policy applies)', async () => {
    const port = await freePort();
    servers.push(await natsServer(port));
    const nc = await connectBus({ url: `nats://127.0.0.1:${port}`, name: 'storage-give-up' });
    const { log, lines } = recordingLogger();
    try {
      const t0 = Date.now();
      await assert.rejects(createStorageService({ nc, log, startDeadlineMs: 2_000 }), (err: Error) => {
        assert.ok(err instanceof JetStreamStartTimeoutError, String(err));
        assert.match(err.message, /provision bucket objects: JetStream did not become available within 2 s/);
        return true;
      });
      assert.ok(Date.now() - t0 < 6_000, `gave up after ${Date.now() - t0} ms`);
      const attempts = lines.filter((l) => l.msg.includes('not possible yet')).map((l) => l.attempt);
      assert.ok(attempts.length >= 2, JSON.stringify(lines));
      assert.deepEqual(
        attempts,
        attempts.map((_, i) => i + 1),
        'one line per attempt',
      );
    } finally {
      await nc.close();
    }
  });
});
