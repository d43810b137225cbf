import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions, commonOptions } from '../../../shared/config/options.js';
import { admissionOptionSpecs } from '../options.js';

test('admission options - with no flags every default is converted to its type', () => {
  const o: Record<string, unknown> = { ...parseOptions(admissionOptionSpecs, [], {}) };
  // The NATS connection and logging options every service shares are tested with shared/config.
  for (const key of Object.keys(commonOptions)) {
    assert.ok(key in o, key);
    delete o[key];
  }
  assert.deepEqual(o, {
    'enable-admission-plugins': [],
    'disable-admission-plugins': [],
    'admission-control-config-file': undefined,
    'default-not-ready-toleration-seconds': 300,
    'default-unreachable-toleration-seconds': 300,
    'webhook-service-resolver': [],
    bucket: 'objects',
    'metrics-bind-address': '',
    'show-hidden-metrics-for-version': '',
    'disabled-metrics': [],
  });
});
