// Metric stability as upstream's component-base/metrics has it (spec, Versioning rules 9a/9b):
// every metric is ALPHA, BETA or STABLE, shown at the head of its HELP text (`[STABLE] ...`); a
// metric deprecated at a release says so after the level (`[ALPHA] (Deprecated since 1.24.0) ...`)
// and logs a warning when registered; once its deprecation period is over it is hidden — not
// registered — unless `--show-hidden-metrics-for-version` names the previous minor release.
// Pure: the registry (registry.ts) applies these rules; tests read them as a table.

import { SERVED_RELEASE } from '../api/version.js';

/** The release whose rules and metric set this server reproduces (the spec's reference release). */
export const REFERENCE_VERSION = SERVED_RELEASE;

export const StabilityLevel = { Alpha: 'ALPHA', Beta: 'BETA', Stable: 'STABLE' } as const;
export type StabilityLevel = (typeof StabilityLevel)[keyof typeof StabilityLevel];

/**
 * Releases a deprecated metric keeps working before it is hidden. STABLE: three (rule 9b; hidden
 * when its deprecated version is the current one minus 3, as the spec says). BETA: one (upstream's
 * later BETA level). ALPHA: one as well — rule 9b promises nothing, and the reference release
 * still shows an ALPHA metric in the release that deprecates it (apiserver_dropped_requests_total,
 * deprecated in 1.24) and hides it from the next (apiserver_registered_watchers, deprecated in
 * 1.23).
 */
const DEPRECATION_PERIOD: Record<StabilityLevel, number> = { ALPHA: 1, BETA: 1, STABLE: 3 };

export const MetricState = { Active: 'active', Deprecated: 'deprecated', Hidden: 'hidden' } as const;
export type MetricState = (typeof MetricState)[keyof typeof MetricState];

interface MajorMinor {
  major: number;
  minor: number;
}

/** `1.24`, `1.24.0` or `v1.24.3` → {1, 24}; null for anything else. */
export function parseMajorMinor(v: string): MajorMinor | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

function versionOf(v: string): MajorMinor {
  const mm = parseMajorMinor(v);
  if (!mm) throw new RangeError(`invalid version ${JSON.stringify(v)}: expected <major>.<minor>[.<patch>]`);
  return mm;
}

/**
 * Where a metric stands at `current`: active (not deprecated, or deprecated only in a later
 * release), deprecated (still shown, marked), or hidden (its period after deprecation is over).
 */
export function metricState(stability: StabilityLevel, deprecatedVersion: string | undefined, current: string = REFERENCE_VERSION): MetricState {
  if (!deprecatedVersion) return MetricState.Active;
  const dep = versionOf(deprecatedVersion);
  const cur = versionOf(current);
  if (dep.major > cur.major || (dep.major === cur.major && dep.minor > cur.minor)) return MetricState.Active;
  if (dep.major < cur.major) return MetricState.Hidden;
  return dep.minor + DEPRECATION_PERIOD[stability] <= cur.minor ? MetricState.Hidden : MetricState.Deprecated;
}

/** The HELP text as upstream writes it: the level first, then the deprecation note when deprecated or hidden. */
export function annotateHelp(help: string, stability: StabilityLevel, state: MetricState, deprecatedVersion?: string): string {
  const note = state === MetricState.Active ? '' : `(Deprecated since ${deprecatedVersion}) `;
  return `[${stability}] ${note}${help}`;
}

/** The one value `--show-hidden-metrics-for-version` accepts at `current`: the previous minor release. */
export function previousMinor(current: string = REFERENCE_VERSION): string {
  const cur = versionOf(current);
  return `${cur.major}.${cur.minor - 1}`;
}

/**
 * Upstream's check of `--show-hidden-metrics-for-version`: omitted, or exactly the previous minor
 * release written `<major>.<minor>` (so that an operator notices when the next release hides more).
 * Returns the error message, or null when the value is acceptable.
 */
export function validateShowHiddenMetricsVersion(value: string | undefined, current: string = REFERENCE_VERSION): string | null {
  if (!value) return null;
  const valid = previousMinor(current);
  if (value === valid) return null;
  return `--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`;
}
