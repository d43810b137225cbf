import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { RotatingFile } from '../rotating-file.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'audit-rotate-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const line = (i: number) => `${JSON.stringify({ n: i, pad: 'x'.repeat(30) })}\n`; // 50 bytes

test('audit log rotation - past maxsize the file is renamed <name>-<UTC time>.<ext> and a new one started', () =>
  withDir(async (dir) => {
    const file = path.join(dir, 'logs', 'audit.log');
    const f = await RotatingFile.open(file, { maxSizeBytes: 120, maxBackups: 0, maxAgeDays: 0, compress: false });
    assert.equal((await stat(file)).mode & 0o777, 0o600, 'owner-only, as upstream');
    for (let i = 0; i < 5; i++) await f.write(line(i));
    await f.close();
    const names = (await readdir(path.dirname(file))).sort();
    assert.equal(names.length, 3, names.join(' '));
    for (const n of names.filter((x) => x !== 'audit.log')) assert.match(n, /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    // Oldest backup first in name order: lines 0-1, 2-3, then the live file with 4; none lost or split.
    const texts = await Promise.all([...names.filter((x) => x !== 'audit.log'), 'audit.log'].map((n) => readFile(path.join(path.dirname(file), n), 'utf8')));
    assert.deepEqual(texts, [line(0) + line(1), line(2) + line(3), line(4)]);
  }));

test('audit log rotation - maxbackup keeps the newest backups, maxage removes old ones by the time in their name', () =>
  withDir(async (dir) => {
    const file = path.join(dir, 'audit.log');
    // Backups of an earlier run: one from 2001 (past any maxage), two recent.
    await writeFile(path.join(dir, 'audit-2001-01-01T00-00-00.000.log'), 'ancient\n');
    const recent = new Date(Date.now() - 60_000).toISOString().slice(0, -1).replace(/:/g, '-');
    await writeFile(path.join(dir, `audit-${recent}.log`), 'recent\n');
    await writeFile(path.join(dir, 'unrelated.log'), 'keep\n');
    await writeFile(path.join(dir, 'audit-notatime.log'), 'keep\n');
    const f = await RotatingFile.open(file, { maxSizeBytes: 60, maxBackups: 2, maxAgeDays: 30, compress: false });
    for (let i = 0; i < 4; i++) await f.write(line(i)); // three rotations
    await f.close();
    const names = (await readdir(dir)).sort();
    assert.ok(!names.includes('audit-2001-01-01T00-00-00.000.log'), 'older than maxage');
    assert.ok(!names.includes(`audit-${recent}.log`), 'beyond the two newest backups');
    assert.ok(names.includes('unrelated.log') && names.includes('audit-notatime.log'), 'files that are not backups stay');
    assert.equal(names.filter((n) => /^audit-\d{4}/.test(n)).length, 2);
  }));

test('audit log rotation - compress gzips rotated files; maxsize 0 never rotates', () =>
  withDir(async (dir) => {
    const file = path.join(dir, 'audit.log');
    const f = await RotatingFile.open(file, { maxSizeBytes: 60, maxBackups: 0, maxAgeDays: 0, compress: true });
    await f.write(line(1));
    await f.write(line(2));
    await f.close();
    const gz = (await readdir(dir)).filter((n) => n.endsWith('.log.gz'));
    assert.equal(gz.length, 1);
    assert.equal(gunzipSync(await readFile(path.join(dir, gz[0]!))).toString(), line(1));
    assert.equal((await readdir(dir)).filter((n) => /^audit-.*\.log$/.test(n)).length, 0, 'the uncompressed backup is gone');

    const plain = path.join(dir, 'plain.log');
    const g = await RotatingFile.open(plain, { maxSizeBytes: 0, maxBackups: 0, maxAgeDays: 0, compress: false });
    for (let i = 0; i < 10; i++) await g.write(line(i));
    await g.close();
    assert.equal((await readFile(plain, 'utf8')).split('\n').length, 11);
    assert.equal((await readdir(dir)).filter((n) => n.startsWith('plain-')).length, 0);
  }));

test('audit log rotation - concurrent writes never interleave; an existing file counts toward maxsize', () =>
  withDir(async (dir) => {
    const file = path.join(dir, 'audit.log');
    await writeFile(file, line(0));
    const f = await RotatingFile.open(file, { maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0, compress: false });
    await Promise.all([1, 2, 3].map((i) => f.write(line(i))));
    await f.close();
    const all = (await Promise.all((await readdir(dir)).sort().map((n) => readFile(path.join(dir, n), 'utf8')))).join('');
    assert.deepEqual(
      all
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).n)
        .sort(),
      [0, 1, 2, 3],
    );
    assert.equal((await readdir(dir)).length, 2, 'the file already held 50 bytes: the second write rotated it');
  }));
