// `npm start`: brings the whole API server up on this machine — a JetStream nats-server (unless
// NATS_URL points at one; installed from Debian first when missing, see
// shared/local/nats-server-binary.ts), then storage, authn, authz, admission, the gateway and the
// controllers as child processes, their logs readable on a terminal (pretty-log.ts) — and prints
// how to reach it. State lives in $PLATFORM_LOCAL_DIR (default ./.local) and is created
// once: the dev CA, certificates, admin token, NATS port and JetStream data survive a restart, so a
// kubeconfig handed out earlier keeps working. The local nats-server requires TLS (a certificate
// of the dev CA) and knows one user per service with least-privilege permissions; each service
// gets its own user's password file. `npm start -- --init-only` writes that state and exits
// (docker compose mounts it).

import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectBus } from '../shared/bus/connect.js';
import { userInboxPrefix, type NatsUserRole } from '../shared/bus/permissions.js';
import { ServiceName, serviceSubjects } from '../shared/bus/subjects.js';
import { writeKubeconfig } from '../shared/local/kubeconfig.js';
import { freePort, startLocalNats, type LocalNats } from '../shared/local/nats-server.js';
import { ensureNatsServer } from '../shared/local/nats-server-binary.js';
import { ensureNatsAuth, natsAuthFlags, natsUserEntries, type LocalNatsAuth } from '../shared/local/nats-auth.js';
import { ADMIN_GROUPS, ADMIN_USER, ensurePki, type LocalPki } from '../shared/local/pki.js';
import { CONTROLLER_MANAGER_USER } from '../shared/api/groups.js';
import type { ListenerReport, SupervisorReport } from '../shared/service-main.js';
import { isEntryPoint } from './entry-point.js';
import { terminalLineFormat, type LineFormat } from './pretty-log.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Start order: storage provisions the bucket the others rely on; the gateway comes once they
 * answer; the controllers, an API client of the gateway, once it answers /readyz (started beside
 * it they would find nothing listening). Stopping goes in reverse.
 */
export const SERVICE_STAGES: readonly (readonly LocalServiceName[])[] = [['storage'], ['authn', 'authz', 'admission'], ['gateway'], ['controllers']];
export type LocalServiceName = 'storage' | 'authn' | 'authz' | 'admission' | 'gateway' | 'controllers';

export interface LocalConfig {
  dir: string;
  port: number;
  /** Set when NATS_URL is given: no local nats-server is started. */
  natsUrl?: string;
  /** Where services/<name>/main.ts live; tests point this at fakes. */
  servicesDir: string;
  readyTimeoutMs: number;
  /** Extra names for the serving certificate (PLATFORM_CERT_SANS). */
  servingNames: string[];
  /** The controllers service's health port (PLATFORM_CONTROLLERS_PORT, default upstream's 10257). */
  controllersPort: number;
  /** Whether PLATFORM_CONTROLLERS_PORT named it (then a port in use is an error, not a reason to pick another). */
  controllersPortExplicit: boolean;
}

/** Upstream's controller manager's --secure-port. */
export const DEFAULT_CONTROLLERS_PORT = 10257;

export function localConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LocalConfig {
  const port = Number(env.PLATFORM_PORT ?? 6443);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`PLATFORM_PORT must be a port number, got ${JSON.stringify(env.PLATFORM_PORT)}`);
  const controllersPort = Number(env.PLATFORM_CONTROLLERS_PORT ?? DEFAULT_CONTROLLERS_PORT);
  if (!Number.isInteger(controllersPort) || controllersPort <= 0 || controllersPort > 65535)
    throw new Error(`PLATFORM_CONTROLLERS_PORT must be a port number, got ${JSON.stringify(env.PLATFORM_CONTROLLERS_PORT)}`);
  return {
    dir: path.resolve(env.PLATFORM_LOCAL_DIR ?? '.local'),
    port,
    ...(env.NATS_URL ? { natsUrl: env.NATS_URL } : {}),
    // Test hook: the local-up tests run this script against fake services.
    servicesDir: path.resolve(env.PLATFORM_LOCAL_SERVICES_DIR ?? path.join(REPO_ROOT, 'services')),
    readyTimeoutMs: Number(env.PLATFORM_READY_TIMEOUT_SECONDS ?? 60) * 1000,
    servingNames: (env.PLATFORM_CERT_SANS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    controllersPort,
    controllersPortExplicit: env.PLATFORM_CONTROLLERS_PORT !== undefined,
  };
}

