// The Pod Security Standards' checks as upstream's pod-security-admission 1.24 defines them, each
// with the policy version it first applied at (a check's behaviour can change between versions:
// seccomp moved from annotations to fields in 1.19), and the evaluator that runs the checks of a
// level at a version. Restricted includes every baseline check except those a restricted check
// replaces at that version (restricted volume types replace hostPath volumes; restricted
// capabilities replace baseline capabilities from 1.22; restricted seccomp replaces baseline
// seccomp from 1.19). Checks run baseline first, then restricted, each group ordered by id, so a
// message lists the same violations in the same order as upstream's.
//
// A check reads the pod as JSON (core v1): the pod's metadata and spec, or a template's.

import { Level, minorVersion, versionOlder, type LevelVersion, type Version } from './policy.js';

type Json = Record<string, unknown>;

/** Why a check forbids a pod: a short reason, and a detail shown when one object is checked. */
export interface Violation {
  reason: string;
  detail: string;
}

export type CheckFn = (meta: Json, spec: Json) => Violation | undefined;

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

// ---- reading the pod ------------------------------------------------------------------------

const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

interface Container {
  name: string;
  sc: Json | undefined;
  raw: Json;
}

/** Init containers, containers, then ephemeral containers: upstream's visiting order. */
function containers(spec: Json): Container[] {
  const out: Container[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of list(spec[field])) {
      const raw = rec(c);
      if (raw) out.push({ name: str(raw.name), sc: rec(raw.securityContext), raw });
    }
  }
  return out;
}

const podSC = (spec: Json): Json | undefined => rec(spec.securityContext);
const annotationsOf = (meta: Json): Json => rec(meta.annotations) ?? {};

// ---- message helpers (upstream's wording) ----------------------------------------------------

const pluralize = (singular: string, plural: string, n: number): string => (n === 1 ? singular : plural);
const joinQuote = (items: readonly string[]): string => (items.length ? `"${items.join('", "')}"` : '');
const containerList = (names: readonly string[]): string => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
/** A sorted set of strings (upstream's sets.String.List()). */
const sortedSet = (items: Iterable<string>): string[] => [...new Set(items)].sort();

/** Go's %q for a string: double-quoted with Go's escapes, printable characters as they are. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

// ---- baseline ---------------------------------------------------------------------------------

/** Branded spellings of upstream's beta AppArmor and alpha seccomp annotations. */
export const APPARMOR_CONTAINER_ANNOTATION_PREFIX = 'container.apparmor.security.beta.platform.io/';
export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.platform.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.platform.io/';

const appArmorProfile_1_0: CheckFn = (meta) => {
  const bad: string[] = [];
  for (const [k, v] of Object.entries(annotationsOf(meta))) {
    if (!k.startsWith(APPARMOR_CONTAINER_ANNOTATION_PREFIX)) continue;
    const profile = str(v);
    if (profile === '' || profile === 'runtime/default' || profile.startsWith('localhost/')) continue;
    bad.push(`${k}=${goQuote(profile)}`);
  }
  if (!bad.length) return undefined;
  bad.sort();
  return { reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', bad.length), detail: bad.join(', ') };
};

const CAPABILITIES_BASELINE_1_0 = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

const capabilitiesBaseline_1_0: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of containers(spec)) {
    const capabilities = rec(c.sc?.capabilities);
    if (!capabilities) continue;
    let valid = true;
    for (const cap of list(capabilities.add)) {
      if (!CAPABILITIES_BASELINE_1_0.has(str(cap))) {
        valid = false;
        caps.push(str(cap));
      }
    }
    if (!valid) bad.push(c.name);
  }
  if (!bad.length) return undefined;
  return { reason: 'non-default capabilities', detail: `${containerList(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add` };
};

const hostNamespaces_1_0: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  if (spec.hostNetwork === true) bad.push('hostNetwork=true');
  if (spec.hostPID === true) bad.push('hostPID=true');
  if (spec.hostIPC === true) bad.push('hostIPC=true');
  return bad.length ? { reason: 'host namespaces', detail: bad.join(', ') } : undefined;
};

