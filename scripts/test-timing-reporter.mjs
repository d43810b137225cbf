// A node:test reporter that says where a run's wall time goes, file by file (run-tests.mjs adds it
// with `--timing`). Per file:
//   wall      its process's lifetime, spawn to exit (exact: the runner's own measure),
//   tests     the sum of its top-level tests' and suites' durations (exact),
//   overhead  wall - tests: node + tsx + imports, top-level awaits and root hooks, and the tail,
//   tail      at least this long between its last top-level test's end and its exit (handles left
//             open keep a process alive). A lower bound: the runner passes on a file's events only
//             once the files started before it have reported, so they may arrive late.
// It writes one JSON object per file (one line each, longest first), then a table of the longest.
import path from 'node:path';

const TABLE_ROWS = 25;

export default async function* timingReporter(source) {
  const runStart = Date.now();
  const files = new Map();
  const fileOf = (file) => files.get(file) ?? files.set(file, { file, spawnAt: 0, exitAt: 0, wallMs: 0, lastTestEndAt: 0, testsMs: 0, tests: 0 }).get(file);
  for await (const { type, data } of source) {
    if ((type !== 'test:dequeue' && type !== 'test:complete') || !data.file || data.nesting !== 0) continue;
    const f = fileOf(data.file);
    const now = Date.now() - runStart;
    const isFile = path.resolve(data.name) === data.file;
    if (type === 'test:dequeue' && isFile) f.spawnAt = now;
    else if (type === 'test:complete' && isFile) Object.assign(f, { exitAt: now, wallMs: Math.round(data.details.duration_ms) });
    else if (type === 'test:complete') Object.assign(f, { lastTestEndAt: now, testsMs: f.testsMs + data.details.duration_ms, tests: f.tests + 1 });
  }
  const rows = [...files.values()].filter((f) => f.exitAt).map(row);
  rows.sort((a, b) => b.wallMs - a.wallMs);
  for (const r of rows) yield JSON.stringify(r) + '\n';
  yield summary(rows, Date.now() - runStart);
}

function row(f) {
  const testsMs = Math.round(f.testsMs);
  const tailMs = f.lastTestEndAt ? Math.max(0, f.exitAt - f.lastTestEndAt) : 0;
  return { file: path.relative(process.cwd(), f.file), spawnAt: f.spawnAt, wallMs: f.wallMs, testsMs, overheadMs: Math.max(0, f.wallMs - testsMs), tailMs, tests: f.tests };
}

function summary(rows, runMs) {
  const sum = (k) => rows.reduce((n, r) => n + r[k], 0);
  const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
  const lines = [
    `# run ${s(runMs)} s wall, ${rows.length} files; their processes ${s(sum('wallMs'))} s = tests ${s(sum('testsMs'))} + overhead ${s(sum('overheadMs'))} (tail at least ${s(sum('tailMs'))})`,
    `#   wall s   tests overhead   tail  started  file`,
    ...rows.slice(0, TABLE_ROWS).map((r) => `# ${s(r.wallMs)} ${s(r.testsMs)} ${s(r.overheadMs)} ${s(r.tailMs)} ${s(r.spawnAt)}  ${r.file}`),
  ];
  return lines.join('\n') + '\n';
}
