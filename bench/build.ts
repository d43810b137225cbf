// The compiled build the bench runs: what the image and the Helm chart run (`npm run build` →
// dist/, see deploy/Dockerfile), plus the bench's own child processes (bench/*-proc.ts → dist/bench/)
// so that the system and the floors it is compared with run on the same footing. Built at bench
// start when an entry point is missing or older than any source.

import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { compiledPath, REPO_ROOT } from './procs.js';

const SOURCE_DIRS = ['shared', 'services', 'scripts', 'bench'];
const SERVICES = ['storage', 'authn', 'authz', 'admission', 'gateway'];
const BENCH_PROCS = ['gateway-proc', 'services-proc', 'baseline-proc', 'floor-gateway-proc', 'floor-storage-proc', 'webhook-proc'];

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'test') newest = Math.max(newest, newestSource(full));
    } else if (/\.(ts|json)$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function oldestEntry(): number {
  const entries = [...SERVICES.map((s) => `services/${s}/main.ts`), ...BENCH_PROCS.map((p) => `bench/${p}.ts`)];
  let oldest = Infinity;
  for (const e of entries) {
    try {
      oldest = Math.min(oldest, statSync(compiledPath(e)).mtimeMs);
    } catch {
      return 0;
    }
  }
  return oldest;
}

/** Runs the build when dist/ is missing or stale; says what it did through `progress`. */
export function ensureCompiledBuild(progress: (msg: string) => void): void {
  const sources = Math.max(...SOURCE_DIRS.map((d) => newestSource(path.join(REPO_ROOT, d))));
  const built = oldestEntry();
  if (built >= sources) return progress('compiled build in dist/ is up to date');
  progress(built === 0 ? 'building dist/ (tsc, bench/tsconfig.build.json)' : 'sources changed since the last build: rebuilding dist/');
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(REPO_ROOT, 'bench', 'tsconfig.build.json')], { cwd: REPO_ROOT, encoding: 'utf8' });
  // tsc emits despite type errors; the bench can still run what was emitted, but says so.
  if (r.status !== 0) progress(`tsc reported errors (the emitted build is used anyway):\n${(r.stdout + r.stderr).split('\n').slice(0, 10).join('\n')}`);
  if (oldestEntry() === 0) throw new Error('the build did not produce every entry point the bench runs');
}
