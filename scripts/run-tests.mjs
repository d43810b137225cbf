// Runs every test file with node's test runner (Node 20 has no glob support in --test).
// `--unit` restricts the run to the pure modules' tests (no NATS needed).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const unitOnly = process.argv.includes('--unit');
const roots = unitOnly ? ['shared'] : ['shared', 'services', 'scripts', 'test'];
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
files.sort();
const extra = process.argv.slice(2).filter((a) => a !== '--unit');
const selected = extra.length ? files.filter((f) => extra.some((e) => f.includes(e))) : files;
const res = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...selected], { stdio: 'inherit' });
process.exit(res.status ?? 1);
