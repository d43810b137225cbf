// Test harness: a three-node nats-server cluster with JetStream on loopback (cluster routes, file
// store), as production runs it. Nodes can be killed (SIGKILL) and started again on the same
// ports and store, to prove what survives the loss of a node or of a stream's leader.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectBus } from '../../shared/bus/connect.js';
import { freePort, NATS_MAX_PAYLOAD } from '../../shared/local/nats-server.js';
import { natsServerBinary } from '../../shared/local/nats-server-binary.js';

export interface ClusterNode {
  name: string;
  port: number;
  clusterPort: number;
  url: string;
  process: ChildProcess | null;
}

export interface TestNatsCluster {
  nodes: ClusterNode[];
  /** Every node's URL, comma-separated: clients fail over between them. */
  url: string;
  connect(name?: string): Promise<NatsConnection>;
  /** SIGKILL one node (by name). */
  kill(name: string): Promise<void>;
  /** Starts a killed node again on its ports and store. */
  start(name: string): Promise<void>;
  /** The node leading a stream's RAFT group (a JetStream API call through any live node). */
  streamLeader(stream: string): Promise<string>;
  stop(): Promise<void>;
}

function nodeConfig(node: ClusterNode, all: ClusterNode[], dir: string): string {
  const routes = all.filter((n) => n !== node).map((n) => `nats-route://127.0.0.1:${n.clusterPort}`);
  return [
    `server_name: ${node.name}`,
    `listen: "127.0.0.1:${node.port}"`,
    `max_payload: ${NATS_MAX_PAYLOAD}`,
    `jetstream { store_dir: ${JSON.stringify(path.join(dir, node.name))} }`,
    `cluster {`,
    `  name: platform-test`,
    `  listen: "127.0.0.1:${node.clusterPort}"`,
    `  routes: [${routes.map((r) => JSON.stringify(r)).join(', ')}]`,
    `}`,
    '',
  ].join('\n');
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startTestNatsCluster(size = 3): Promise<TestNatsCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-nats-cluster-'));
  const nodes: ClusterNode[] = [];
  for (let i = 1; i <= size; i++) {
    const port = await freePort();
    nodes.push({ name: `n${i}`, port, clusterPort: await freePort(), url: `nats://127.0.0.1:${port}`, process: null });
  }
  const conns: NatsConnection[] = [];
  const url = nodes.map((n) => n.url).join(',');
  const byName = (name: string) => {
    const n = nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no node ${name}`);
    return n;
  };

  const start = async (node: ClusterNode) => {
    const conf = path.join(dir, `${node.name}.conf`);
    await mkdir(path.join(dir, node.name), { recursive: true });
    await writeFile(conf, nodeConfig(node, nodes, dir));
    const child = spawn(natsServerBinary(), ['-c', conf], { stdio: 'ignore' });
    node.process = child;
    const until = Date.now() + 15_000;
    while (!(await listening(node.port))) {
      if (child.exitCode !== null) throw new Error(`nats-server ${node.name} exited with code ${child.exitCode}`);
      if (Date.now() > until) throw new Error(`nats-server ${node.name} did not listen in time`);
      await sleep(50);
    }
  };

  const kill = async (node: ClusterNode) => {
    const child = node.process;
    node.process = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  };

  await Promise.all(nodes.map(start));
  const probe = await connectBus({ url, name: 'cluster-probe' });
  conns.push(probe);
  // JetStream answers once the meta group has a leader.
  const jsm = await jetstreamManager(probe, { timeout: 2_000, checkAPI: false });
  for (let until = Date.now() + 30_000; ;) {
    try {
      await jsm.getAccountInfo();
      break;
    } catch (err) {
      if (Date.now() > until) throw new Error(`JetStream of the cluster did not come up: ${(err as Error).message}`);
      await sleep(200);
    }
  }

  return {
    nodes,
    url,
    async connect(name = 'test') {
      const nc = await connectBus({ url, name });
      conns.push(nc);
      return nc;
    },
    kill: (name) => kill(byName(name)),
    start: (name) => start(byName(name)),
    async streamLeader(stream) {
      // Right after a node left or came back the stream may be between leaders for a moment.
      for (const until = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 200))) {
        const leader = (await jsm.streams.info(stream).catch(() => null))?.cluster?.leader;
        if (leader) return leader;
        if (Date.now() > until) throw new Error(`stream ${stream} has no leader`);
      }
    },
    async stop() {
      await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
      await Promise.all(nodes.map(kill));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
