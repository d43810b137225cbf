// The order run-tests.mjs starts test files in: longest first, so that with two files at a time no
// long file starts late and runs on alone at the end; the many short files fill in after. How long
// a file takes comes from test-durations.json (seconds of a file's process, from a `--timing` run);
// a file it does not list is taken to be as long as a typical end-to-end file (under test/e2e/) or
// a short one (elsewhere), so a new file still runs, just not necessarily at its best place.
//   Refresh the table: node scripts/run-tests.mjs --timing && node scripts/test-durations.mjs test-timing.log
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TABLE = fileURLToPath(new URL('./test-durations.json', import.meta.url));
/** Files shorter than this are left out of the table (they take the default). */
const LISTED_FROM_S = 3;
const UNKNOWN_E2E_S = 10;
const UNKNOWN_S = 1;
/** Files that run only with a Docker engine (the CI machine has one): a run without keeps their CI time. */
const COMPOSE = 'test/e2e/compose.test.ts';
const DOCKER_ONLY_S = { [COMPOSE]: 328, 'test/e2e/container-image.test.ts': 34 };

const posix = (f) => f.split(path.sep).join('/');

/** Files under this estimate are the short ones that keep a Docker suite company. */
const SHORT_S = 5;

/**
 * `files` (paths relative to the repository) in the order they start: the compose suite first, then
 * the short files, then the rest longest first (ties by path). The compose suite's partition tests
 * are timing-sensitive: run beside other end-to-end bring-ups (idle-soak's burst, scale-out) they
 * failed twice in two runs, and beside nothing they passed; the short files keep the other slot
 * busy meanwhile, and the long ones still start before the end.
 */
export function longestFirst(files) {
  const table = JSON.parse(readFileSync(TABLE, 'utf8'));
  const estimate = (f) => table[posix(f)] ?? (posix(f).startsWith('test/e2e/') ? UNKNOWN_E2E_S : UNKNOWN_S);
  const rank = (f) => (posix(f) === COMPOSE ? 0 : estimate(f) < SHORT_S ? 1 : 2);
  return [...files].sort((a, b) => rank(a) - rank(b) || estimate(b) - estimate(a) || (a < b ? -1 : a > b ? 1 : 0));
}

/** Rewrites the table from a timing log of scripts/test-timing-reporter.mjs (one JSON object per file). */
function refresh(logFile) {
  const table = {};
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const { file, wallMs } = JSON.parse(line);
    const s = Math.max(Math.round(wallMs / 1000), DOCKER_ONLY_S[posix(file)] ?? 0);
    if (s >= LISTED_FROM_S) table[posix(file)] = s;
  }
  for (const [file, s] of Object.entries(DOCKER_ONLY_S)) table[file] ??= s;
  const sorted = Object.fromEntries(Object.entries(table).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)));
  writeFileSync(TABLE, JSON.stringify(sorted, null, 2) + '\n');
  process.stdout.write(`${TABLE}: ${Object.keys(sorted).length} files of ${LISTED_FROM_S} s or more\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) refresh(process.argv[2] ?? 'test-timing.log');
