// Brings up the system under test, from the compiled build (dist/, as the image and Helm run it;
// `BENCH_TSX=1` runs the sources through tsx instead). Topology 'processes' (the default), as
// compose and Helm run them: every service from its own services/<name>/main.js with that entry
// point's defaults (only the token file, the serving certificate and AlwaysAllow), the gateway
// through bench/gateway-proc (the same main plus IPC for memory figures and profiles). Topology
// 'services-together': storage, authn, authz and admission in one child (services-proc), the
// gateway with --log-level warn.
// Beside it, on the same nats-server: the baseline process (the bare fastify GET route and the
// minimal write server, which writes the bucket itself) and the same-shape floor, a minimal
// gateway and a minimal storage responder in two processes (floor-*-proc.ts), all with the same
// TLS. The bench process itself only generates load. Everything started is registered with `cleanup`.

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
import { spawnNode, type Child, type SpawnOptions } from './procs.js';

export interface BenchCluster {
  dir: string;
  /** The bench's own NATS connection (raw KV measurement, seeding). */
  nc: NatsConnection;
  caPem: string;
  token: string;
  gatewayUrl: string;
  baselineUrl: string;
  /** The same-shape floor's minimal gateway. */
  floorUrl: string;
  gateway: Child;
  /** Every process of the system under test, plus this one (for the CPU meter). */
  pids: number[];
  /** The same processes by role, for the CPU each takes per request (machine.ts `cpuByRole`). */
  roles: Record<string, number[]>;
  /** The roles of the system under test (the gateway and the services' processes). */
  systemRoles: string[];
  /** Sends a command to the gateway child over IPC and waits for its answer (see gateway-proc.ts). */
  gatewayCommand(msg: Record<string, unknown>): Promise<any>;
  /** What the processes were started with, for starting more replicas (`spawnReplica`). */
  material: Material;
}

export interface ClusterOptions {
  /** Runs once nats-server is up, before any service starts (e.g. to provision and fill the bucket). */
  prepare?: (nc: NatsConnection) => Promise<void>;
  /** Start the baseline and the same-shape floor (default true); without them their URLs are empty. */
  floors?: boolean;
}

const START_TIMEOUT_MS = 90_000;

/** The minimal write server's bucket (baseline-proc.ts creates it, configured like the object bucket). */
export const MINIMAL_BUCKET = 'bench-minimal';
/** The same-shape floor's bucket (floor-storage-proc.ts creates it, configured like the object bucket). */
export const FLOOR_BUCKET = 'bench-floor';
export const FLOOR_ROLES = ['floor gateway', 'floor storage'];
export const MINIMAL_ROLES = ['minimal server'];
/** Roles every figure's CPU includes: the bus and the load generator. */
export const SHARED_ROLES = ['nats-server', 'load generator'];

/** How the children run: the compiled build unless BENCH_TSX=1. */
export const RUN_COMPILED = process.env.BENCH_TSX !== '1';

export type Topology = 'services-together' | 'processes';

export interface Material {
  natsUrl: string;
  certFile: string;
  keyFile: string;
  tokenFile: string;
}

export async function startBenchCluster(cleanup: Cleanup, topology: Topology = 'processes', opts: ClusterOptions = {}): Promise<BenchCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-bench-'));
  cleanup.defer('remove temp dir', () => rm(dir, { recursive: true, force: true }));

  // BENCH_NATS_PROF_PORT=<port>: nats-server serves Go's pprof there (/debug/pprof/profile).
  const nats = await startLocalNats(path.join(dir, 'nats'), process.env.BENCH_NATS_PROF_PORT ? { profPort: Number(process.env.BENCH_NATS_PROF_PORT) } : {});
  cleanup.defer('stop nats-server', () => nats.stop());
  const nc = await connectBus({ url: nats.url, name: 'bench' });
  cleanup.defer('close bench NATS connection', () => nc.close());
  await opts.prepare?.(nc);

  const ca = await createCA('platform-bench-ca');
  const serving = await issueServingCert(ca);
  const m: Material = { natsUrl: nats.url, certFile: path.join(dir, 'serving.crt'), keyFile: path.join(dir, 'serving.key'), tokenFile: path.join(dir, 'tokens.csv') };
  await writeFile(m.certFile, serving.certPem);
  await writeFile(m.keyFile, serving.keyPem, { mode: 0o600 });
  const token = randomBytes(24).toString('hex');
  await writeFile(m.tokenFile, `${token},bench-admin,bench-admin-uid,"system:masters"\n`, { mode: 0o600 });

  const port = await freePort();
  const system = await startSystem(cleanup, topology, m, port);
  const gatewayUrl = `https://127.0.0.1:${port}`;
  await waitReady(gatewayUrl, ca.certPem, token, system.gateway);
  const floors = opts.floors === false ? { baselineUrl: '', floorUrl: '', roles: {} } : await startFloors(cleanup, m);

  const roles: Record<string, number[]> = { ...system.roles, 'nats-server': [nats.process.pid!], ...floors.roles, 'load generator': [process.pid] };
  const pids = Object.values(roles).flat();
  const { gateway } = system;
  return {
    dir,
    nc,
    caPem: ca.certPem,
    token,
    gatewayUrl,
    baselineUrl: floors.baselineUrl,
    floorUrl: floors.floorUrl,
    gateway,
    pids,
    roles,
    systemRoles: Object.keys(system.roles),
    gatewayCommand: (msg) => ipcCommand(gateway, msg),
    material: m,
  };
}

