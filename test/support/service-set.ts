// The platform's services run from their entry points (tsx) as processes on one NATS, with a static
// admin token: what the end-to-end suites that start, kill and add gateways bring up first.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, spawnProcess, type Proc } from './processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export class ServiceSet {
  readonly procs: Proc[] = [];
  private dir: string | undefined;

  constructor(
    private readonly natsUrl: string,
    /** Bearer token of a `system:masters` user (authn's token file). */
    readonly token: string,
  ) {}

  /** Starts `services/<name>/main.ts` with `args` and resolves once its output matches `ready`. */
  async start(name: string, args: string[], ready: RegExp, timeoutMs = 90_000): Promise<Proc> {
    const p = spawnProcess(['--import', 'tsx', `services/${name}/main.ts`, `--nats-url=${this.natsUrl}`, ...args], { cwd: root, env: cleanEnv() });
    this.procs.push(p);
    await p.waitFor(ready, timeoutMs);
    return p;
  }

  /** Storage, then authn (knowing the token), authz and admission: everything a gateway needs. */
  async startBackends(): Promise<void> {
    this.dir = await mkdtemp(path.join(os.tmpdir(), 'platform-services-'));
    const tokens = path.join(this.dir, 'tokens.csv');
    await writeFile(tokens, `${this.token},admin,admin-uid,"system:masters"\n`);
    await this.start('storage', [], /service started/);
    await Promise.all([this.start('authn', [`--token-auth-file=${tokens}`], /service started/), this.start('authz', [], /service started/), this.start('admission', [], /service started/)]);
  }

  /** Kills what still runs and waits for every process to exit. */
  async stop(): Promise<void> {
    for (const p of this.procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(this.procs.map((p) => p.exited));
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}
