// The test harness's NATS in a container (testcontainers) whenever a Docker engine answers and
// already holds the image. Nothing is ever pulled: these machines reach no registry, so an image
// that is not local (scripts/containers.sh builds stand-ins under the official names) means the
// local nats-server instead, with a one-line note, and never a failed test. Both run the same
// configuration; with the stand-in (Debian's nats-server 2.9.10) the same server too, and the
// container path is no slower (measured: the same 63 s for the bus, crud, change-log and
// feed-restart suites either way).
//
//   PLATFORM_TEST_NATS=auto (default)   a container when possible, else the local nats-server
//   PLATFORM_TEST_NATS=local            nats-server from PATH (also PLATFORM_TEST_NO_DOCKER=1)
//   PLATFORM_TEST_NATS=container        a container; fails when the engine or the image is missing
//   PLATFORM_TEST_NATS_IMAGE            the image (default nats:2.10)

import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from '../../shared/local/nats-server.js';

const run = promisify(execFile);

export const DEFAULT_TEST_NATS_IMAGE = 'nats:2.10';

export interface ContainerNats {
  url: string;
  /** Stops the container and starts it again: same port, same store (its writable layer). */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

type Mode = 'local' | 'container' | 'auto';

function mode(): Mode {
  if (process.env.PLATFORM_TEST_NO_DOCKER) return 'local';
  const m = process.env.PLATFORM_TEST_NATS ?? 'auto';
  if (m === 'local' || m === 'container' || m === 'auto') return m;
  throw new Error(`PLATFORM_TEST_NATS=${m}: use local, container or auto`);
}

/** Why `image` cannot run here, or undefined when the engine answers and holds it. */
async function unavailable(image: string): Promise<string | undefined> {
  try {
    // One call answers both questions: the engine is up, and the image is local (no pull).
    await run('docker', ['image', 'inspect', '--format', '{{.Id}}', image], { timeout: 10_000 });
    return undefined;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string; killed?: boolean };
    if (e.code === 'ENOENT') return 'no docker CLI';
    if (e.killed) return 'the Docker engine did not answer in 10 s';
    const said = (e.stderr ?? '').trim().split('\n')[0] ?? '';
    return /no such image/i.test(said) ? `image ${image} is not present locally (scripts/containers.sh builds it)` : `the Docker engine did not answer (${said})`;
  }
}

let choice: Promise<string | undefined> | undefined;

/** The image to run NATS from, or undefined for the local nats-server. Decided once per process. */
export function containerNatsChoice(): Promise<string | undefined> {
  choice ??= (async () => {
    const m = mode();
    if (m === 'local') return undefined;
    const image = process.env.PLATFORM_TEST_NATS_IMAGE ?? DEFAULT_TEST_NATS_IMAGE;
    const why = await unavailable(image);
    if (!why) return image;
    if (m === 'container') throw new Error(`PLATFORM_TEST_NATS=container but ${why}`);
    process.stderr.write(`test NATS: using the local nats-server: ${why}\n`);
    return undefined;
  })();
  return choice;
}

/** Containers this process started and has not stopped: removed at exit even after a crash of the test. */
const running = new Set<string>();
let exitHook = false;
function track(id: string): void {
  running.add(id);
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    if (running.size) spawnSync('docker', ['rm', '-f', '-v', ...running], { stdio: 'ignore', timeout: 10_000 });
  });
}

async function readyCount(id: string): Promise<number> {
  const { stdout, stderr } = await run('docker', ['logs', id], { timeout: 10_000, maxBuffer: 16 * 1024 * 1024 });
  return (stdout + stderr).split('Server is ready').length - 1;
}

async function waitReady(id: string, count: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while ((await readyCount(id)) < count) {
    if (Date.now() > until) throw new Error(`NATS container ${id.slice(0, 12)} not ready in ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `image` with `config` (nats-server's configuration, listening on 4222) on a free host port. */
export async function startContainerNats(image: string, config: string): Promise<ContainerNats> {
  // testcontainers' reaper (Ryuk) is an image from a registry too; the exit hook above does its job.
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  const { GenericContainer, Wait } = await import('testcontainers');
  // A fixed host port, so a restarted container is at the same URL as before.
  const port = await freePort();
  const container = await new GenericContainer(image)
    .withCopyContentToContainer([{ content: config, target: '/etc/nats/platform.conf' }])
    .withCommand(['-c', '/etc/nats/platform.conf'])
    .withExposedPorts({ container: 4222, host: port })
    .withLabels({ 'io.platform.test': 'nats' })
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  const id = container.getId();
  track(id);
  let starts = 1;
  return {
    url: `nats://127.0.0.1:${port}`,
    restart: async (whileDown) => {
      await run('docker', ['stop', '-t', '10', id], { timeout: 30_000 });
      await whileDown?.();
      await run('docker', ['start', id], { timeout: 30_000 });
      starts += 1;
      await waitReady(id, starts, 15_000);
    },
    stop: async () => {
      // A test's broker: its store goes with it, so there is nothing to stop gracefully for.
      await container.stop();
      running.delete(id);
    },
  };
}
