// The Pod Security Standards' checks as upstream's pod-security-admission 1.24 defines them, each
// with the policy version it first applied at (a check's behaviour can change between versions:
// seccomp moved from annotations to fields in 1.19), and the evaluator that runs the checks of a
// level at a version. Restricted includes every baseline check except those a restricted check
// replaces at that version (restricted volume types replace hostPath volumes; restricted
// capabilities replace baseline capabilities from 1.22; restricted seccomp replaces baseline
// seccomp from 1.19). Checks run baseline first, then restricted, each group ordered by id, so a
// message lists the same violations in the same order as upstream's.
//
// A check reads the pod as JSON (core v1): the pod's metadata and spec, or a template's. The checks
// are in baseline-checks.ts and restricted-checks.ts, what they share in check-support.ts.

import { Level, minorVersion, versionOlder, type LevelVersion, type Version } from './policy.js';
import type { CheckFn, Json, Violation } from './check-support.js';
import {
  appArmorProfile_1_0,
  capabilitiesBaseline_1_0,
  hostNamespaces_1_0,
  hostPathVolumes_1_0,
  hostPorts_1_0,
  privileged_1_0,
  procMount_1_0,
  seccompProfileBaseline_1_0,
  seccompProfileBaseline_1_19,
  seLinuxOptions_1_0,
  sysctls_1_0,
  windowsHostProcess_1_0,
} from './baseline-checks.js';
import { allowPrivilegeEscalation_1_8, capabilitiesRestricted_1_22, restrictedVolumes_1_0, runAsNonRoot_1_0, runAsUser_1_23, seccompProfileRestricted_1_19 } from './restricted-checks.js';

export { goQuote, type CheckFn, type Violation } from './check-support.js';
export { APPARMOR_CONTAINER_ANNOTATION_PREFIX, SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION } from './baseline-checks.js';

export interface VersionedCheck {
  /** The first policy version (minor of v1) this behaviour applies to. */
  minVersion: number;
  check: CheckFn;
  /** Baseline checks this restricted check replaces while it applies. */
  overrides?: readonly string[];
}

export interface Check {
  id: string;
  level: typeof Level.Baseline | typeof Level.Restricted;
  /** Strictly increasing by `minVersion`. */
  versions: readonly VersionedCheck[];
}
// ---- the registry -----------------------------------------------------------------------------

const baseline = (id: string, versions: VersionedCheck[]): Check => ({ id, level: Level.Baseline, versions });
const restricted = (id: string, versions: VersionedCheck[]): Check => ({ id, level: Level.Restricted, versions });

/** Upstream 1.24's default checks. */
export const DEFAULT_CHECKS: readonly Check[] = [
  baseline('appArmorProfile', [{ minVersion: 0, check: appArmorProfile_1_0 }]),
  baseline('capabilities_baseline', [{ minVersion: 0, check: capabilitiesBaseline_1_0 }]),
  baseline('hostNamespaces', [{ minVersion: 0, check: hostNamespaces_1_0 }]),
  baseline('hostPathVolumes', [{ minVersion: 0, check: hostPathVolumes_1_0 }]),
  baseline('hostPorts', [{ minVersion: 0, check: hostPorts_1_0 }]),
  baseline('privileged', [{ minVersion: 0, check: privileged_1_0 }]),
  baseline('procMount', [{ minVersion: 0, check: procMount_1_0 }]),
  baseline('seLinuxOptions', [{ minVersion: 0, check: seLinuxOptions_1_0 }]),
  baseline('seccompProfile_baseline', [
    { minVersion: 0, check: seccompProfileBaseline_1_0 },
    { minVersion: 19, check: seccompProfileBaseline_1_19 },
  ]),
  baseline('sysctls', [{ minVersion: 0, check: sysctls_1_0 }]),
  baseline('windowsHostProcess', [{ minVersion: 0, check: windowsHostProcess_1_0 }]),
  restricted('allowPrivilegeEscalation', [{ minVersion: 8, check: allowPrivilegeEscalation_1_8 }]),
  restricted('capabilities_restricted', [{ minVersion: 22, check: capabilitiesRestricted_1_22, overrides: ['capabilities_baseline'] }]),
  restricted('restrictedVolumes', [{ minVersion: 0, check: restrictedVolumes_1_0, overrides: ['hostPathVolumes'] }]),
  restricted('runAsNonRoot', [{ minVersion: 0, check: runAsNonRoot_1_0 }]),
  restricted('runAsUser', [{ minVersion: 23, check: runAsUser_1_23 }]),
  restricted('seccompProfile_restricted', [{ minVersion: 19, check: seccompProfileRestricted_1_19, overrides: ['seccompProfile_baseline'] }]),
];

