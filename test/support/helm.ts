// The Helm chart's renderer for tests (test/helm-render/main.go, a stand-in for `helm template`:
// there is no helm binary here). Built with Debian's Go and sprig (golang-go,
// golang-github-masterminds-sprig-dev) once per source and Go version, and cached under
// node_modules/.cache/helm-render, so a run pays for the build (seconds) only when main.go changed.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHART_DIR = path.join(root, 'helm/platform-apiserver');
const SOURCE_DIR = path.join(root, 'test/helm-render');
const CACHE_DIR = path.join(root, 'node_modules/.cache/helm-render');
/** Where Debian's golang-*-dev packages put their sources (GOPATH mode). */
const DEBIAN_GOPATH = '/usr/share/gocode';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(bin: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(bin, args, { cwd: opts.cwd ?? root, env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Absolute path of `go`, or undefined when it is not installed. */
export function findGo(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, 'go');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Builds the renderer unless a binary of this source and Go version is cached; returns its path. */
export async function buildRenderer(go: string): Promise<string> {
  const version = await run(go, ['version']);
  const hash = createHash('sha256')
    .update(readFileSync(path.join(SOURCE_DIR, 'main.go')))
    .update(version.stdout)
    .digest('hex')
    .slice(0, 16);
  const bin = path.join(CACHE_DIR, `helm-render-${hash}`);
  if (existsSync(bin)) return bin;
  await mkdir(CACHE_DIR, { recursive: true });
  const tmp = `${bin}.${process.pid}.tmp`;
  const env = { ...process.env, GO111MODULE: 'off', GOPATH: DEBIAN_GOPATH, GOCACHE: path.join(CACHE_DIR, 'go-build'), GOFLAGS: '' };
  const r = await run(go, ['build', '-o', tmp, '.'], { cwd: SOURCE_DIR, env, timeoutMs: 300_000 });
  if (r.code !== 0) {
    const hint = /cannot find package/.test(r.stderr) ? ' (Debian: apt-get install golang-github-masterminds-sprig-dev)' : '';
    throw new Error(`building test/helm-render failed${hint}:\n${r.stderr}`);
  }
  // Atomic, so parallel runs never execute a half-written binary.
  await rename(tmp, bin);
  // Builds of older sources are of no further use.
  for (const f of await readdir(CACHE_DIR)) if (f.startsWith('helm-render-') && path.join(CACHE_DIR, f) !== bin && !f.endsWith('.tmp')) await rm(path.join(CACHE_DIR, f), { force: true });
  return bin;
}

export interface RenderOptions {
  /** The chart's directory; helm/platform-apiserver when absent. */
  chart?: string;
  name?: string;
  namespace?: string;
  /** Values files, applied in order over the chart's values.yaml (helm's -f). */
  values?: string[];
  /** Print the merged values as JSON instead of manifests. */
  valuesJson?: boolean;
  /** Print NOTES.txt as `helm install` shows it instead of manifests. */
  notes?: boolean;
  /** Manifests standing for the cluster's objects, found by `lookup` (as on `helm upgrade`). */
  existing?: string;
}

export function renderChart(bin: string, o: RenderOptions = {}): Promise<RunResult> {
  const args = ['--chart', o.chart ?? CHART_DIR, '--name', o.name ?? 'platform', '--namespace', o.namespace ?? 'default'];
  for (const f of o.values ?? []) args.push('-f', f);
  if (o.existing) args.push('--existing', o.existing);
  if (o.valuesJson) args.push('--values-json');
  if (o.notes) args.push('--notes');
  return run(bin, args);
}
