// What the soak (bench/soak.ts) reads of its nats-server: the monitoring endpoints' figures, the
// message block files on disk, and a Go heap profile.

import { readdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What nats-server says it holds: its own memory figure, JetStream's, its connections and subscriptions. */
export async function natsView(monitorPort: number, storeDir: string): Promise<string> {
  const get = async (p: string) => (await fetch(`http://127.0.0.1:${monitorPort}${p}`)).json() as Promise<Record<string, number>>;
  const [v, j] = await Promise.all([get('/varz'), get('/jsz')]);
  const mib = (n: number | undefined) => ((n ?? 0) / 2 ** 20).toFixed(0);
  return `mem ${mib(v.mem)} MiB, JetStream memory ${mib(j.memory)} MiB storage ${mib(j.storage)} MiB messages ${j.messages}, connections ${v.connections}, subscriptions ${v.subscriptions}, slow consumers ${v.slow_consumers}; ${await blockFiles(storeDir)}`;
}

/**
 * The message block files of each stream on disk: nats-server (2.9) loads a whole block into
 * memory to read one message of it (a compare-and-swap write reads the key's last message), so
 * the blocks kept alive by a few live messages are what its cache can grow to.
 */
async function blockFiles(root: string): Promise<string> {
  const out: string[] = [];
  const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.blk'));
  const byStream = new Map<string, { n: number; bytes: number }>();
  for (const f of files) {
    const parts = f.split(path.sep);
    const stream = parts[parts.indexOf('streams') + 1] ?? '?';
    const size = await stat(path.join(root, f)).then(
      (s) => s.size,
      () => 0,
    );
    const e = byStream.get(stream) ?? { n: 0, bytes: 0 };
    e.n++;
    e.bytes += size;
    byStream.set(stream, e);
  }
  for (const [stream, e] of byStream) out.push(`${stream} ${e.n} blocks ${(e.bytes / 2 ** 20).toFixed(0)} MiB`);
  return `block files: ${out.join(', ') || 'none'}`;
}

/** nats-server's Go heap profile (go tool pprof -top <file>), kept after the run. */
export async function natsHeapProfile(profPort: number, label: string): Promise<string> {
  const file = path.join(os.tmpdir(), `soak-nats-heap-${label}.pb.gz`);
  await writeFile(file, Buffer.from(await (await fetch(`http://127.0.0.1:${profPort}/debug/pprof/heap`)).arrayBuffer()));
  return file;
}
