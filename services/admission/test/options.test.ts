import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions } from '../../../shared/config/options.js';
import { admissionOptionSpecs } from '../options.js';

test('admission options - with no flags every default is converted to its type', () => {
  const o = parseOptions(admissionOptionSpecs, [], {});
  assert.deepEqual(
    { ...o },
    {
      'nats-url': 'nats://127.0.0.1:4222',
      'nats-creds': undefined,
      'log-level': 'info',
      'enable-admission-plugins': [],
      'disable-admission-plugins': [],
      'admission-control-config-file': undefined,
      'default-not-ready-toleration-seconds': 300,
      'default-unreachable-toleration-seconds': 300,
      bucket: 'objects',
      'metrics-bind-address': '',
      'show-hidden-metrics-for-version': '',
      'disabled-metrics': [],
      'webhook-service-resolver': [],
    },
  );
});