// ---- State kept in the local directory -------------------------------------------------------

export interface LocalState {
  dir: string;
  pki: LocalPki;
  tokenFile: string;
  adminTokenFile: string;
  adminToken: string;
  kubeconfig: string;
  /** The controllers service's client configuration (its own client certificate). */
  controllersKubeconfig: string;
  /** Private key that signs service-account tokens (its public half verifies them). */
  serviceAccountKeyFile: string;
  /** NATS's server certificate and the users' passwords (used when the local nats-server runs). */
  nats: LocalNatsAuth;
}

/** Issuer of the local cluster's service-account tokens. */
export const LOCAL_SA_ISSUER = 'https://platform.default.svc';

/** The service-account signing key (EC P-256, PKCS#8), created once so issued tokens survive restarts. */
export async function ensureServiceAccountKey(file: string): Promise<void> {
  if (existsSync(file)) return;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writePrivate(file, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
}

async function writePrivate(file: string, data: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/**
 * Returns the admin's token from the static token file (`token,user,uid,"group1,group2"`),
 * creating the file, or adding the admin line to a file the user edited, when needed.
 */
export async function ensureTokenFile(file: string): Promise<string> {
  const line = (token: string) => `${token},${ADMIN_USER},${ADMIN_USER},"${ADMIN_GROUPS.join(',')}"\n`;
  if (existsSync(file)) {
    const text = await readFile(file, 'utf8');
    for (const row of text.split(/\r?\n/)) {
      const [token, user] = row.split(',');
      if (token && user === ADMIN_USER) return token.trim();
    }
    const token = randomBytes(32).toString('hex');
    await appendFile(file, (text === '' || text.endsWith('\n') ? '' : '\n') + line(token));
    return token;
  }
  const token = randomBytes(32).toString('hex');
  await writePrivate(file, line(token));
  return token;
}

/** PKI, token file and kubeconfig under `cfg.dir`; existing files are reused. */
export async function prepareLocalState(cfg: Pick<LocalConfig, 'dir' | 'port' | 'servingNames'>): Promise<LocalState> {
  await mkdir(cfg.dir, { recursive: true, mode: 0o700 });
  const pki = await ensurePki(path.join(cfg.dir, 'pki'), { servingNames: cfg.servingNames });
  const tokenFile = path.join(cfg.dir, 'tokens.csv');
  const adminToken = await ensureTokenFile(tokenFile);
  // A file of its own so shell snippets can use it without parsing the CSV.
  const adminTokenFile = path.join(cfg.dir, 'admin-token');
  await writePrivate(adminTokenFile, adminToken + '\n');
  const serviceAccountKeyFile = path.join(pki.files.dir, 'service-account.key');
  await ensureServiceAccountKey(serviceAccountKeyFile);
  const kubeconfig = path.join(cfg.dir, 'kubeconfig');
  // Rewritten every start: the port may differ from the last run.
  await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${cfg.port}`, caPem: pki.ca.certPem, token: adminToken, clientCertPem: pki.admin.certPem, clientKeyPem: pki.admin.keyPem });
  const controllersKubeconfig = path.join(cfg.dir, 'controllers.kubeconfig');
  await writeKubeconfig(controllersKubeconfig, {
    server: `https://127.0.0.1:${cfg.port}`,
    caPem: pki.ca.certPem,
    clientCertPem: pki.controllers.certPem,
    clientKeyPem: pki.controllers.keyPem,
    certUserName: CONTROLLER_MANAGER_USER,
  });
  const nats = await ensureNatsAuth(cfg.dir, pki, { serverNames: cfg.servingNames });
  return { dir: cfg.dir, pki, tokenFile, adminTokenFile, adminToken, kubeconfig, controllersKubeconfig, serviceAccountKeyFile, nats };
}

