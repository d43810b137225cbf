// Runs the upstream kubectl binary (when it is on PATH) against a test cluster's kubeconfig, with
// a private discovery cache so runs never see each other's cached API lists.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Absolute path of kubectl, or undefined when it is not installed. */
export function findKubectl(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, 'kubectl');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class Kubectl {
  readonly cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));

  constructor(
    readonly bin: string,
    readonly kubeconfig: string,
  ) {}

  private baseArgs(): string[] {
    return ['--kubeconfig', this.kubeconfig, '--cache-dir', this.cacheDir, '--request-timeout=20s'];
  }

  private env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    // HOME points at a fresh directory so no user configuration (or ~/.kube/cache) leaks in.
    return { ...process.env, HOME: this.cacheDir, KUBECONFIG: this.kubeconfig, KUBECTL_COMMAND_HEADERS: 'false', ...extra };
  }

  /** `env` is added to the child's environment (KUBE_EDITOR for `kubectl edit`). */
  run(args: string[], opts: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(this.bin, [...this.baseArgs(), ...args], { env: this.env(opts.env), timeout: opts.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      });
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      else child.stdin?.end();
    });
  }

  spawn(args: string[]): ChildProcess {
    return spawn(this.bin, [...this.baseArgs(), ...args], { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
  }
}
