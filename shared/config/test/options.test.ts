import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDuration, parseOptions, type OptionSpecs } from '../options.js';

const specs = {
  'token-auth-file': { type: 'string' },
  'anonymous-auth': { type: 'boolean', default: true },
  'authorization-mode': { type: 'list', default: ['AlwaysAllow'] },
  'cache-ttl': { type: 'duration', default: '2m' },
  'oidc-required-claim': { type: 'list', repeatable: true },
} satisfies OptionSpecs;

test('options - flags, env and config file map onto the same names with flag > env > file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opts-'));
  const file = path.join(dir, 'c.yaml');
  writeFileSync(file, 'token-auth-file: /from/file\nauthorization-mode: [RBAC, Node]\ncache-ttl: 5m\n');
  const o = parseOptions(specs, ['--config', file, '--anonymous-auth=false', '--oidc-required-claim', 'a=b', '--oidc-required-claim=c=d'], {
    PLATFORM_TOKEN_AUTH_FILE: '/from/env',
  });
  assert.equal(o['token-auth-file'], '/from/env');
  assert.equal(o['anonymous-auth'], false);
  assert.deepEqual(o['authorization-mode'], ['RBAC', 'Node']);
  assert.equal(o['cache-ttl'], 300_000);
  assert.deepEqual(o['oidc-required-claim'], ['a=b', 'c=d']);
});

test('options - defaults apply and bare boolean flags mean true', () => {
  const o = parseOptions(specs, ['--anonymous-auth'], {});
  assert.equal(o['anonymous-auth'], true);
  assert.deepEqual(o['authorization-mode'], ['AlwaysAllow']);
  assert.equal(o['token-auth-file'], undefined);
});

test('options - unknown flags and malformed values are refused', () => {
  assert.throws(() => parseOptions(specs, ['--nope=1'], {}), /unknown flag --nope/);
  assert.throws(() => parseOptions(specs, ['--anonymous-auth=maybe'], {}), /true or false/);
  assert.throws(() => parseDuration('5 minutes'), /invalid duration/);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('250ms'), 250);
});
