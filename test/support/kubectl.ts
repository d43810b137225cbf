// Runs the upstream kubectl binary (when it is on PATH) against a test cluster's kubeconfig, with
// a private discovery cache so runs never see each other's cached API lists; and the setup of a
// suite that runs it against a test cluster of its own.

import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { startTestCluster, type ClusterOptions, type TestCluster } from './cluster.js';

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

/** A run's stdout; fails the test, with kubectl's own words, when kubectl did not exit 0. */
export function kubectlOk(r: KubectlResult): string {
  assert.equal(r.code, 0, `kubectl failed (${r.code}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** What `kubectlSuite` sets up; its fields are set once the suite's `before` hook has run. */
export interface KubectlSuite {
  cluster: TestCluster;
  kubectl: Kubectl;
  /** A scratch directory for the suite's manifests. */
  dir: string;
}

/**
 * Adds to the describe block it is called in a `before` hook that starts a test cluster, a kubectl
 * (`bin`) for it and a scratch directory (named from `dirPrefix`), and an `after` hook that stops
 * and removes all three. With no `bin` (kubectl is not on PATH and the suite is skipped) the hooks
 * do nothing. `options` are the test cluster's.
 */
export function kubectlSuite(bin: string | undefined, dirPrefix: string, options: ClusterOptions = {}): KubectlSuite {
  const suite = {} as KubectlSuite;
  before(async () => {
    if (!bin) return;
    suite.cluster = await startTestCluster(options);
    suite.kubectl = new Kubectl(bin, suite.cluster.kubeconfigPath);
    suite.dir = await mkdtemp(path.join(os.tmpdir(), dirPrefix));
  });
  after(async () => {
    await suite.cluster?.stop();
    if (suite.dir) await rm(suite.dir, { recursive: true, force: true });
    if (suite.kubectl) await rm(suite.kubectl.cacheDir, { recursive: true, force: true });
  });
  return suite;
}