/** PLATFORM_NATS_PORT, else the port remembered in `<dir>/nats-port`, else a new free one (remembered). */
export async function localNatsPort(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (env.PLATFORM_NATS_PORT) return Number(env.PLATFORM_NATS_PORT);
  const file = path.join(dir, 'nats-port');
  if (existsSync(file)) {
    const n = Number((await readFile(file, 'utf8')).trim());
    if (Number.isInteger(n) && n > 0) return n;
  }
  const port = await freePort();
  await writeFile(file, `${port}\n`);
  return port;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The services whose /metrics has a listener of its own (`--metrics-bind-address`). */
export const METRICS_LISTENERS = ['storage', 'authn', 'authz', 'admission'] as const;
export type MetricsListener = (typeof METRICS_LISTENERS)[number];

/**
 * The command line of one service in local mode. `natsAuth`: the local nats-server's TLS and users
 * (absent for a NATS_URL of the user's, whose credentials PLATFORM_NATS_* variables can give).
 */
export function serviceArgs(
  name: LocalServiceName,
  ctx: { natsUrl: string; state: LocalState; port: number; controllersPort?: number; metricsPorts?: Partial<Record<MetricsListener, number>>; natsAuth?: LocalNatsAuth },
): string[] {
  const metricsPort = ctx.metricsPorts?.[name as MetricsListener];
  // Each service as its own NATS user (the controllers speak HTTPS to the gateway only).
  const credentials = ctx.natsAuth && name !== 'controllers' ? natsAuthFlags(ctx.natsAuth, name satisfies NatsUserRole) : [];
  // Plain HTTP without authentication: loopback only.
  const common = [`--nats-url=${ctx.natsUrl}`, ...credentials, ...(metricsPort ? [`--metrics-bind-address=127.0.0.1:${metricsPort}`] : [])];
  switch (name) {
    case 'storage':
      return common;
    case 'authn':
      return [
        ...common,
        `--token-auth-file=${ctx.state.tokenFile}`,
        `--client-ca-file=${ctx.state.pki.files.caCert}`,
        '--enable-bootstrap-token-auth=true',
        `--service-account-signing-key-file=${ctx.state.serviceAccountKeyFile}`,
        `--service-account-issuer=${LOCAL_SA_ISSUER}`,
        '--anonymous-auth=true',
      ];
    case 'authz':
      return [...common, '--authorization-mode=Node,RBAC', '--upstream-group-aliases=true'];
    case 'admission':
      // The Node authorizer's partner: what a node may change in the objects it is allowed to write.
      return [...common, '--enable-admission-plugins=NodeRestriction'];
    case 'controllers':
      // An API client of the gateway with its own identity; it retries until the gateway answers.
      return [
        `--kubeconfig=${ctx.state.controllersKubeconfig}`,
        `--cluster-signing-cert-file=${ctx.state.pki.files.caCert}`,
        `--cluster-signing-key-file=${ctx.state.pki.files.caKey}`,
        `--service-account-private-key-file=${ctx.state.serviceAccountKeyFile}`,
        // Each controller as its own service account (system:controller:<name> roles), as upstream's clusters run it.
        '--use-service-account-credentials=true',
        // Its health endpoints, with the gateway's serving pair so the dev CA verifies them too.
        `--secure-port=${ctx.controllersPort ?? DEFAULT_CONTROLLERS_PORT}`,
        '--bind-address=127.0.0.1',
        `--tls-cert-file=${ctx.state.pki.files.servingCert}`,
        `--tls-private-key-file=${ctx.state.pki.files.servingKey}`,
      ];
    case 'gateway':
      return [
        ...common,
        `--secure-port=${ctx.port}`,
        '--bind-address=127.0.0.1',
        `--tls-cert-file=${ctx.state.pki.files.servingCert}`,
        `--tls-private-key-file=${ctx.state.pki.files.servingKey}`,
        `--client-ca-file=${ctx.state.pki.files.caCert}`,
        // Stock manifests and kubectl's typed commands name upstream's groups (rbac.authorization.k8s.io, …).
        '--upstream-group-aliases=true',
        // The audit log of the shipped example policy, kept small: a development cluster's disk is not an archive.
        `--audit-policy-file=${path.join(REPO_ROOT, 'deploy', 'audit-policy.yaml')}`,
        `--audit-log-path=${path.join(ctx.state.dir, 'audit.log')}`,
        '--audit-log-maxsize=20',
        '--audit-log-maxbackup=3',
      ];
  }
}

// ---- Processes -----------------------------------------------------------------------------

const COLORS = [36, 33, 35, 32, 34, 31];

/**
 * nats-server's warnings that every start of this set-up gives and that need no action: the users'
 * passwords sit in plain text in the 0600 configuration local-up writes (docs/operations.md).
 */
const EXPECTED_NATS_WARNINGS = ['Plaintext passwords detected'];

function prefixer(name: string, index: number, format: LineFormat): (line: string) => void {
  const label = name.padEnd(9);
  const tag = process.stdout.isTTY ? `\x1b[${COLORS[index % COLORS.length]}m${label}|\x1b[0m ` : `${label}| `;
  return (line) =>
    process.stdout.write(
      format(line)
        .map((l) => tag + l + '\n')
        .join(''),
    );
}

function pipeLines(child: ChildProcess, write: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream }).on('line', write);
}

