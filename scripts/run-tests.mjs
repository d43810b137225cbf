// Runs test files with node's test runner (Node 20 has no glob support in --test).
//   node scripts/run-tests.mjs [--unit] [--timing[=FILE]] [path-substring ...]
// `--unit` runs the tests under shared/: the pure modules' tests, which need no NATS (the test
// harness refuses to start one in such a run). Shared modules tested against a real nats-server
// are in test/integration/. A run that selects any other test first makes sure nats-server is
// there (shared/local/nats-server-binary.ts: found off PATH too, installed from Debian as root, or
// the command to run is said) and hands its path to the tests as NATS_SERVER_BIN.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { longestFirst } from './test-durations.mjs';

const UNIT_ROOTS = ['shared'];
const unitOnly = process.argv.includes('--unit');
const roots = unitOnly ? UNIT_ROOTS : [...UNIT_ROOTS, 'services', 'scripts', 'test'];
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(p);
  }
}
for (const r of roots) walk(r);
// The compose suite first beside the short files, then the rest longest first
// (scripts/test-durations.mjs): with two files at a time a long file started late runs on alone
// at the end, and compose's partition tests fail beside other end-to-end bring-ups.
const ordered = longestFirst(files);
// `--timing`: also write where each file's wall time went (start-up, tests, tail) to FILE
// (test-timing.log by default), see scripts/test-timing-reporter.mjs.
const timingArg = process.argv.find((a) => a === '--timing' || a.startsWith('--timing='));
const timingFile = timingArg && (timingArg.split('=')[1] || 'test-timing.log');
const extra = process.argv.slice(2).filter((a) => a !== '--unit' && a !== timingArg);
const selected = extra.length ? ordered.filter((f) => extra.some((e) => f.includes(e))) : ordered;
if (selected.length === 0) {
  process.stderr.write(`run-tests: no test file under ${roots.join(', ')} matches ${extra.join(' ')}\n`);
  process.exit(1);
}

const env = { ...process.env };
if (unitOnly) env.PLATFORM_TEST_UNIT = '1';
else if (selected.some((f) => !UNIT_ROOTS.some((r) => f.startsWith(r + path.sep)))) {
  const { ensureNatsServer } = await tsImport('../shared/local/nats-server-binary.ts', import.meta.url);
  try {
    env.NATS_SERVER_BIN = ensureNatsServer((line) => process.stdout.write(`run-tests: ${line}\n`));
  } catch (err) {
    process.stderr.write(`run-tests: ${err.message}\n`);
    process.exit(1);
  }
}
// Not `node --test <files>`: it sorts the files by path before starting them, whatever order they
// are named in (scripts/run-test-files.mjs runs them through node:test's run() instead, in order).
// --enable-source-maps: node's runner then reports a failing test's location as its line in the
// .ts file rather than a position in tsx's transpiled output (`file.ts:2:1029`); the files' processes
// get these node flags from the runner's.
// Timeout: a test that hangs fails after 10 minutes (suites that need longer say so).
// Not forceExit (--test-force-exit): on Node 20 it exits a file's process before its results reach this
// runner (a unit file reported 52 of its 65 tests, and the run stayed green whatever the lost ones
// said). A preloaded guard that ended lingering files from a root after() hook made files hang
// now and then (1 run in 16 of one file), so neither is used: a file that something it started
// keeps alive holds the run, and the whole run gives up after RUN_LIMIT_MS, saying so.
const RUN_LIMIT_MS = 60 * 60_000;
const CONCURRENCY = 2;
const TEST_TIMEOUT_MS = 600_000;
const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run-test-files.mjs');
const args = ['--enable-source-maps', '--import', 'tsx', runner, String(CONCURRENCY), String(TEST_TIMEOUT_MS), ...(timingFile ? [timingFile] : []), '--', ...selected];
const res = spawnSync(process.execPath, args, { stdio: 'inherit', env, timeout: RUN_LIMIT_MS, killSignal: 'SIGKILL' });
if (res.error) process.stderr.write(`run-tests: ${res.error.message} (the run was stopped after ${RUN_LIMIT_MS / 60_000} minutes: a test file did not exit)\n`);
else if (res.signal) process.stderr.write(`run-tests: the test runner was killed by ${res.signal}\n`);
process.exit(res.status ?? 1);
