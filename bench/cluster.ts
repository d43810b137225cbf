// Brings up the system under test. Topology 'services-together' (the default):
//   nats-server (JetStream, temp dir) · services-proc (storage, authn, authz, admission) ·
//   gateway (its own process: own core share, own RSS, IPC for memory and profiles) · baseline.
// Topology 'processes', as `npm start` runs them: every service and the gateway from its own
// services/<name>/main.ts with that entry point's defaults (only the token file, the serving
// certificate and AlwaysAllow, the same choices as the other topology).
// The baseline process holds the bare fastify GET route and the minimal write server (same TLS).
// The bench process itself only generates load. Everything started is registered with `cleanup`.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectBus } from '../shared/bus/connect.js';
import type { NatsConnection } from '@nats-io/nats-core';
import { freePort, startLocalNats } from '../shared/local/nats-server.js';
import { createCA, issueServingCert } from '../shared/local/pki.js';
import type { Cleanup } from './cleanup.js';
import { HttpClient } from './http.js';
import { spawnNode, type Child } from './procs.js';

export interface BenchCluster {
  dir: string;
  /** The bench's own NATS connection (raw KV measurement, seeding). */
  nc: NatsConnection;
  caPem: string;
  token: string;
  gatewayUrl: string;
  baselineUrl: string;
  gateway: Child;
  /** Every process of the system under test, plus this one (for the CPU meter). */
  pids: number[];
  /** The same processes by role, for the CPU each takes per request (machine.ts `cpuByRole`). */
  roles: Record<ProcessRole, number[]>;
  /** Sends a command to the gateway child over IPC and waits for its answer (see gateway-proc.ts). */
  gatewayCommand(msg: Record<string, unknown>): Promise<any>;
}

const START_TIMEOUT_MS = 90_000;

/** The minimal write server's bucket (baseline-proc.ts creates it, configured like the object bucket). */
export const MINIMAL_BUCKET = 'bench-minimal';

export type Topology = 'services-together' | 'processes';

export type ProcessRole = 'gateway' | 'services' | 'nats-server' | 'minimal server' | 'load generator';

export async function startBenchCluster(cleanup: Cleanup, topology: Topology = 'services-together'): Promise<BenchCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-bench-'));
  cleanup.defer('remove temp dir', () => rm(dir, { recursive: true, force: true }));

  // BENCH_NATS_PROF_PORT=<port>: nats-server serves Go's pprof there (/debug/pprof/profile).
  const nats = await startLocalNats(path.join(dir, 'nats'), process.env.BENCH_NATS_PROF_PORT ? { profPort: Number(process.env.BENCH_NATS_PROF_PORT) } : {});
  cleanup.defer('stop nats-server', () => nats.stop());
  const nc = await connectBus({ url: nats.url, name: 'bench' });
  cleanup.defer('close bench NATS connection', () => nc.close());

  const ca = await createCA('platform-bench-ca');
  const serving = await issueServingCert(ca);
  const certFile = path.join(dir, 'serving.crt');
  const keyFile = path.join(dir, 'serving.key');
  await writeFile(certFile, serving.certPem);
  await writeFile(keyFile, serving.keyPem, { mode: 0o600 });

  const token = randomBytes(24).toString('hex');
  const tokenFile = path.join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${token},bench-admin,bench-admin-uid,"system:masters"\n`, { mode: 0o600 });

  // Storage provisions the bucket the gateway binds to, so the services start first.
  const port = await freePort();
  const gatewayFlags = ['--nats-url', nats.url, '--secure-port', String(port), '--bind-address', '127.0.0.1', '--tls-cert-file', certFile, '--tls-private-key-file', keyFile];
  const serviceProcs: Child[] = [];
  let gateway: Child;
  if (topology === 'services-together') {
    const services = spawnNode('services', 'bench/services-proc.ts', ['--nats-url', nats.url, '--token-auth-file', tokenFile]);
    cleanup.defer('stop services', () => services.stop());
    serviceProcs.push(services);
    await services.waitForLine(/services ready/, START_TIMEOUT_MS);
    gateway = spawnNode('gateway', 'bench/gateway-proc.ts', [...gatewayFlags, '--log-level', 'warn'], { ipc: true, nodeFlags: ['--expose-gc'] });
  } else {
    const flags: Record<string, string[]> = {
      storage: [],
      authn: ['--token-auth-file', tokenFile, '--anonymous-auth=true'],
      authz: ['--authorization-mode=AlwaysAllow'],
      admission: [],
    };
    for (const [name, extra] of Object.entries(flags)) {
      const child = spawnNode(name, `services/${name}/main.ts`, ['--nats-url', nats.url, ...extra]);
      cleanup.defer(`stop ${name}`, () => child.stop());
      serviceProcs.push(child);
      await child.waitForLine(/service started/, START_TIMEOUT_MS);
    }
    gateway = spawnNode('gateway', 'services/gateway/main.ts', gatewayFlags);
  }
  cleanup.defer('stop gateway', () => gateway.stop());
  const gatewayUrl = `https://127.0.0.1:${port}`;
  await waitReady(gatewayUrl, ca.certPem, token, gateway);

  const baseline = spawnNode('baseline', 'bench/baseline-proc.ts', ['--cert', certFile, '--key', keyFile, '--nats-url', nats.url, '--bucket', MINIMAL_BUCKET]);
  cleanup.defer('stop baseline', () => baseline.stop());
  const line = await baseline.waitForLine(/^listening \d+/, START_TIMEOUT_MS);
  const baselineUrl = `https://127.0.0.1:${line.split(' ')[1]}`;

  const roles: Record<ProcessRole, number[]> = {
    gateway: [gateway.proc.pid!],
    services: serviceProcs.map((p) => p.proc.pid!),
    'nats-server': [nats.process.pid!],
    'minimal server': [baseline.proc.pid!],
    'load generator': [process.pid],
  };
  const pids = Object.values(roles).flat();
  return { dir, nc, caPem: ca.certPem, token, gatewayUrl, baselineUrl, gateway, pids, roles, gatewayCommand: (msg) => ipcCommand(gateway, msg) };
}

/** Polls /readyz until the gateway says ready (watch cache synced, every service answering). */
async function waitReady(url: string, caPem: string, token: string, gateway: Child): Promise<void> {
  const client = new HttpClient(url, caPem, { token, maxSockets: 1 });
  const until = Date.now() + START_TIMEOUT_MS;
  let last = 'no answer';
  try {
    while (Date.now() < until) {
      if (gateway.proc.exitCode !== null) throw new Error(`gateway exited with code ${gateway.proc.exitCode}:\n${gateway.tail()}`);
      try {
        const res = await client.request('GET', '/readyz?verbose');
        if (res.status === 200) return;
        last = `${res.status} ${res.body.toString()}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`gateway not ready after ${START_TIMEOUT_MS} ms (last: ${last}):\n${gateway.tail()}`);
  } finally {
    client.destroy();
  }
}

function ipcCommand(child: Child, msg: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: { ok: boolean; cmd: string; error?: string }) => {
      if (reply.cmd !== msg.cmd) return;
      child.proc.off('message', onMessage);
      if (reply.ok) resolve(reply);
      else reject(new Error(`gateway ${String(msg.cmd)}: ${reply.error}`));
    };
    child.proc.on('message', onMessage);
    child.proc.send(msg);
  });
}
