// The baseline level's checks of the Pod Security Standards (upstream's pod-security-admission
// 1.24), each named by the policy version it first applied at.

import { annotationsOf, containerList, containers, goQuote, joinQuote, list, pluralize, podSC, rec, sortedSet, str, type CheckFn, type Json } from './check-support.js';

/** Branded spellings of upstream's beta AppArmor and alpha seccomp annotations. */
export const APPARMOR_CONTAINER_ANNOTATION_PREFIX = 'container.apparmor.security.beta.platform.io/';
export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.platform.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.platform.io/';

export const appArmorProfile_1_0: CheckFn = (meta) => {
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

export const capabilitiesBaseline_1_0: CheckFn = (_meta, spec) => {
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

export const hostNamespaces_1_0: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  if (spec.hostNetwork === true) bad.push('hostNetwork=true');
  if (spec.hostPID === true) bad.push('hostPID=true');
  if (spec.hostIPC === true) bad.push('hostIPC=true');
  return bad.length ? { reason: 'host namespaces', detail: bad.join(', ') } : undefined;
};

export const hostPathVolumes_1_0: CheckFn = (_meta, spec) => {
  const bad = list(spec.volumes).flatMap((v) => (rec(rec(v)?.hostPath) ? [str(rec(v)!.name)] : []));
  if (!bad.length) return undefined;
  return { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` };
};

export const hostPorts_1_0: CheckFn = (_meta, spec) => {
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

export const privileged_1_0: CheckFn = (_meta, spec) => {
  const bad = containers(spec)
    .filter((c) => c.sc?.privileged === true)
    .map((c) => c.name);
  if (!bad.length) return undefined;
  return { reason: 'privileged', detail: `${containerList(bad)} must not set securityContext.privileged=true` };
};

export const procMount_1_0: CheckFn = (_meta, spec) => {
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

export const seLinuxOptions_1_0: CheckFn = (_meta, spec) => {
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
export const seccompProfileBaseline_1_0: CheckFn = (meta, spec) => {
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
export function seccompSetters(spec: Json): { setters: string[]; values: string[]; podValid: boolean; unset: string[] } {
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

export const seccompProfileBaseline_1_19: CheckFn = (_meta, spec) => {
  const { setters, values } = seccompSetters(spec);
  if (!setters.length) return undefined;
  return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}` };
};

const SYSCTLS_1_0 = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']);

export const sysctls_1_0: CheckFn = (_meta, spec) => {
  const bad = list(podSC(spec)?.sysctls)
    .map((s) => str(rec(s)?.name))
    .filter((name) => !SYSCTLS_1_0.has(name));
  return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
};

export const windowsHostProcess_1_0: CheckFn = (_meta, spec) => {
  const setters: string[] = [];
  if (rec(podSC(spec)?.windowsOptions)?.hostProcess === true) setters.push('pod');
  const bad = containers(spec)
    .filter((c) => rec(c.sc?.windowsOptions)?.hostProcess === true)
    .map((c) => c.name);
  if (bad.length) setters.push(containerList(bad));
  if (!setters.length) return undefined;
  return { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
};
