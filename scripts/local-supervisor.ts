// The child processes of `npm start`: the services and the local nats-server, their output shown
// with a coloured name per line, restarted with back-off once the cluster is up, and stopped in
// reverse start order, with a reaper (scripts/reaper.mjs) that stops them if this process is
// killed outright.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort, startLocalNats, type LocalNats } from '../shared/local/nats-server.js';
import { natsUserEntries, type LocalNatsAuth } from '../shared/local/nats-auth.js';
import type { ListenerReport, SupervisorReport } from '../shared/service-main.js';
import { SERVICE_STAGES, type LocalServiceName } from './local-services.js';
import type { LineFormat } from './pretty-log.js';
import { withRuntimeEnv } from '../shared/local/runtime-env.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const COLORS = [36, 33, 35, 32, 34, 31];

/** Writes a child's output lines under its name, coloured on a terminal. */
export function prefixer(name: string, index: number, format: LineFormat): (line: string) => void {
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

export class Supervisor {
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
      const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true, env: withRuntimeEnv(process.env) });
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