const hostPathVolumes_1_0: CheckFn = (_meta, spec) => {
  const bad = list(spec.volumes).flatMap((v) => (rec(rec(v)?.hostPath) ? [str(rec(v)!.name)] : []));
  if (!bad.length) return undefined;
  return { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` };
};

const hostPorts_1_0: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of containers(spec)) {
    let valid = true;
    for (const p of list(c.raw.ports)) {
      const hostPort = rec(p)?.hostPort;
      if (typeof hostPort === 'number' && hostPort !== 0) {
        valid = false;
        ports.push(String(hostPort));
      }
    }
    if (!valid) bad.push(c.name);
  }
  if (!bad.length) return undefined;
  const sorted = sortedSet(ports);
  return {
    reason: 'hostPort',
    detail: `${containerList(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', sorted.length)} ${sorted.join(', ')}`,
  };
};

const privileged_1_0: CheckFn = (_meta, spec) => {
  const bad = containers(spec)
    .filter((c) => c.sc?.privileged === true)
    .map((c) => c.name);
  if (!bad.length) return undefined;
  return { reason: 'privileged', detail: `${containerList(bad)} must not set securityContext.privileged=true` };
};

const procMount_1_0: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of containers(spec)) {
    const procMount = c.sc?.procMount;
    if (procMount === undefined || procMount === null || procMount === 'Default') continue;
    bad.push(c.name);
    types.push(str(procMount));
  }
  if (!bad.length) return undefined;
  return { reason: 'procMount', detail: `${containerList(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` };
};

const SELINUX_TYPES_1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

