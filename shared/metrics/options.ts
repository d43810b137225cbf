// The metrics flags: upstream's `--show-hidden-metrics-for-version` and `--disabled-metrics` on
// every service, and `--metrics-bind-address` on the services that have no HTTP port of their own
// (storage, authn, authz, admission).

import { OptionsError, type OptionSpecs } from '../config/options.js';
import type { MetricsOptions, WarnLogger } from './registry.js';
import { previousMinor, validateShowHiddenMetricsVersion } from './stability.js';

export const metricsOptionSpecs = {
  'show-hidden-metrics-for-version': {
    type: 'string',
    default: '',
    description: `the previous minor release (${previousMinor()}) to show the metrics hidden in this one; only that value is allowed, so the next release's hidden metrics are noticed before they are removed`,
  },
  'disabled-metrics': { type: 'list', default: [], description: 'metric names never exposed (an escape hatch for a misbehaving metric; wins over showing hidden metrics)' },
} satisfies OptionSpecs;

export const metricsServingOptionSpecs = {
  'metrics-bind-address': {
    type: 'string',
    default: '',
    description:
      "host:port of a plain-HTTP listener serving this service's /metrics to anyone who reaches it (no authentication: keep it on loopback or inside the deployment's network); port 0 picks a free port; empty: no listener",
  },
} satisfies OptionSpecs;

/** The registry's options from the parsed flags; a refused `--show-hidden-metrics-for-version` is an OptionsError (exit 2). */
export function metricsOptionsFrom(o: { 'show-hidden-metrics-for-version': string; 'disabled-metrics': string[] }, log?: WarnLogger): MetricsOptions {
  const show = o['show-hidden-metrics-for-version'];
  const refused = validateShowHiddenMetricsVersion(show);
  if (refused) throw new OptionsError(refused);
  return { ...(show ? { showHiddenMetricsForVersion: show } : {}), disabledMetrics: o['disabled-metrics'], ...(log ? { log } : {}) };
}

/** `--metrics-bind-address` → host and port; null when empty (no listener). */
export function parseBindAddress(value: string): { host: string; port: number } | null {
  if (!value) return null;
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535) throw new OptionsError(`--metrics-bind-address: expected <host>:<port>, got ${JSON.stringify(value)}`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}
