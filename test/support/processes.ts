// Test harness for the suites that run the real entry points as processes (services/<name>/main.ts,
// `npm start`): output kept for failure messages, exits awaited with a deadline, and what /proc says
// about a pid (alive, CPU ticks, RSS, children) — Linux only, as the CI machine is.

import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Proc {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr interleaved, the last MAX_OUTPUT characters. */
  output(): string;
  /** Resolves with the first match of `re` in the output; rejects if the process exits first or on timeout. */
  waitFor(re: RegExp, ms: number): Promise<RegExpMatchArray>;
  /** Resolves once the process has exited. */
  exited: Promise<ExitStatus>;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const MAX_OUTPUT = 1 << 20;

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Give the child an IPC channel, as `npm start` does with its services. */
  ipc?: boolean;
  /** Its own process group, so the whole group can be killed at the end. */
  detached?: boolean;
}

export function spawnProcess(args: string[], o: SpawnOptions): Proc {
  const stdio: StdioOptions = o.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'];
  const child = spawn(process.execPath, args, { cwd: o.cwd, env: o.env, stdio, detached: o.detached ?? false });
  let out = '';
  const append = (d: Buffer) => {
    out += d.toString();
    if (out.length > MAX_OUTPUT) out = out.slice(out.length - MAX_OUTPUT);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<ExitStatus>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  if (child.pid === undefined) throw new Error(`could not spawn ${args.join(' ')}`);
  return {
    child,
    pid: child.pid,
    output: () => out,
    exited,
    waitFor: async (re, ms) => {
      const until = Date.now() + ms;
      for (;;) {
        const m = re.exec(out);
        if (m) return m;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${args.join(' ')} exited (${child.signalCode ?? child.exitCode}) before printing ${re}:\n${tail(out)}`);
        if (Date.now() > until) throw new Error(`${args.join(' ')} did not print ${re} within ${ms} ms:\n${tail(out)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** The last lines of a process's output, for an assertion message. */
export function tail(text: string, lines = 40): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** The exit status, or null if the process is still running after `ms`. */
export async function exitWithin(p: Proc, ms: number): Promise<ExitStatus | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  try {
    return await Promise.race([p.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The inherited environment without PLATFORM_* and NATS_* variables: they map onto service options,
 * and a test about defaults must not pick up whatever the developer's shell sets.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PLATFORM_') && !k.startsWith('NATS_')) env[k] = v;
  return { ...env, ...extra };
}

// ---- /proc ---------------------------------------------------------------------------------

interface ProcStat {
  state: string;
  ppid: number;
  /** utime + stime, in clock ticks. */
  cpuTicks: number;
  /** Start time since boot, in clock ticks: tells a pid apart from a later process reusing it. */
  startTime: number;
}

function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: f[0]!, ppid: Number(f[1]), cpuTicks: Number(f[11]) + Number(f[12]), startTime: Number(f[19]) };
}

/** Whether the pid runs; a zombie (exited, not yet reaped by whoever inherited it) counts as gone. */
export function isRunning(pid: number): boolean {
  const s = procStat(pid);
  return s !== undefined && s.state !== 'Z' && s.state !== 'X';
}

/** User + system CPU time of a pid so far, in clock ticks; undefined once it is gone. */
export function cpuTicks(pid: number): number | undefined {
  return procStat(pid)?.cpuTicks;
}

/** Resident set size of a pid in KiB (VmRSS); undefined once it is gone. */
export function rssKiB(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

let ticksPerSecond: number | undefined;
/** CLK_TCK, the unit of the CPU times in /proc/<pid>/stat. */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    const n = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim());
    ticksPerSecond = Number.isInteger(n) && n > 0 ? n : 100;
  }
  return ticksPerSecond;
}

export interface ProcessId {
  pid: number;
  name: string;
  startTime: number;
}

/** Every live descendant of `root` (children, their children, …), with its command name. */
export function descendants(root: number): ProcessId[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const s = procStat(pid);
    if (!s || s.state === 'Z') continue;
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const found: ProcessId[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift()!;
    const s = procStat(pid);
    if (!s) continue;
    let name = '?';
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      // gone meanwhile
    }
    found.push({ pid, name, startTime: s.startTime });
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** SIGKILLs a process found earlier, unless its pid now belongs to another process. */
export function killIfSame(p: ProcessId): void {
  const s = procStat(p.pid);
  if (!s || s.startTime !== p.startTime || s.state === 'Z') return;
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
