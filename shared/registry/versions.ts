// API version names and their priority. Discovery lists versions preferred-first, and
// `--runtime-config` enables or disables whole maturity levels, so both need the same parser.

export const VersionLevel = { GA: 'ga', Beta: 'beta', Alpha: 'alpha' } as const;
export type VersionLevel = (typeof VersionLevel)[keyof typeof VersionLevel];

export interface ParsedVersion {
  major: number;
  level: VersionLevel;
  /** The number after alpha/beta; 0 for GA. */
  minor: number;
}

const VERSION_RE = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/;

/** `v1` / `v2beta3` / `v1alpha1`, or undefined for names outside that convention. */
export function parseVersion(v: string): ParsedVersion | undefined {
  const m = VERSION_RE.exec(v);
  if (!m) return undefined;
  const level = m[2] === 'alpha' ? VersionLevel.Alpha : m[2] === 'beta' ? VersionLevel.Beta : VersionLevel.GA;
  return { major: Number(m[1]), level, minor: m[3] ? Number(m[3]) : 0 };
}

/**
 * The `Warning` text of a request to a deprecated version, in upstream's words:
 * `batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob`.
 */
export function deprecationWarning(group: string, version: string, kind: string, d: { since: string; removedIn?: string; replacement?: string; warning?: string }): string {
  if (d.warning) return d.warning;
  const gv = (v: string) => (group ? `${group}/${v}` : v);
  let text = `${gv(version)} ${kind} is deprecated in v${d.since}+`;
  if (d.removedIn) text += `, unavailable in v${d.removedIn}+`;
  if (d.replacement) text += `; use ${gv(d.replacement)} ${kind}`;
  return text;
}

export function versionLevel(v: string): VersionLevel | undefined {
  return parseVersion(v)?.level;
}

const LEVEL_RANK: Record<VersionLevel, number> = { ga: 0, beta: 1, alpha: 2 };

/**
 * Sort comparator putting the preferred version first (negative when `a` is preferred):
 * GA before beta before alpha, higher numbers first within a level, and names that do not follow
 * the `v<N>[alpha|beta<M>]` convention last, alphabetically.
 */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (pa && pb) {
    if (pa.level !== pb.level) return LEVEL_RANK[pa.level] - LEVEL_RANK[pb.level];
    if (pa.major !== pb.major) return pb.major - pa.major;
    return pb.minor - pa.minor;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
