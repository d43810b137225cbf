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

import { type ChildProcess } from 'node:child_process';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectBus } from '../shared/bus/connect.js';
import { userInboxPrefix } from '../shared/bus/permissions.js';
import { ServiceName, serviceSubjects } from '../shared/bus/subjects.js';
import { freePort } from '../shared/local/nats-server.js';
import { ensureNatsServer } from '../shared/local/nats-server-binary.js';
import type { LocalNatsAuth } from '../shared/local/nats-auth.js';
import { isEntryPoint } from './entry-point.js';
import { DEFAULT_CONTROLLERS_PORT, METRICS_LISTENERS, SERVICE_STAGES, serviceArgs, type LocalServiceName, type MetricsListener } from './local-services.js';
import { localNatsPort, prepareLocalState, type LocalState } from './local-state.js';
import { prefixer, Supervisor } from './local-supervisor.js';
import { terminalLineFormat, type LineFormat } from './pretty-log.js';

// The parts: local-state (the local directory), local-services (start order, command lines),
// local-supervisor (the child processes).
export { DEFAULT_CONTROLLERS_PORT, METRICS_LISTENERS, SERVICE_STAGES, serviceArgs, type LocalServiceName, type MetricsListener } from './local-services.js';
export { LOCAL_SA_ISSUER, ensureServiceAccountKey, ensureTokenFile, localNatsPort, prepareLocalState, type LocalState } from './local-state.js';
export { restartDelayMs } from './local-supervisor.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * nats-server's warnings that every start of this set-up gives and that need no action: the users'
 * passwords sit in plain text in the 0600 configuration local-up writes (docs/operations.md).
 */
const EXPECTED_NATS_WARNINGS = ['Plaintext passwords detected'];

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

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
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

const USAGE = `usage: npm start [-- --init-only]

Starts nats-server (unless NATS_URL is set; TLS and one user per service) and every service, with
state in $PLATFORM_LOCAL_DIR.
  --init-only   write the PKI, NATS users, token file and kubeconfig, then exit
Environment: PLATFORM_LOCAL_DIR (./.local), PLATFORM_PORT (6443), NATS_URL, PLATFORM_NATS_PORT,
             PLATFORM_CERT_SANS (extra serving-certificate names), PLATFORM_LOG_LEVEL,
             PLATFORM_CONTROLLERS_PORT (10257; the controllers' /healthz, /livez, /readyz, /metrics)
`;

const rel = (p: string) => path.relative(process.cwd(), p) || '.';

/** An exit code when the arguments end the run (`--help`, an unknown one); undefined to go on. */
function checkArgs(argv: string[]): number | undefined {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = argv.filter((a) => a !== '--init-only');
  if (unknown.length) {
    process.stderr.write(`local-up: unknown argument ${unknown[0]}\n${USAGE}`);
    return 2;
  }
  return undefined;
}

/** Ctrl-C, SIGTERM, and the parent going away all stop everything in order; an exit of another kind kills the children. */
function stopOnSignals(sup: Supervisor): void {
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
}

interface Ports {
  controllersPort: number;
  metricsPorts: Record<MetricsListener, number>;
}

/** The gateway's port must be free; the controllers' and the metrics listeners' are chosen here. */
async function choosePorts(cfg: LocalConfig): Promise<Ports> {
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
  return { controllersPort, metricsPorts };
}

/** Starts the local nats-server on its remembered port; resolves with its URL. */
async function startNats(cfg: LocalConfig, state: LocalState, sup: Supervisor, format: LineFormat): Promise<string> {
  const natsPort = await localNatsPort(cfg.dir);
  if (!(await portIsFree(natsPort))) {
    throw new Error(
      `NATS port ${natsPort} (remembered in ${rel(path.join(cfg.dir, 'nats-port'))}) is in use — is another \`npm start\` running? ` +
        `Stop it, or delete that file to pick a new port, or set NATS_URL to use a running server.`,
    );
  }
  const natsLog = prefixer('nats', 5, format);
  const shown = (line: string) => line !== '' && !EXPECTED_NATS_WARNINGS.some((w) => line.includes(w));
  return (await sup.startNats(path.join(cfg.dir, 'nats'), natsPort, state.nats, (chunk) => chunk.split('\n').filter(shown).forEach(natsLog))).url;
}

/** What bringing the services up needs. */
interface BringUp extends Ports {
  cfg: LocalConfig;
  state: LocalState;
  sup: Supervisor;
  natsUrl: string;
  natsAuth: LocalNatsAuth | undefined;
  /** The gateway's URL. */
  url: string;
}

type ControllersBound = { port: number; ready: Promise<void> } | null;

/**
 * Starts the services stage by stage, each once the one before answers; resolves with the port
 * the controllers bound, once they say so (another, if theirs was taken meanwhile), or null when
 * bring-up stopped before them.
 */
