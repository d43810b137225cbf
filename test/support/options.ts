// The defaults every service's options share (shared/config/options.ts `commonOptions`), for the
// services' option tests.

import assert from 'node:assert/strict';
import { parseOptions, type OptionSpecs } from '../../shared/config/options.js';

/** The NATS connection and logging options every service has, as parsed with no flags. */
export const commonOptionDefaults = {
  'nats-url': 'nats://127.0.0.1:4222',
  'nats-creds': undefined,
  'nats-user': undefined,
  'nats-password': undefined,
  'nats-password-file': undefined,
  'nats-inbox-prefix': undefined,
  'nats-tls-ca-file': undefined,
  'nats-tls-cert-file': undefined,
  'nats-tls-key-file': undefined,
  'log-level': 'info',
};

/** Parses `specs` with no flags and no environment: every option is the common default or, for the service's own, the one in `own`. */
export function assertDefaultOptions(specs: OptionSpecs, own: Record<string, unknown>): void {
  assert.deepEqual({ ...parseOptions(specs, [], {}) }, { ...commonOptionDefaults, ...own });
}
