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

test('options - a deprecated flag warns in upstream words wherever it is set; the warning can be suppressed', () => {
  const deprecating = {
    'cluster-signing-duration': { type: 'duration', default: '8760h' },
    'experimental-cluster-signing-duration': { type: 'duration', aliasOf: 'cluster-signing-duration', deprecated: 'use --cluster-signing-duration' },
    'old-switch': { type: 'boolean', default: false, deprecated: 'it has no effect.' },
  } satisfies OptionSpecs;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opts-'));
  const file = path.join(dir, 'c.yaml');
  writeFileSync(file, 'old-switch: true\n');
  const cases: Array<[string, string[], NodeJS.ProcessEnv, string[], number]> = [
    ['not set: silent, defaults', [], {}, [], 8760 * 3_600_000],
    ['flag', ['--experimental-cluster-signing-duration=1h'], {}, ['Flag --experimental-cluster-signing-duration has been deprecated, use --cluster-signing-duration'], 3_600_000],
    ['env', [], { PLATFORM_EXPERIMENTAL_CLUSTER_SIGNING_DURATION: '2h' }, ['Flag --experimental-cluster-signing-duration has been deprecated, use --cluster-signing-duration'], 7_200_000],
    ['file', ['--config', file], {}, ['Flag --old-switch has been deprecated, it has no effect.'], 8760 * 3_600_000],
    [
      'the new name wins over the old',
      ['--experimental-cluster-signing-duration=1h', '--cluster-signing-duration=3h'],
      {},
      ['Flag --experimental-cluster-signing-duration has been deprecated, use --cluster-signing-duration'],
      10_800_000,
    ],
    ['suppressed by flag', ['--experimental-cluster-signing-duration=1h', '--suppress-deprecation-warnings'], {}, [], 3_600_000],
    ['suppressed by env', ['--old-switch'], { PLATFORM_SUPPRESS_DEPRECATION_WARNINGS: 'true' }, [], 8760 * 3_600_000],
  ];
  for (const [name, argv, env, warnings, duration] of cases) {
    const heard: string[] = [];
    const o = parseOptions(deprecating, argv, env, (w) => heard.push(w));
    assert.deepEqual(heard, warnings, name);
    assert.equal(o['cluster-signing-duration'], duration, name);
  }
  assert.throws(() => parseOptions(deprecating, ['--suppress-deprecation-warnings=perhaps'], {}), /true or false/);
});
