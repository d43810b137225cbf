// Finds the nats-server binary for `npm start` and the tests, and sets it up on a machine that has
// none: as root with apt-get, Debian's package is installed; otherwise the one command to run is
// said. Debian installs the broker in /usr/sbin, which a non-root PATH usually lacks, so the sbin
// directories are searched even when PATH does not name them. NATS_SERVER_BIN overrides the search.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Searched after PATH: where Debian's package and a manual install put the binary. */
const SBIN_DIRS: readonly string[] = ['/usr/sbin', '/usr/local/sbin'];

const APT_INSTALL = ['apt-get', 'install', '-y', 'nats-server'] as const;

/** What the decision needs to know about this machine. */
export interface NatsServerHost {
  /** NATS_SERVER_BIN: a path, or a name looked up like the default. */
  explicit?: string;
  /** PATH's directories, in order. */
  pathDirs: readonly string[];
  isExecutable(file: string): boolean;
  isRoot: boolean;
}

export type NatsServerPlan =
  | { kind: 'found'; path: string }
  /** Not found; root with apt-get: install Debian's package. */
  | { kind: 'install'; command: readonly string[] }
  /** Not found and not ours to install: `message` says what to run. */
  | { kind: 'missing'; message: string };

/** Where `name` is: PATH first, then the sbin directories; undefined when nowhere. */
function findExecutable(name: string, host: Pick<NatsServerHost, 'pathDirs' | 'isExecutable'>): string | undefined {
  if (name.includes('/')) return host.isExecutable(name) ? name : undefined;
  const dirs = [...host.pathDirs.filter((d) => d !== ''), ...SBIN_DIRS.filter((d) => !host.pathDirs.includes(d))];
  return dirs.map((d) => path.join(d, name)).find((f) => host.isExecutable(f));
}

/** The decision alone (table-tested): use the binary found, install the package, or stop and say how. */
export function planNatsServer(host: NatsServerHost): NatsServerPlan {
  if (host.explicit) {
    const found = findExecutable(host.explicit, host);
    return found ? { kind: 'found', path: found } : { kind: 'missing', message: `NATS_SERVER_BIN=${host.explicit} is not an executable file` };
  }
  const found = findExecutable('nats-server', host);
  if (found) return { kind: 'found', path: found };
  const apt = findExecutable('apt-get', host);
  if (apt && host.isRoot) return { kind: 'install', command: APT_INSTALL };
  const how = apt ? `run: sudo ${APT_INSTALL.join(' ')}` : 'install it (https://docs.nats.io/running-a-nats-service/introduction/installation)';
  return { kind: 'missing', message: `nats-server is not installed; ${how} (or set NATS_SERVER_BIN to its path)` };
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** This machine, as planNatsServer sees it. */
function thisHost(env: NodeJS.ProcessEnv = process.env): NatsServerHost {
  return {
    ...(env.NATS_SERVER_BIN ? { explicit: env.NATS_SERVER_BIN } : {}),
    pathDirs: (env.PATH ?? '').split(path.delimiter),
    isExecutable,
    isRoot: process.getuid?.() === 0,
  };
}

/** The nats-server to run, or undefined when there is none (for tests that skip without one). */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const plan = planNatsServer(thisHost(env));
  return plan.kind === 'found' ? plan.path : undefined;
}

/** The nats-server to run; throws the one-line instruction when there is none (installing is for the entry points). */
export function natsServerBinary(env: NodeJS.ProcessEnv = process.env): string {
  const plan = planNatsServer(thisHost(env));
  if (plan.kind === 'found') return plan.path;
  throw new Error(plan.kind === 'install' ? `nats-server is not installed; run: ${plan.command.join(' ')} (or set NATS_SERVER_BIN to its path)` : plan.message);
}

/**
 * For the entry points (`npm start`, `npm test`): the binary, installing Debian's package first
 * when the plan says so (apt-get update only if the install fails, as a fresh machine's package
 * lists may be missing or stale). `say` gets one line about the install.
 */
export function ensureNatsServer(say: (line: string) => void, env: NodeJS.ProcessEnv = process.env): string {
  const plan = planNatsServer(thisHost(env));
  if (plan.kind === 'found') return plan.path;
  if (plan.kind === 'missing') throw new Error(plan.message);
  say(`nats-server not found: installing Debian's package (${plan.command.join(' ')})`);
  const [cmd, ...args] = plan.command;
  const run = (a: readonly string[]) => spawnSync(cmd!, a, { encoding: 'utf8', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  let r = run(args);
  if (r.status !== 0) {
    const update = run(['update']);
    if (update.status === 0) r = run(args);
    else r = update;
  }
  if (r.status !== 0) {
    const said = `${r.stderr ?? ''}${r.error?.message ?? ''}`.trim().split('\n').slice(-2).join(' | ');
    throw new Error(`installing nats-server failed (${said || `exit ${r.status}`}); run ${plan.command.join(' ')} yourself`);
  }
  return natsServerBinary(env);
}
