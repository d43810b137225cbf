// The Pod Security Standards' vocabulary: levels (privileged < baseline < restricted), policy
// versions (`latest` or `v1.N`), and a namespace's policy read from its
// `pod-security.platform.io/{enforce,audit,warn}[-version]` labels over the configured defaults.
// Pure: the admission plugin and its tests share it.

import { fieldErrorMessage, type FieldError } from '../../../../shared/api/status.js';

export const Level = { Privileged: 'privileged', Baseline: 'baseline', Restricted: 'restricted' } as const;
export type Level = (typeof Level)[keyof typeof Level];

const LEVELS: readonly string[] = [Level.Privileged, Level.Baseline, Level.Restricted];

/** Upstream's `pod-security.kubernetes.io/` with the brand. Also the prefix of the plugin's audit annotations. */
export const POD_SECURITY_PREFIX = 'pod-security.platform.io/';

export const EnforceLevelLabel = `${POD_SECURITY_PREFIX}enforce`;
export const EnforceVersionLabel = `${POD_SECURITY_PREFIX}enforce-version`;
export const AuditLevelLabel = `${POD_SECURITY_PREFIX}audit`;
export const AuditVersionLabel = `${POD_SECURITY_PREFIX}audit-version`;
export const WarnLevelLabel = `${POD_SECURITY_PREFIX}warn`;
export const WarnVersionLabel = `${POD_SECURITY_PREFIX}warn-version`;

/** A policy version: `latest`, or `v1.<minor>` (the standards only ever had major version 1). */
export interface Version {
  readonly latest: boolean;
  /** Meaningless when `latest`. */
  readonly minor: number;
}

export const LATEST: Version = Object.freeze({ latest: true, minor: 0 });

export function minorVersion(minor: number): Version {
  return { latest: false, minor };
}

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v1.${v.minor}`;
}

/** `a` is older than `b` (`latest` is newer than every numbered version, future ones too). */
export function versionOlder(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.minor < b.minor;
}

export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

/** `restricted:latest`, `baseline:v1.22`: how messages and annotations name a policy. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version.latest === b.version.latest && (a.version.latest || a.version.minor === b.version.minor);
}

export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

const LEVEL_ERROR = `must be one of ${LEVELS.join(', ')}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';
const VERSION_RE = /^v1\.(0|[1-9][0-9]*)$/;

/** A level, or an error and `restricted`: an unreadable level fails closed. */
export function parseLevel(value: string): { level: Level; error?: string } {
  return LEVELS.includes(value) ? { level: value as Level } : { level: Level.Restricted, error: LEVEL_ERROR };
}

/** A version, or an error and `latest`. */
export function parseVersion(value: string): { version: Version; error?: string } {
  if (value === 'latest') return { version: LATEST };
  const m = VERSION_RE.exec(value);
  const minor = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(minor)) return { version: LATEST, error: VERSION_ERROR };
  return { version: minorVersion(minor) };
}

/** -1, 0 or 1 as `a` is less strict than, as strict as, or stricter than `b`. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

export const PRIVILEGED_LATEST: LevelVersion = Object.freeze({ level: Level.Privileged, version: LATEST });

/** Every mode privileged: nothing to evaluate (the default configuration). */
export const ALL_PRIVILEGED: Policy = Object.freeze({ enforce: PRIVILEGED_LATEST, audit: PRIVILEGED_LATEST, warn: PRIVILEGED_LATEST });

export interface PolicyResult {
  policy: Policy;
  /** One per unreadable label, as `metadata.labels[<key>]` field errors. */
  errors: FieldError[];
}

/**
 * A namespace's policy: each label present overrides its default. An unreadable enforce label
 * means restricted (fail closed); an unreadable audit or warn level means privileged (fail open,
 * nothing to report); an unreadable version means latest. The errors say which labels were bad.
 */
export function policyToEvaluate(labels: Readonly<Record<string, unknown>> | undefined, defaults: Policy): PolicyResult {
  const errors: FieldError[] = [];
  if (!labels) return { policy: defaults, errors };
  const mode = (lv: LevelVersion, levelKey: string, versionKey: string, failOpen: boolean): LevelVersion => {
    let { level, version } = lv;
    const levelValue = labels[levelKey];
    if (typeof levelValue === 'string') {
      const parsed = parseLevel(levelValue);
      level = parsed.error && failOpen ? Level.Privileged : parsed.level;
      if (parsed.error) errors.push(labelError(levelKey, levelValue, parsed.error));
    }
    const versionValue = labels[versionKey];
    if (typeof versionValue === 'string') {
      const parsed = parseVersion(versionValue);
      version = parsed.version;
      if (parsed.error) errors.push(labelError(versionKey, versionValue, parsed.error));
    }
    return level === lv.level && version === lv.version ? lv : { level, version };
  };
  const enforce = mode(defaults.enforce, EnforceLevelLabel, EnforceVersionLabel, false);
  const audit = mode(defaults.audit, AuditLevelLabel, AuditVersionLabel, true);
  const warn = mode(defaults.warn, WarnLevelLabel, WarnVersionLabel, true);
  const policy = enforce === defaults.enforce && audit === defaults.audit && warn === defaults.warn ? defaults : { enforce, audit, warn };
  return { policy, errors };
}

function labelError(key: string, value: string, detail: string): FieldError {
  return { type: 'Invalid value', field: `metadata.labels[${key}]`, value, detail };
}

/** Upstream's aggregate of field errors in one message: one as it is, several in brackets. */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  return errors.length === 1 ? fieldErrorMessage(errors[0]!) : `[${errors.map(fieldErrorMessage).join(', ')}]`;
}