/** What evaluating one object at one policy found. */
export interface EvaluationResult {
  allowed: boolean;
  violations: Violation[];
}

/** `host ports, privileged`: the reasons only (one line per pod when a namespace's pods are checked). */
export function forbiddenReason(r: EvaluationResult): string {
  return r.violations.map((v) => v.reason).join(', ');
}

/** `hostPort (container "c" uses hostPort 80), privileged (...)`: reasons with their details. */
export function forbiddenDetail(r: EvaluationResult): string {
  return r.violations.map((v) => (v.detail ? `${v.reason} (${v.detail})` : v.reason)).join(', ');
}

const ALLOWED: EvaluationResult = Object.freeze({ allowed: true, violations: [] });

export class Evaluator {
  /** The newest version any check changed at: later versions (and latest) evaluate as this one. */
  readonly maxVersion: number;
  private readonly baseline: CheckFn[][] = [];
  private readonly restricted: CheckFn[][] = [];

  constructor(checks: readonly Check[] = DEFAULT_CHECKS) {
    validateChecks(checks);
    this.maxVersion = Math.max(...checks.map((c) => c.versions[c.versions.length - 1]!.minVersion));
    const byId = (a: Check, b: Check): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const baselineChecks = checks.filter((c) => c.level === Level.Baseline).sort(byId);
    const restrictedChecks = checks.filter((c) => c.level === Level.Restricted).sort(byId);
    /** The behaviour of a check at version v, if it applies yet. */
    const at = (c: Check, v: number): VersionedCheck | undefined => [...c.versions].reverse().find((x) => x.minVersion <= v);
    for (let v = 0; v <= this.maxVersion; v++) {
      const restrictedNow = restrictedChecks.map((c) => at(c, v)).filter((x): x is VersionedCheck => x !== undefined);
      const overridden = new Set(restrictedNow.flatMap((x) => x.overrides ?? []));
      const baselineNow = baselineChecks.map((c) => ({ id: c.id, vc: at(c, v) })).filter((x) => x.vc !== undefined);
      this.baseline[v] = baselineNow.map((x) => x.vc!.check);
      this.restricted[v] = [...baselineNow.filter((x) => !overridden.has(x.id)).map((x) => x.vc!.check), ...restrictedNow.map((x) => x.check)];
    }
  }

  /** The checks of a level at a version (privileged: none). */
  checksFor(lv: LevelVersion): readonly CheckFn[] {
    if (lv.level === Level.Privileged) return [];
    const v = this.effectiveVersion(lv.version);
    return (lv.level === Level.Baseline ? this.baseline : this.restricted)[v] ?? [];
  }

  evaluate(lv: LevelVersion, meta: Json, spec: Json): EvaluationResult {
    const checks = this.checksFor(lv);
    if (!checks.length) return ALLOWED;
    const violations: Violation[] = [];
    for (const check of checks) {
      const v = check(meta, spec);
      if (v) violations.push({ reason: v.reason || 'unknown forbidden reason', detail: v.detail });
    }
    return violations.length ? { allowed: false, violations } : ALLOWED;
  }

  private effectiveVersion(version: Version): number {
    const max = minorVersion(this.maxVersion);
    return versionOlder(max, version) ? this.maxVersion : version.minor;
  }
}

/** The invariants upstream's registry enforces, so a mistake in the table fails at start. */
function validateChecks(checks: readonly Check[]): void {
  const levels = new Map<string, string>();
  for (const c of checks) {
    if (levels.has(c.id)) throw new Error(`multiple checks registered for ID ${c.id}`);
    levels.set(c.id, c.level);
    if (!c.versions.length) throw new Error(`check ${c.id}: empty`);
    let last = -1;
    for (const v of c.versions) {
      if (v.minVersion <= last) throw new Error(`check ${c.id}: versions must be strictly increasing`);
      last = v.minVersion;
    }
  }
  for (const c of checks) {
    for (const v of c.versions) {
      if (!v.overrides?.length) continue;
      if (c.level !== Level.Restricted) throw new Error(`check ${c.id}: only restricted checks may set overrides`);
      for (const o of v.overrides) if (levels.has(o) && levels.get(o) !== Level.Baseline) throw new Error(`check ${c.id}: overrides ${levels.get(o)} check ${o}`);
    }
  }
}