async function bringUp(b: BringUp): Promise<ControllersBound> {
  const { cfg, state, sup, natsUrl, natsAuth } = b;
  // Its readiness pings as the monitor user, which may ping and read stream statistics only.
  const monitor = natsAuth?.users.monitor;
  const nc = await connectBus({
    url: natsUrl,
    name: 'platform-local-up',
    ...(monitor && natsAuth ? { user: monitor.user, password: monitor.password, tls: { caFile: natsAuth.caFile }, inboxPrefix: userInboxPrefix(monitor.user) } : {}),
  });
  let controllersBound: Promise<ControllersBound> = Promise.resolve(null);
  try {
    let index = 0;
    for (const stage of SERVICE_STAGES) {
      if (sup.isStopping) break;
      const argsOf = (name: LocalServiceName, onPort: number) =>
        serviceArgs(name, { natsUrl, state, port: cfg.port, controllersPort: onPort, metricsPorts: b.metricsPorts, ...(natsAuth ? { natsAuth } : {}) });
      if (stage.includes('controllers')) {
        if (!(await gatewayReady(b.url, state, cfg.readyTimeoutMs, sup))) break;
        // Its port may be taken between the check above and its bind: it then binds another.
        const at = { port: b.controllersPort, named: cfg.controllersPortExplicit, reportMs: cfg.readyTimeoutMs, readyMs: CONTROLLERS_READY_WAIT_MS };
        controllersBound = sup.spawnListening('controllers', (port) => argsOf('controllers', port), at, cfg.servicesDir, index++);
        controllersBound.catch(() => undefined); // awaited below; not unhandled meanwhile
        continue;
      }
      const started = stage.map((name) => ({ name, child: sup.spawnService(name, argsOf(name, b.controllersPort), cfg.servicesDir, index++) }));
      // The gateway is no $SRV service: /readyz tells when it serves.
      if (stage.includes('gateway')) continue;
      if (!(await pinged(nc, sup, started))) break;
    }
  } finally {
    await nc.close();
  }
  return controllersBound;
}

/**
 * Waits until each answers $SRV.PING so the next stage finds its dependencies; a service that
 * never registers is reported but not fatal — /readyz is the real verdict. False when one exited
 * (everything is then stopped).
 */
async function pinged(nc: NatsConnection, sup: Supervisor, started: Array<{ name: LocalServiceName; child: ChildProcess }>): Promise<boolean> {
  const results = await Promise.all(started.map(async (s) => ({ ...s, ok: await waitForPing(nc, ServiceName[s.name as keyof typeof ServiceName], s.child, 20_000) })));
  if (results.some((r) => r.child.exitCode !== null || r.child.signalCode !== null)) {
    await sup.finished; // the exit watcher is stopping everything
    return false;
  }
  for (const r of results) if (!r.ok) process.stderr.write(`local-up: ${r.name} did not answer $SRV.PING yet; continuing\n`);
  return true;
}

function printBanner(b: BringUp, controllersPort: number): void {
  const { cfg, state, sup, natsUrl, natsAuth, url, metricsPorts } = b;
  const lines = [
    '',
    'platform-apiserver is up',
    `  NATS       ${natsUrl}${sup.nats ? ` (nats-server pid ${sup.nats.process.pid}, data in ${path.join(cfg.dir, 'nats')})` : ' (external)'}`,
    ...(natsAuth ? [`             TLS (CA ${rel(natsAuth.caFile)}), one user per service; passwords in ${rel(natsAuth.dir)}/`] : []),
    ...sup.running.map((r) => `  ${r.name.padEnd(10)} pid ${r.child.pid}`),
    `  API        ${url}`,
    `  controllers https://127.0.0.1:${controllersPort}/readyz  (health; each controller as its own service account)`,
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

async function main(argv: string[]): Promise<number> {
  const early = checkArgs(argv);
  if (early !== undefined) return early;
  const cfg = localConfigFromEnv();
  // Before anything is written or started: a machine without nats-server gets it (as root) or is
  // told the command. `--init-only` (docker compose's init) and an external NATS_URL need none.
  if (!argv.includes('--init-only') && !cfg.natsUrl) ensureNatsServer((line) => process.stdout.write(`local-up: ${line}\n`));
  const state = await prepareLocalState(cfg);
  if (argv.includes('--init-only')) {
    process.stdout.write(`wrote ${rel(state.pki.files.dir)}/, ${rel(state.nats.dir)}/, ${rel(state.tokenFile)}, ${rel(state.kubeconfig)}\n`);
    return 0;
  }

  const format = await terminalLineFormat(process.stdout.isTTY);
  const sup = new Supervisor(format);
  stopOnSignals(sup);
  const ports = await choosePorts(cfg);
  const natsUrl = cfg.natsUrl || (await startNats(cfg, state, sup, format));
  const natsAuth = sup.nats ? state.nats : undefined;
  const b: BringUp = { cfg, state, sup, natsUrl, natsAuth, url: `https://127.0.0.1:${cfg.port}`, ...ports };
  const controllers = await bringUp(b);
  // Their start-up lines come before the banner, which stays the last thing on the screen. Those
  // lines travel by the pipe and the report by the IPC channel: the pipe gets a moment to catch up.
  if (controllers) await controllers.ready.then(() => new Promise((r) => setTimeout(r, 200)));
  if (!sup.isStopping && controllers) {
    sup.up = true;
    printBanner(b, controllers.port);
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
