// Spawns a local nats-server with JetStream for `npm start` and the test suites. The binary comes
// from PATH (`.ci/run` installs Debian's package). max_payload is raised because objects may be
// 1.5 MB and request bodies 3 MiB.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export const NATS_MAX_PAYLOAD = 8 * 1024 * 1024;

export interface LocalNats {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export function natsConfig(port: number, storeDir: string, host = '127.0.0.1'): string {
  return [
    `listen: "${host}:${port}"`,
    `max_payload: ${NATS_MAX_PAYLOAD}`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(storeDir)}`,
    `}`,
    '',
  ].join('\n');
}

async function waitForPort(port: number, deadlineMs: number, child: ChildProcess): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not listen on ${port} in time`);
}

/**
 * Starts nats-server with JetStream storing under `dataDir`. `detached` puts it in its own process
 * group, so a terminal's Ctrl-C reaches only its supervisor, which stops it last.
 */
export async function startLocalNats(dataDir: string, opts: { port?: number; binary?: string; log?: (line: string) => void; detached?: boolean } = {}): Promise<LocalNats> {
  const port = opts.port ?? (await freePort());
  await mkdir(dataDir, { recursive: true });
  const conf = path.join(dataDir, 'nats-server.conf');
  await writeFile(conf, natsConfig(port, path.join(dataDir, 'jetstream')));
  const child = spawn(opts.binary ?? process.env.NATS_SERVER_BIN ?? 'nats-server', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false });
  const spawnError = new Promise<never>((_, reject) => child.once('error', (e) => reject(new Error(`cannot start nats-server: ${e.message} (install it: apt-get install -y nats-server)`))));
  const onData = (b: Buffer) => opts.log?.(b.toString());
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  await Promise.race([waitForPort(port, 15_000, child), spawnError]);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