interface Running {
  name: string;
  child: ChildProcess;
}

function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function waitForPing(nc: NatsConnection, service: string, child: ChildProcess, deadlineMs: number): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until && child.exitCode === null) {
    try {
      await nc.request(serviceSubjects.ping(service), undefined, { timeout: 500 });
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return false;
}

/** How many ports a listener is tried on before bring-up gives up. */
const LISTEN_ATTEMPTS = 5;

type ListenOutcome = { kind: 'listening'; port: number } | { kind: 'address-in-use' } | { kind: 'exited'; how: string } | { kind: 'silent' };

/** What a just-started child says about its port (ListenerReport over its IPC channel), or its exit. */
function listenOutcome(child: ChildProcess, reportMs: number): Promise<ListenOutcome> {
  return new Promise((resolve) => {
    let inUse = false;
    const done = (o: ListenOutcome) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(o);
    };
    const onMessage = (m: ListenerReport) => {
      if (m?.type === 'listening') done({ kind: 'listening', port: m.port });
      else if (m?.type === 'address-in-use') inUse = true; // the exit follows
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => done(inUse ? { kind: 'address-in-use' } : { kind: 'exited', how: signal ?? `code ${code}` });
    const timer = setTimeout(() => done({ kind: 'silent' }), reportMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Polls the gateway's /readyz as the admin until it answers 200. False when bring-up is stopping,
 * or when the deadline passed: then it says why and stops everything.
 */
async function gatewayReady(url: string, state: LocalState, timeoutMs: number, sup: Supervisor): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  let last = 'no answer';
  while (!sup.isStopping) {
    try {
      const r = await getReadyz(`${url}/readyz?verbose`, state.pki.ca.certPem, state.adminToken);
      if (r.status === 200) return true;
      last = `HTTP ${r.status}: ${
        r.body
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('[-]'))
          .join(', ') || r.body.trim().slice(0, 200)
      }`;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > until) {
      process.stderr.write(`\nlocal-up: ${url}/readyz did not answer 200 within ${Math.round(timeoutMs / 1000)} s (last: ${last}); stopping everything\n`);
      await sup.shutdown(1);
      return false;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

/**
 * How long the banner waits for the controllers to report `ready` (leading, caches synced): past
 * upstream's 15 s lease, which a controllers process killed earlier may still hold.
 */
const CONTROLLERS_READY_WAIT_MS = 20_000;

/** Resolves when the child reports `ready`, exits, or after `ms`, whichever comes first. */
function readyReport(child: ChildProcess, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', done);
      resolve();
    };
    const onMessage = (m: SupervisorReport) => {
      if (m?.type === 'ready') done();
    };
    const timer = setTimeout(done, ms);
    child.on('message', onMessage);
    child.once('exit', done);
  });
}

function getReadyz(url: string, ca: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, headers: { authorization: `Bearer ${token}` }, timeout: 2_000, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/** Restart delays of a child that dies after bring-up: 1 s doubling to 30 s, reset after a minute up. */
export function restartDelayMs(consecutiveFailures: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, consecutiveFailures - 1), 30_000);
}
const STABLE_AFTER_MS = 60_000;

interface Restartable {
  name: string;
  start(): Promise<ChildProcess>;
  failures: number;
  startedAt: number;
}

class Supervisor {
  readonly running: Running[] = [];
  nats?: LocalNats;
  /** Set once /readyz answered: from then on a dying child is restarted instead of ending the run. */
  up = false;
  private stopping = false;
  private exitCode = 0;
  private done!: () => void;
  readonly finished = new Promise<void>((r) => (this.done = r));
  private readonly reaper: ChildProcess;

  /** `format`: how the children's output lines are shown (pretty-log.ts). */
  constructor(private readonly format: LineFormat) {
    // Its own process group and an IPC channel: it outlives this process if this one is killed
    // outright, and then stops the children (see scripts/reaper.mjs).
    this.reaper = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'reaper.mjs')], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], detached: true });
    this.reaper.unref();
    this.reaper.channel?.unref();
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  private tellReaper(): void {
    const services = this.running.map((r) => r.child.pid).filter((p): p is number => p !== undefined);
    if (this.reaper.connected) this.reaper.send({ type: 'pids', services, nats: this.nats?.process.pid ?? 0 });
  }

  watch(child: ChildProcess, r: Restartable): void {
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      const how = signal ?? `code ${code}`;
      if (!this.up) {
        // During bring-up a dying child is a configuration problem: say so and stop.
        process.stderr.write(`\nlocal-up: ${r.name} exited unexpectedly (${how}); stopping everything\n`);
        void this.shutdown(code && code > 0 ? code : 1);
        return;
      }
      r.failures = Date.now() - r.startedAt > STABLE_AFTER_MS ? 1 : r.failures + 1;
      this.restartLater(r, how);
    });
  }

  private restartLater(r: Restartable, how: string): void {
    const delay = restartDelayMs(r.failures);
    process.stderr.write(`\nlocal-up: ${r.name} exited unexpectedly (${how}); restarting it in ${delay / 1000} s (restart ${r.failures})\n`);
    // The attempt handles its own failure (by trying again later), so its promise never rejects.
    setTimeout(() => void this.restart(r), delay);
  }

  private async restart(r: Restartable): Promise<void> {
    if (this.stopping) return;
    try {
      const next = await r.start();
      r.startedAt = Date.now();
      process.stdout.write(`local-up: ${r.name} restarted (pid ${next.pid})\n`);
      this.watch(next, r);
    } catch (err) {
      r.failures++;
      this.restartLater(r, `could not start: ${(err as Error).message}`);
    }
  }

  async startNats(dataDir: string, port: number, auth: LocalNatsAuth, log: (line: string) => void): Promise<LocalNats> {
    const r: Restartable = {
      name: 'nats-server',
      failures: 0,
      startedAt: Date.now(),
      start: async () => {
        this.nats = await startLocalNats(dataDir, { port, log, detached: true, tls: { certFile: auth.serverCertFile, keyFile: auth.serverKeyFile }, users: natsUserEntries(auth) });
        this.tellReaper();
        return this.nats.process;
      },
    };
    await r.start();
    this.watch(this.nats!.process, r);
    return this.nats!;
  }

  spawnService(name: LocalServiceName, args: string[], servicesDir: string, index: number): ChildProcess {
    const spawnOne = this.spawner(name, args, servicesDir, index);
    const child = spawnOne();
    this.watch(child, { name, failures: 0, startedAt: Date.now(), start: async () => spawnOne() });
    return child;
  }

  /**
   * Starts a service on a port chosen here (the controllers' --secure-port) and resolves with the
   * port it reports bound, or null once bring-up is stopping. A port another program took between
   * the choice and the bind is no reason to stop: the service is started again on another free
   * port, unless the user named the port. A service that says nothing within `reportMs` is taken
   * to serve on the port it was given. `ready` resolves once it reports being at work (or cannot).
   */
  async spawnListening(
    name: LocalServiceName,
    argsAt: (port: number) => string[],
    at: { port: number; named: boolean; reportMs: number; readyMs: number },
    servicesDir: string,
    index: number,
  ): Promise<{ port: number; ready: Promise<void> } | null> {
    let port = at.port;
    for (let attempt = 1; ; attempt++) {
      const spawnOne = this.spawner(name, argsAt(port), servicesDir, index);
      const child = spawnOne();
      // Listened for from the start: the report may come right after the listener's.
      const ready = readyReport(child, at.readyMs);
      const outcome = await listenOutcome(child, at.reportMs);
      if (outcome.kind === 'listening' || outcome.kind === 'silent') {
        const r: Restartable = { name, failures: 0, startedAt: Date.now(), start: async () => spawnOne() };
        this.watch(child, r);
        return { port: outcome.kind === 'listening' ? outcome.port : port, ready };
      }
      if (this.stopping) return null;
      const taken = outcome.kind === 'address-in-use';
      if (taken && !at.named && attempt < LISTEN_ATTEMPTS) {
        const next = await freePort();
        process.stdout.write(`local-up: port ${port} was taken before ${name} could bind it; starting ${name} on ${next}\n`);
        port = next;
        continue;
      }
      const why = taken ? `port ${port} is in use${at.named ? ' — set another one' : ''}` : `exited unexpectedly (${outcome.how})`;
      process.stderr.write(`\nlocal-up: ${name}: ${why}; stopping everything\n`);
      void this.shutdown(1);
      return null;
    }
  }

  /** Starts `name` (again on each call), piping its output and keeping its slot in `running`. */
  private spawner(name: LocalServiceName, args: string[], servicesDir: string, index: number): () => ChildProcess {
    const main = path.join(servicesDir, name, 'main.ts');
    if (!existsSync(main)) throw new Error(`${main} does not exist`);
    const log = prefixer(name, index, this.format);
    return (): ChildProcess => {
      // detached: a terminal Ctrl-C reaches only this process, which then stops the services in
      // order. The IPC channel is the service's lifeline: it exits when this process is gone.
      const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true, env: process.env });
      child.channel?.unref();
      pipeLines(child, log);
      child.once('error', (err) => process.stderr.write(`local-up: cannot start ${name}: ${err.message}\n`));
      const slot = this.running.find((x) => x.name === name);
      if (slot) slot.child = child;
      else this.running.push({ name, child });
      this.tellReaper();
      return child;
    };
  }

  async shutdown(code: number): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.exitCode = code;
    // Reverse start order: the gateway stops taking requests before its backends go away.
    for (const stage of [...SERVICE_STAGES].reverse()) {
      await Promise.all(this.running.filter((r) => (stage as readonly string[]).includes(r.name)).map((r) => stopChild(r.child)));
    }
    if (this.nats) await this.nats.stop();
    if (this.reaper.connected) {
      this.reaper.send({ type: 'done' });
      this.reaper.disconnect();
    }
    this.done();
  }

  /** Synchronous last resort when this process dies some other way: leave no orphans behind. */
  killAll(): void {
    for (const r of this.running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    if (this.nats && this.nats.process.exitCode === null) this.nats.process.kill('SIGTERM');
  }

  get code(): number {
    return this.exitCode;
  }
}