const seLinuxOptions_1_0: CheckFn = (_meta, spec) => {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  const valid = (opts: Json): boolean => {
    let ok = true;
    const type = str(opts.type);
    if (!SELINUX_TYPES_1_0.has(type)) {
      ok = false;
      badTypes.push(type);
    }
    if (str(opts.user)) {
      ok = false;
      setUser = true;
    }
    if (str(opts.role)) {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const setters: string[] = [];
  const podOpts = rec(podSC(spec)?.seLinuxOptions);
  if (podOpts && !valid(podOpts)) setters.push('pod');
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const opts = rec(c.sc?.seLinuxOptions);
    if (opts && !valid(opts)) bad.push(c.name);
  }
  if (bad.length) setters.push(containerList(bad));
  if (!setters.length) return undefined;
  // Upstream 1.24 left "user/role may not be set" out when no type was bad (fixed in 1.25);
  // the fixed wording is used here, so a user-only violation does not end in an empty detail.
  const data: string[] = [];
  const types = sortedSet(badTypes);
  if (types.length) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
  if (setUser) data.push('user may not be set');
  if (setRole) data.push('role may not be set');
  return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
};

const validSeccompAnnotation = (v: string): boolean => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');

/** Before 1.19 seccomp was set by annotations. */
const seccompProfileBaseline_1_0: CheckFn = (meta, spec) => {
  const annotations = annotationsOf(meta);
  const bad: string[] = [];
  const consider = (key: string): void => {
    if (!Object.hasOwn(annotations, key)) return;
    const v = str(annotations[key]);
    if (!validSeccompAnnotation(v)) bad.push(`${key}=${goQuote(v)}`);
  };
  consider(SECCOMP_POD_ANNOTATION);
  for (const c of containers(spec)) consider(SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name);
  if (!bad.length) return undefined;
  const sorted = sortedSet(bad);
  return { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', sorted.length)} ${sorted.join(', ')}` };
};

const validSeccompType = (t: unknown): boolean => t === 'RuntimeDefault' || t === 'Localhost';

/** Who set `seccompProfile.type` to a forbidden value, and which values; `podValid` when the pod set a good one. */
function seccompSetters(spec: Json): { setters: string[]; values: string[]; podValid: boolean; unset: string[] } {
  const setters: string[] = [];
  const values: string[] = [];
  let podValid = false;
  const podProfile = rec(podSC(spec)?.seccompProfile);
  if (podProfile) {
    if (validSeccompType(podProfile.type)) podValid = true;
    else {
      setters.push('pod');
      values.push(str(podProfile.type));
    }
  }
  const bad: string[] = [];
  const unset: string[] = [];
  for (const c of containers(spec)) {
    const profile = rec(c.sc?.seccompProfile);
    if (profile) {
      if (!validSeccompType(profile.type)) {
        bad.push(c.name);
        values.push(str(profile.type));
      }
    } else unset.push(c.name);
  }
  if (bad.length) setters.push(containerList(bad));
  return { setters, values: sortedSet(values), podValid, unset };
}

const seccompProfileBaseline_1_19: CheckFn = (_meta, spec) => {
  const { setters, values } = seccompSetters(spec);
  if (!setters.length) return undefined;
  return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}` };
};

const SYSCTLS_1_0 = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']);

const sysctls_1_0: CheckFn = (_meta, spec) => {
  const bad = list(podSC(spec)?.sysctls)
    .map((s) => str(rec(s)?.name))
    .filter((name) => !SYSCTLS_1_0.has(name));
  return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
};

const windowsHostProcess_1_0: CheckFn = (_meta, spec) => {
  const setters: string[] = [];
  if (rec(podSC(spec)?.windowsOptions)?.hostProcess === true) setters.push('pod');
  const bad = containers(spec)
    .filter((c) => rec(c.sc?.windowsOptions)?.hostProcess === true)
    .map((c) => c.name);
  if (bad.length) setters.push(containerList(bad));
  if (!setters.length) return undefined;
  return { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
};

// ---- restricted -------------------------------------------------------------------------------

const allowPrivilegeEscalation_1_8: CheckFn = (_meta, spec) => {
  const bad = containers(spec)
    .filter((c) => c.sc?.allowPrivilegeEscalation !== false)
    .map((c) => c.name);
  if (!bad.length) return undefined;
  return { reason: 'allowPrivilegeEscalation != false', detail: `${containerList(bad)} must set securityContext.allowPrivilegeEscalation=false` };
};

const capabilitiesRestricted_1_22: CheckFn = (_meta, spec) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden: string[] = [];
  for (const c of containers(spec)) {
    const capabilities = rec(c.sc?.capabilities);
    if (!capabilities) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!list(capabilities.drop).includes('ALL')) missingDropAll.push(c.name);
    let adds = false;
    for (const cap of list(capabilities.add)) {
      if (cap !== 'NET_BIND_SERVICE') {
        adds = true;
        forbidden.push(str(cap));
      }
    }
    if (adds) addingForbidden.push(c.name);
  }
  const details: string[] = [];
  if (missingDropAll.length) details.push(`${containerList(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length) details.push(`${containerList(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
};

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
/** Upstream's order of precedence when naming a forbidden volume's type. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

const restrictedVolumes_1_0: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of list(spec.volumes)) {
    const vol = rec(v);
    if (!vol) continue;
    const has = (source: string): boolean => vol[source] !== undefined && vol[source] !== null;
    if (ALLOWED_VOLUME_SOURCES.some(has)) continue;
    bad.push(str(vol.name));
    types.push(RESTRICTED_VOLUME_SOURCES.find(has) ?? 'unknown');
  }
  if (!bad.length) return undefined;
  const sorted = sortedSet(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', sorted.length)} ${joinQuote(sorted)}`,
  };
};

const runAsNonRoot_1_0: CheckFn = (_meta, spec) => {
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = podSC(spec)?.runAsNonRoot;
  if (typeof podValue === 'boolean') {
    if (podValue) podNonRoot = true;
    else setters.push('pod');
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = c.sc?.runAsNonRoot;
    if (typeof v === 'boolean') {
      if (!v) explicit.push(c.name);
    } else if (!podNonRoot) implicit.push(c.name);
  }
  if (explicit.length) setters.push(containerList(explicit));
  if (setters.length) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length) return { reason: 'runAsNonRoot != true', detail: `pod or ${containerList(implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

const runAsUser_1_23: CheckFn = (_meta, spec) => {
  const setters: string[] = [];
  if (podSC(spec)?.runAsUser === 0) setters.push('pod');
  const bad = containers(spec)
    .filter((c) => c.sc?.runAsUser === 0)
    .map((c) => c.name);
  if (bad.length) setters.push(containerList(bad));
  return setters.length ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
};

const seccompProfileRestricted_1_19: CheckFn = (_meta, spec) => {
  const { setters, values, podValid, unset } = seccompSetters(spec);
  if (setters.length) return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}` };
  if (!podValid && unset.length) {
    return { reason: 'seccompProfile', detail: `pod or ${containerList(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  }
  return undefined;
};

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
