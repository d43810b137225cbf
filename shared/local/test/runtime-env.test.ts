import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { RUNTIME_ENV, withRuntimeEnv } from '../runtime-env.js';

/** The ENV settings of the Dockerfile's last stage (the image users run). */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(new URL('../../../deploy/Dockerfile', import.meta.url), 'utf8');
  const last = dockerfile.split(/^FROM /m).at(-1)!;
  const env: Record<string, string> = {};
  for (const m of last.matchAll(/^ENV (\w+)=(\S+)$/gm)) env[m[1]!] = m[2]!;
  return env;
}

test('runtime env - the image runs its services with the settings npm start and the bench use', () => {
  const env = imageEnv();
  for (const [k, v] of Object.entries(RUNTIME_ENV)) assert.equal(env[k], v, `Dockerfile ENV ${k}`);
});

test('runtime env - added to a process environment: a value the caller set wins, its node options come after ours', () => {
  const cases: { name: string; env: NodeJS.ProcessEnv; expect: Record<string, string> }[] = [
    { name: 'nothing set', env: { PATH: '/bin' }, expect: { PATH: '/bin', MALLOC_MMAP_THRESHOLD_: '131072', NODE_OPTIONS: '--max-semi-space-size=32' } },
    { name: 'own threshold', env: { MALLOC_MMAP_THRESHOLD_: '65536' }, expect: { MALLOC_MMAP_THRESHOLD_: '65536', NODE_OPTIONS: '--max-semi-space-size=32' } },
    {
      name: 'own node options',
      env: { NODE_OPTIONS: ' --max-semi-space-size=8 --enable-source-maps ' },
      expect: { MALLOC_MMAP_THRESHOLD_: '131072', NODE_OPTIONS: '--max-semi-space-size=32 --max-semi-space-size=8 --enable-source-maps' },
    },
    { name: 'empty node options', env: { NODE_OPTIONS: '' }, expect: { MALLOC_MMAP_THRESHOLD_: '131072', NODE_OPTIONS: '--max-semi-space-size=32' } },
  ];
  for (const c of cases) assert.deepEqual(withRuntimeEnv(c.env), c.expect, c.name);
});
