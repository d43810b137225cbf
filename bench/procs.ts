// Child processes of the benchmark: spawned with `node --import tsx` (not the tsx CLI, which would
// add a wrapper process and make the PID we read RSS from the wrong one) or, compiled, with plain
// `node dist/…` as the image runs them, their output kept in a
// small ring so a failure can show what the child said, and stopped gracefully (SIGTERM) with a
// SIGKILL fallback. Every child is registered so the bench can kill them all on any exit path.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withRuntimeEnv } from '../shared/local/runtime-env.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  name: string;
  proc: ChildProcess;
  /** Last lines the child wrote (stdout and stderr), for error reports. */
  tail(): string;
  /** Resolves when a line matching `re` appears; rejects if the child exits first or on timeout. */
  waitForLine(re: RegExp, timeoutMs: number): Promise<string>;
  /** Resident set size in MiB, from /proc/<pid>/status VmRSS. */
  rssMiB(): number;
  stop(): Promise<void>;
}

const live = new Set<Child>();

// Last resort: if the bench dies without running its cleanup, no child outlives it.
process.on('exit', () => {
  for (const c of live) c.proc.kill('SIGKILL');
});

export interface SpawnOptions {
  env?: Record<string, string>;
  /** Extra node flags (e.g. --cpu-prof) placed before the script. */
  nodeFlags?: string[];
  /** Open an IPC channel (child gets process.send). */
  ipc?: boolean;
  /** Run the compiled build (dist/, as the image does: plain node, NODE_ENV=production) instead of the sources through tsx. */
  compiled?: boolean;
}

/** The compiled file of a source under the repository (`bench/x.ts` → `<root>/dist/bench/x.js`). */
export function compiledPath(script: string): string {
  return path.join(REPO_ROOT, 'dist', script.replace(/\.ts$/, '.js'));
}

/** Resident set size of a live process in MiB, from /proc/<pid>/status VmRSS (throws once it is gone). */
export function rssMiBOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN) / 1024;
}

export function spawnNode(name: string, script: string, args: string[], opts: SpawnOptions = {}): Child {
  // BENCH_CPU_PROF_DIR=<dir>: every child writes a V8 CPU profile there when it exits (node does
  // not take --cpu-prof from NODE_OPTIONS).
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  const loader = opts.compiled ? [] : ['--import', 'tsx'];
  const main = opts.compiled ? compiledPath(script) : path.join(REPO_ROOT, script);
  const proc = spawn(process.execPath, [...loader, ...profile, ...(opts.nodeFlags ?? []), main, ...args], {
    cwd: REPO_ROOT,
    // Every process, the floors' too, with the runtime settings the image ships (runtime-env.ts).
    env: withRuntimeEnv({ ...process.env, ...(opts.compiled ? { NODE_ENV: 'production' } : {}), ...opts.env }),
    stdio: opts.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const onChunk = (buf: Buffer) => {
    for (const line of buf.toString().split('\n')) {
      if (!line) continue;
      lines.push(line);
      if (lines.length > 40) lines.shift();
      for (const l of listeners) l(line);
    }
  };
  proc.stdout!.on('data', onChunk);
  proc.stderr!.on('data', onChunk);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));

  const child: Child = {
    name,
    proc,
    tail: () => lines.join('\n'),
    waitForLine: (re, timeoutMs) =>
      new Promise((resolve, reject) => {
        const done = (err?: Error, line?: string) => {
          clearTimeout(timer);
          listeners.delete(onLine);
          proc.off('exit', onExit);
          if (err) reject(err);
          else resolve(line!);
        };
        const onLine = (line: string) => re.test(line) && done(undefined, line);
        const onExit = (code: number | null) => done(new Error(`${name} exited (code ${code}) before printing ${re}:\n${child.tail()}`));
        const timer = setTimeout(() => done(new Error(`${name} did not print ${re} within ${timeoutMs} ms:\n${child.tail()}`)), timeoutMs);
        listeners.add(onLine);
        proc.once('exit', onExit);
        for (const l of lines) if (re.test(l)) return done(undefined, l);
      }),
    rssMiB: () => rssMiBOf(proc.pid!),
    stop: async () => {
      live.delete(child);
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  live.add(child);
  return child;
}
