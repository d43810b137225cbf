import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions } from '../../../shared/config/options.js';
import { gatewayOptionSpecs } from '../options.js';

test('gateway options - with no flags every default is converted to its type (durations in ms)', () => {
  const o = parseOptions(gatewayOptionSpecs, [], {});
  assert.deepEqual(
    { ...o },
    {
      'nats-url': 'nats://127.0.0.1:4222',
      'nats-creds': undefined,
      'log-level': 'info',
      'secure-port': 6443,
      'bind-address': '127.0.0.1',
      'tls-cert-file': undefined,
      'tls-private-key-file': undefined,
      'client-ca-file': undefined,
      'requestheader-client-ca-file': undefined,
      bucket: 'objects',
      'runtime-config': '',
      'upstream-group-aliases': false,
      'service-cluster-ip-range': '10.0.0.0/24',
      'service-node-port-range': '30000-32767',
      'watch-cache-window': 300_000,
      'feature-gates': [],
      'max-requests-inflight': 400,
      'max-mutating-requests-inflight': 200,
      'shutdown-delay-duration': 0,
      'shutdown-send-retry-after': false,
      'livez-grace-period': 0,
      'max-watch-buffered-bytes': 256 * 1024 * 1024,
    },
  );
});
