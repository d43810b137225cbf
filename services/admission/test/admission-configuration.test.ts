import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAdmissionConfiguration, parseAdmissionConfiguration } from '../admission-configuration.js';
import { checkPluginConfiguration } from '../plugin-configuration.js';
import { AdmissionConfigError } from '../config.js';

const dir = mkdtempSync(join(tmpdir(), 'admission-config-'));

test("admission configuration - inline and by path, a relative path from the file's own directory", () => {
  writeFileSync(join(dir, 'rate.yaml'), 'apiVersion: eventratelimit.admission.platform.io/v1alpha1\nkind: Configuration\nlimits: []\n');
  const file = join(dir, 'admission.yaml');
  writeFileSync(
    file,
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: EventRateLimit',
      '  path: rate.yaml',
      '- name: PodSecurity',
      '  configuration:',
      '    apiVersion: pod-security.admission.config.platform.io/v1',
      '    kind: PodSecurityConfiguration',
    ].join('\n'),
  );
  const cfg = loadAdmissionConfiguration(file);
  assert.deepEqual(cfg.get('EventRateLimit')?.configuration, { apiVersion: 'eventratelimit.admission.platform.io/v1alpha1', kind: 'Configuration', limits: [] });
  assert.equal(cfg.get('EventRateLimit')?.dir, dir);
  assert.equal((cfg.get('PodSecurity')?.configuration as { kind: string }).kind, 'PodSecurityConfiguration');
  assert.equal(loadAdmissionConfiguration(undefined).size, 0);
});

test('admission configuration - every mistake is a start-up error naming what is wrong', () => {
  const cases: Array<[unknown, RegExp]> = [
    [[], /must hold an AdmissionConfiguration/],
    [{ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'Other' }, /kind must be AdmissionConfiguration/],
    [{ apiVersion: 'v1', kind: 'AdmissionConfiguration' }, /apiVersion "v1" is not one of/],
    [{ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AdmissionConfiguration', extra: 1 }, /unknown field "extra"/],
    [{ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AdmissionConfiguration', plugins: {} }, /plugins must be a list/],
    [{ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'Nope', configuration: {} }] }, /unknown admission plugin "Nope"/],
    [{ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'EventRateLimit' }] }, /needs path or configuration/],
    [{ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'EventRateLimit', path: 'a', configuration: {} }] }, /either path or configuration/],
    [
      {
        apiVersion: 'apiserver.config.platform.io/v1',
        kind: 'AdmissionConfiguration',
        plugins: [
          { name: 'EventRateLimit', configuration: {} },
          { name: 'EventRateLimit', configuration: {} },
        ],
      },
      /configured twice/,
    ],
    [{ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'EventRateLimit', path: 'missing.yaml' }] }, /cannot read .*missing\.yaml/],
  ];
  for (const [doc, message] of cases) {
    assert.throws(
      () => parseAdmissionConfiguration(doc, join(dir, 'x.yaml')),
      (err: Error) => err instanceof AdmissionConfigError && message.test(err.message),
      JSON.stringify(doc),
    );
  }
});

test("admission configuration - a plugin checks its own document's kind, version and fields", () => {
  const check = (configuration: unknown) =>
    checkPluginConfiguration('EventRateLimit', { configuration, dir, source: 'test' }, { apiVersions: ['eventratelimit.admission.platform.io/v1alpha1'], kind: 'Configuration', fields: ['limits'] });
  assert.deepEqual(check({ apiVersion: 'eventratelimit.admission.platform.io/v1alpha1', kind: 'Configuration', limits: [] }).limits, []);
  assert.throws(() => check({ apiVersion: 'eventratelimit.admission.platform.io/v1alpha1', kind: 'Configuration', limit: [] }), /unknown field "limit"/);
  assert.throws(() => check({ apiVersion: 'v1', kind: 'Configuration' }), /apiVersion "v1"/);
  assert.throws(() => check('text'), /must be an object/);
});