/**
 * One more replica of the gateway (on `port`) or of the storage service, started as the first one
 * was, e.g. to time a replica joining a running system. `nodeFlags` go to node (e.g. --cpu-prof).
 */
export function spawnReplica(cleanup: Cleanup, m: Material, what: { service: 'gateway'; port: number } | { service: 'storage' }, name: string, nodeFlags: string[] = []): Child {
  if (what.service === 'storage') return spawnChild(cleanup, name, 'services/storage/main.ts', ['--nats-url', m.natsUrl], { nodeFlags });
  return spawnChild(cleanup, name, 'bench/gateway-proc.ts', gatewayFlags(m, what.port), { ipc: true, nodeFlags: ['--expose-gc', ...nodeFlags] });
}

function gatewayFlags(m: Material, port: number): string[] {
  return ['--nats-url', m.natsUrl, '--secure-port', String(port), '--bind-address', '127.0.0.1', '--tls-cert-file', m.certFile, '--tls-private-key-file', m.keyFile];
}

function spawnChild(cleanup: Cleanup, name: string, script: string, args: string[], opts: SpawnOptions = {}): Child {
  const child = spawnNode(name, script, args, { ...opts, compiled: RUN_COMPILED });
  cleanup.defer(`stop ${name}`, () => child.stop());
  return child;
}

/** The services and the gateway; storage provisions the bucket the gateway binds to, so the services start first. */
async function startSystem(cleanup: Cleanup, topology: Topology, m: Material, port: number): Promise<{ gateway: Child; roles: Record<string, number[]> }> {
  const gatewayArgs = gatewayFlags(m, port);
  const roles: Record<string, number[]> = {};
  const gatewayOpts: SpawnOptions = { ipc: true, nodeFlags: ['--expose-gc'] };
  if (topology === 'services-together') {
    const services = spawnChild(cleanup, 'services', 'bench/services-proc.ts', ['--nats-url', m.natsUrl, '--token-auth-file', m.tokenFile]);
    await services.waitForLine(/services ready/, START_TIMEOUT_MS);
    const gateway = spawnChild(cleanup, 'gateway', 'bench/gateway-proc.ts', [...gatewayArgs, '--log-level', 'warn'], gatewayOpts);
    return { gateway, roles: { gateway: [gateway.proc.pid!], services: [services.proc.pid!] } };
  }
  const flags: Record<string, string[]> = {
    storage: [],
    authn: ['--token-auth-file', m.tokenFile, '--anonymous-auth=true'],
    authz: ['--authorization-mode=AlwaysAllow'],
    admission: [],
  };
  for (const [name, extra] of Object.entries(flags)) {
    const child = spawnChild(cleanup, name, `services/${name}/main.ts`, ['--nats-url', m.natsUrl, ...extra]);
    await child.waitForLine(/service started/, START_TIMEOUT_MS);
    roles[name] = [child.proc.pid!];
  }
  const gateway = spawnChild(cleanup, 'gateway', 'bench/gateway-proc.ts', gatewayArgs, gatewayOpts);
  return { gateway, roles: { gateway: [gateway.proc.pid!], ...roles } };
}

/** The baseline process and the same-shape floor's two processes. */
async function startFloors(cleanup: Cleanup, m: Material): Promise<{ baselineUrl: string; floorUrl: string; roles: Record<string, number[]> }> {
  const tls = ['--cert', m.certFile, '--key', m.keyFile];
  const baseline = spawnChild(cleanup, 'baseline', 'bench/baseline-proc.ts', [...tls, '--nats-url', m.natsUrl, '--bucket', MINIMAL_BUCKET]);
  const floorStorage = spawnChild(cleanup, 'floor storage', 'bench/floor-storage-proc.ts', ['--nats-url', m.natsUrl, '--bucket', FLOOR_BUCKET]);
  const floorGateway = spawnChild(cleanup, 'floor gateway', 'bench/floor-gateway-proc.ts', [...tls, '--nats-url', m.natsUrl]);
  const portOf = async (c: Child) => (await c.waitForLine(/^listening \d+/, START_TIMEOUT_MS)).split(' ')[1];
  const [baselinePort, floorPort] = [await portOf(baseline), await portOf(floorGateway)];
  await floorStorage.waitForLine(/floor storage ready/, START_TIMEOUT_MS);
  return {
    baselineUrl: `https://127.0.0.1:${baselinePort}`,
    floorUrl: `https://127.0.0.1:${floorPort}`,
    roles: { 'minimal server': [baseline.proc.pid!], 'floor gateway': [floorGateway.proc.pid!], 'floor storage': [floorStorage.proc.pid!] },
  };
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
