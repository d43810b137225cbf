import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OptionsError, parseOptions } from '../../../shared/config/options.js';
import { silentLogger } from '../../../shared/log.js';
import { gatewayOptionSpecs } from '../options.js';
import { auditOptionsFrom, loadAudit } from '../audit.js';

const flags = (...argv: string[]) => parseOptions(gatewayOptionSpecs, argv, {});

test('gateway audit options - refused values name their flag', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--audit-log-path', '/tmp/x.log', '--audit-log-mode', 'fast'], /--audit-log-mode: unknown mode "fast"; the modes are batch, blocking, blocking-strict/],
    [['--audit-log-path', '/tmp/x.log', '--audit-log-format', 'yaml'], /--audit-log-format: unknown format "yaml"; the formats are json, legacy/],
    [['--audit-log-path', '/tmp/x.log', '--audit-log-maxsize', '-1'], /--audit-log-maxsize must be a whole number of at least 0/],
    [['--audit-log-path', '/tmp/x.log', '--audit-log-version', 'audit.platform.io/v1beta1'], /--audit-log-version: "audit.platform.io\/v1beta1" is not one of/],
    [['--audit-webhook-config-file', '/tmp/h.yaml', '--audit-webhook-batch-max-size', '0'], /--audit-webhook-batch-max-size must be a number of at least 1/],
    [
      ['--audit-webhook-config-file', '/tmp/h.yaml', '--audit-webhook-truncate-enabled', '--audit-webhook-truncate-max-batch-size', '10'],
      /must not be smaller than --audit-webhook-truncate-max-event-size/,
    ],
  ];
  for (const [argv, re] of cases)
    assert.throws(
      () => auditOptionsFrom(flags(...argv)),
      (e: Error) => e instanceof OptionsError && re.test(e.message),
      argv.join(' '),
    );
  // Flags of a backend that is not configured are not looked at.
  assert.deepEqual(auditOptionsFrom(flags('--audit-log-mode', 'fast')), { policyFile: undefined, log: null, webhook: null });
});

test('gateway audit options - defaults: log in batch mode with lines in order, webhook batches of 400 every 30 s, throttled', () => {
  const o = auditOptionsFrom(flags('--audit-policy-file', 'p.yaml', '--audit-log-path', '-', '--audit-webhook-config-file', 'h.yaml'));
  assert.equal(o.log?.mode, 'batch');
  assert.equal(o.log?.batch.concurrency, 1);
  assert.equal(o.log?.format, 'json');
  assert.deepEqual([o.log?.maxSizeMB, o.log?.maxBackups, o.log?.maxAgeDays], [100, 100, 366]);
  assert.deepEqual(o.webhook?.batch, { bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttle: { qps: 10, burst: 15 }, concurrency: 15 });
  assert.equal(o.webhook?.initialBackoffMs, 10_000);
  assert.equal(o.webhook?.mode, 'batch');
});

test('gateway audit options - the start fails on a policy, log path or webhook file it cannot use', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'audit-options-'));
  try {
    const policy = path.join(dir, 'policy.yaml');
    const load = (...argv: string[]) => loadAudit(auditOptionsFrom(flags(...argv)), silentLogger());
    assert.equal(await load('--audit-log-path', path.join(dir, 'a.log')), null, 'no policy: no auditing');
    await assert.rejects(load('--audit-policy-file', path.join(dir, 'absent.yaml')), /--audit-policy-file .*absent\.yaml: cannot read: ENOENT/);
    await writeFile(policy, 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n  - level: Everything\n');
    await assert.rejects(load('--audit-policy-file', policy), (e: Error) => e instanceof OptionsError && /policy\.yaml: rules\[0\]\.level: unknown level "Everything"/.test(e.message));
    await writeFile(policy, 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n');
    const blocker = path.join(dir, 'a-file');
    await writeFile(blocker, '');
    await assert.rejects(load('--audit-policy-file', policy, '--audit-log-path', path.join(blocker, 'audit.log')), /--audit-log-path .*: cannot write/);
    await writeFile(path.join(dir, 'hook.yaml'), 'clusters: []\n');
    await assert.rejects(load('--audit-policy-file', policy, '--audit-webhook-config-file', path.join(dir, 'hook.yaml')), /--audit-webhook-config-file .*hook\.yaml: no cluster is configured/);
    const ok = await load('--audit-policy-file', policy, '--audit-log-path', path.join(dir, 'logs', 'audit.log'));
    assert.equal(ok?.backends.length, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
