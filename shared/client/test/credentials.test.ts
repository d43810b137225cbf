import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readTokenFile } from '../credentials.js';

test('token file - one reader for every client: the token trimmed, errors naming the file and never its content', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'token-file-'));
  try {
    await writeFile(path.join(dir, 'token'), '  s3cret-token\n');
    await writeFile(path.join(dir, 'blank'), ' \n');
    const cases: Array<[string, string, string | RegExp]> = [
      ['a token with whitespace around it', 'token', 's3cret-token'],
      ['a missing file', 'missing', /^tokenFile: cannot read .*missing: ENOENT$/],
      ['a file with nothing in it', 'blank', /^tokenFile .*blank is empty$/],
    ];
    for (const [name, file, want] of cases) {
      const read = readTokenFile(path.join(dir, file));
      if (typeof want === 'string') assert.equal(await read, want, name);
      else await assert.rejects(read, (e: Error) => want.test(e.message), name);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
