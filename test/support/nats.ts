// Test harness: a real NATS with JetStream per suite. Uses NATS_URL when given, a testcontainer
// when a Docker engine is reachable, and otherwise spawns nats-server from PATH on a free port
// with a temporary store. The broker is never mocked.

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectBus } from '../../shared/bus/connect.js';
import type { NatsConnection } from '@nats-io/nats-core';
import { natsConfig, startLocalNats } from '../../shared/local/nats-server.js';

export interface TestNats {
  url: string;
  connect(name?: string): Promise<NatsConnection>;
  /** Stops the server and starts it again on the same port and store (local servers only). */
  restart?(): Promise<void>;
  stop(): Promise<void>;
}

function dockerAvailable(): boolean {
  if (process.env.PLATFORM_TEST_NO_DOCKER) return false;
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

export async function startTestNats(): Promise<TestNats> {
  const conns: NatsConnection[] = [];
  const connectTo = (url: string) => async (name = 'test') => {
    const nc = await connectBus({ url, name });
    conns.push(nc);
    return nc;
  };
  const closeAll = async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
  };

  if (process.env.NATS_URL) {
    const url = process.env.NATS_URL;
    return { url, connect: connectTo(url), stop: closeAll };
  }

  if (dockerAvailable()) {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('nats:2.10')
      .withCopyContentToContainer([{ content: natsConfig(4222, '/data', '0.0.0.0'), target: '/etc/nats/platform.conf' }])
      .withCommand(['-c', '/etc/nats/platform.conf'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    const url = `nats://${container.getHost()}:${container.getMappedPort(4222)}`;
    return {
      url,
      connect: connectTo(url),
      stop: async () => {
        await closeAll();
        await container.stop();
      },
    };
  }

  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-nats-'));
  let server = await startLocalNats(dir);
  return {
    url: server.url,
    connect: connectTo(server.url),
    restart: async () => {
      await server.stop();
      server = await startLocalNats(dir, { port: server.port });
    },
    stop: async () => {
      await closeAll();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