const USAGE = `usage: npm start [-- --init-only]

Starts nats-server (unless NATS_URL is set; TLS and one user per service) and every service, with
state in $PLATFORM_LOCAL_DIR.
  --init-only   write the PKI, NATS users, token file and kubeconfig, then exit
Environment: PLATFORM_LOCAL_DIR (./.local), PLATFORM_PORT (6443), NATS_URL, PLATFORM_NATS_PORT,
             PLATFORM_CERT_SANS (extra serving-certificate names), PLATFORM_LOG_LEVEL,
             PLATFORM_CONTROLLERS_PORT (10257; the controllers' /healthz, /livez, /readyz, /metrics)
`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = argv.filter((a) => a !== '--init-only');
  if (unknown.length) {
    process.stderr.write(`local-up: unknown argument ${unknown[0]}\n${USAGE}`);
    return 2;
  }
  const cfg = localConfigFromEnv();
  // Before anything is written or started: a machine without nats-server gets it (as root) or is
  // told the command. `--init-only` (docker compose's init) and an external NATS_URL need none.
  if (!argv.includes('--init-only') && !cfg.natsUrl) ensureNatsServer((line) => process.stdout.write(`local-up: ${line}\n`));
  const state = await prepareLocalState(cfg);
  const rel = (p: string) => path.relative(process.cwd(), p) || '.';
  if (argv.includes('--init-only')) {
    process.stdout.write(`wrote ${rel(state.pki.files.dir)}/, ${rel(state.nats.dir)}/, ${rel(state.tokenFile)}, ${rel(state.kubeconfig)}\n`);
    return 0;
  }

  const format = await terminalLineFormat(process.stdout.isTTY);
  const sup = new Supervisor(format);
  process.once('exit', () => sup.killAll());
  const onSignal = (sig: NodeJS.Signals) => {
    if (sup.isStopping) return;
    process.stdout.write(`\nlocal-up: ${sig}, stopping services, then NATS\n`);
    void sup.shutdown(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Orphaned (whoever started us is gone, e.g. npm killed alone): stop as if asked to.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && onSignal('SIGHUP'), 1_000).unref();

  if (!(await portIsFree(cfg.port))) throw new Error(`port ${cfg.port} is in use — is another \`npm start\` running? Set PLATFORM_PORT to use another port`);
  let controllersPort = cfg.controllersPort;
  if (!(await portIsFree(controllersPort))) {
    if (cfg.controllersPortExplicit) throw new Error(`PLATFORM_CONTROLLERS_PORT ${controllersPort} is in use — set another one`);
    // Upstream's default may be taken (a real controller manager on this machine): any free port serves.
    controllersPort = await freePort();
    process.stdout.write(`local-up: port ${cfg.controllersPort} is in use; the controllers' health endpoints use ${controllersPort}\n`);
  }
  // Each service's /metrics listener, on a free loopback port (printed below).
  const metricsPorts: Record<MetricsListener, number> = { storage: 0, authn: 0, authz: 0, admission: 0 };
  for (const name of METRICS_LISTENERS) metricsPorts[name] = await freePort();
  let natsUrl = cfg.natsUrl;
  if (!natsUrl) {
    const natsPort = await localNatsPort(cfg.dir);
    if (!(await portIsFree(natsPort))) {
      throw new Error(
        `NATS port ${natsPort} (remembered in ${rel(path.join(cfg.dir, 'nats-port'))}) is in use — is another \`npm start\` running? ` +
          `Stop it, or delete that file to pick a new port, or set NATS_URL to use a running server.`,
      );
    }
    const natsLog = prefixer('nats', 5, format);
    const shown = (line: string) => line !== '' && !EXPECTED_NATS_WARNINGS.some((w) => line.includes(w));
    natsUrl = (await sup.startNats(path.join(cfg.dir, 'nats'), natsPort, state.nats, (chunk) => chunk.split('\n').filter(shown).forEach(natsLog))).url;
  }
  const natsAuth = sup.nats ? state.nats : undefined;

  // Its readiness pings as the monitor user, which may ping and read stream statistics only.
  const monitor = natsAuth?.users.monitor;
  const nc = await connectBus({
    url: natsUrl,
    name: 'platform-local-up',
    ...(monitor && natsAuth ? { user: monitor.user, password: monitor.password, tls: { caFile: natsAuth.caFile }, inboxPrefix: userInboxPrefix(monitor.user) } : {}),
  });
  const url = `https://127.0.0.1:${cfg.port}`;
  // The port the controllers bound, once they say so (another, if theirs was taken meanwhile).
  let controllersBound: Promise<{ port: number; ready: Promise<void> } | null> = Promise.resolve(null);
  try {
    let index = 0;
    for (const stage of SERVICE_STAGES) {
      if (sup.isStopping) break;
      const argsOf = (name: LocalServiceName, onPort: number) =>
        serviceArgs(name, { natsUrl: natsUrl!, state, port: cfg.port, controllersPort: onPort, metricsPorts, ...(natsAuth ? { natsAuth } : {}) });
      if (stage.includes('controllers')) {
        if (!(await gatewayReady(url, state, cfg.readyTimeoutMs, sup))) break;
        // Its port may be taken between the check above and its bind: it then binds another.
        const at = { port: controllersPort, named: cfg.controllersPortExplicit, reportMs: cfg.readyTimeoutMs, readyMs: CONTROLLERS_READY_WAIT_MS };
        controllersBound = sup.spawnListening('controllers', (port) => argsOf('controllers', port), at, cfg.servicesDir, index++);
        controllersBound.catch(() => undefined); // awaited below; not unhandled meanwhile
        continue;
      }
      const started = stage.map((name) => ({ name, child: sup.spawnService(name, argsOf(name, controllersPort), cfg.servicesDir, index++) }));
      // The gateway is no $SRV service: /readyz tells when it serves.
      if (stage.includes('gateway')) continue;
      // Wait until each answers $SRV.PING so the next stage finds its dependencies; a service that
      // never registers is reported but not fatal — /readyz is the real verdict.
      const results = await Promise.all(started.map(async (s) => ({ ...s, ok: await waitForPing(nc, ServiceName[s.name as keyof typeof ServiceName], s.child, 20_000) })));
      if (results.some((r) => r.child.exitCode !== null || r.child.signalCode !== null)) {
        await sup.finished; // the exit watcher is stopping everything
        break;
      }
      for (const r of results) if (!r.ok) process.stderr.write(`local-up: ${r.name} did not answer $SRV.PING yet; continuing\n`);
    }
  } finally {
    await nc.close();
  }

  const controllers = await controllersBound;
  // Their start-up lines come before the banner, which stays the last thing on the screen. Those
  // lines travel by the pipe and the report by the IPC channel: the pipe gets a moment to catch up.
  if (controllers) await controllers.ready.then(() => new Promise((r) => setTimeout(r, 200)));
  if (!sup.isStopping && controllers) {
    sup.up = true;
    const lines = [
      '',
      'platform-apiserver is up',
      `  NATS       ${natsUrl}${sup.nats ? ` (nats-server pid ${sup.nats.process.pid}, data in ${path.join(cfg.dir, 'nats')})` : ' (external)'}`,
      ...(natsAuth ? [`             TLS (CA ${rel(natsAuth.caFile)}), one user per service; passwords in ${rel(natsAuth.dir)}/`] : []),
      ...sup.running.map((r) => `  ${r.name.padEnd(10)} pid ${r.child.pid}`),
      `  API        ${url}`,
      `  controllers https://127.0.0.1:${controllers.port}/readyz  (health; each controller as its own service account)`,
      `  metrics    ${url}/metrics (system:monitoring or admin); unauthenticated, loopback only:`,
      `             ${METRICS_LISTENERS.map((n) => `${n} http://127.0.0.1:${metricsPorts[n]}/metrics`).join('\n             ')}`,
      '',
      `  export KUBECONFIG=${state.kubeconfig}`,
      '  kubectl get ns',
      `  curl --cacert ${state.pki.files.caCert} -H "Authorization: Bearer $(cat ${state.adminTokenFile})" ${url}/api/v1/namespaces`,
      '',
      'A service that dies is restarted (with back-off). Ctrl-C stops everything.',
      '',
    ];
    process.stdout.write(lines.join('\n'));
  }
  await sup.finished;
  return sup.code;
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`local-up: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
