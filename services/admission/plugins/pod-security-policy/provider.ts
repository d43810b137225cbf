// One PodSecurityPolicy applied to a pod (upstream's podsecuritypolicy simpleProvider): `mutatePod`
// fills in what the pod leaves unset with the policy's defaults, `validatePod` lists every way the
// pod breaks the policy. Field paths in the errors are upstream's (they name the internal API's
// fields, e.g. `spec.securityContext.hostNetwork`), since users match on the messages.

import { capabilitiesStrategy, type Capabilities, type CapabilitiesStrategy } from './capabilities.js';
import { invalid, type IdRange, type PspFieldError } from './field-errors.js';
import { groupStrategy, runAsUserStrategy, type GroupStrategy, type RunAsUserStrategy } from './id-strategies.js';
import { containerField, containersOf, effectiveField, podField, podSC, setAnnotation, setContainerField, setEffectiveField, setPodField, type Json, type Pod } from './pod.js';
import { appArmorStrategy, seccompStrategy, APPARMOR_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION, type AppArmorStrategy, type SeccompStrategy } from './profiles.js';
import { seLinuxStrategy, type SELinuxOptions, type SELinuxStrategy } from './selinux.js';
import { sysctlsStrategy, type SysctlsStrategy } from './sysctls.js';
import { validatePodVolumes } from './volumes.js';

export interface PodSecurityPolicyObject {
  metadata: { name?: string; annotations?: Record<string, string> };
  spec?: Json;
}

const ALLOW_ALL_RUNTIME_CLASSES = '*';
const DEFAULT_PROC_MOUNT = 'Default';

interface Strategies {
  runAsUser: RunAsUserStrategy;
  runAsGroup: GroupStrategy;
  fsGroup: GroupStrategy;
  supplementalGroups: GroupStrategy;
  seLinux: SELinuxStrategy;
  capabilities: CapabilitiesStrategy;
  sysctls: SysctlsStrategy;
  seccomp: SeccompStrategy;
  appArmor: AppArmorStrategy;
}

function hostPortRangesText(ranges: ReadonlyArray<IdRange>): string {
  return ranges.map((r) => (r.min === r.max ? `${r.min}` : `${r.min}-${r.max}`)).join(',');
}

export class Provider {
  readonly name: string;
  private readonly spec: Json;
  private readonly s: Strategies;

  /** Throws a StrategyError for a policy whose rules cannot be applied (it is then skipped). */
  constructor(psp: PodSecurityPolicyObject) {
    this.name = psp.metadata.name ?? '';
    this.spec = psp.spec ?? {};
    const annotations = psp.metadata.annotations ?? {};
    this.s = {
      runAsUser: runAsUserStrategy(this.spec.runAsUser),
      runAsGroup: groupStrategy(this.spec.runAsGroup, true),
      fsGroup: groupStrategy(this.spec.fsGroup),
      supplementalGroups: groupStrategy(this.spec.supplementalGroups),
      seLinux: seLinuxStrategy(this.spec.seLinux),
      capabilities: capabilitiesStrategy(this.spec),
      sysctls: sysctlsStrategy(this.spec),
      seccomp: seccompStrategy(annotations),
      appArmor: appArmorStrategy(annotations),
    };
  }

  /** Sets the policy's defaults on every field the pod leaves unset. */
  mutatePod(pod: Pod): void {
    const s = this.s;
    if (podField(pod, 'supplementalGroups') === undefined) setPodField(pod, 'supplementalGroups', s.supplementalGroups.generate());
    if (podField(pod, 'fsGroup') === undefined) setPodField(pod, 'fsGroup', s.fsGroup.generateSingle());
    if (podField(pod, 'seLinuxOptions') === undefined) setPodField(pod, 'seLinuxOptions', s.seLinux.generate());
    // Only the pod gets a seccomp default; containers inherit it.
    const seccomp = s.seccomp.generate(pod);
    if (seccomp) setAnnotation(pod, SECCOMP_POD_ANNOTATION, seccomp);
    const rc = this.spec.runtimeClass as Json | undefined;
    if (rc && (pod.spec.runtimeClassName === undefined || pod.spec.runtimeClassName === null) && typeof rc.defaultRuntimeClassName === 'string') {
      pod.spec.runtimeClassName = rc.defaultRuntimeClassName;
    }
    for (const { container } of containersOf(pod)) this.mutateContainer(pod, container);
  }

  private mutateContainer(pod: Pod, c: Json): void {
    const s = this.s;
    if (effectiveField(pod, c, 'runAsUser') === undefined) setEffectiveField(pod, c, 'runAsUser', s.runAsUser.generate());
    if (effectiveField(pod, c, 'runAsGroup') === undefined) setEffectiveField(pod, c, 'runAsGroup', s.runAsGroup.generateSingle());
    if (effectiveField(pod, c, 'seLinuxOptions') === undefined) setEffectiveField(pod, c, 'seLinuxOptions', s.seLinux.generate());
    const appArmor = s.appArmor.generate(pod, c);
    if (appArmor) setAnnotation(pod, APPARMOR_CONTAINER_ANNOTATION_PREFIX + String(c.name ?? ''), appArmor);
    // MustRunAsNonRoot marks the container so the node checks the image's user when none is set.
    if (effectiveField(pod, c, 'runAsNonRoot') === undefined && effectiveField(pod, c, 'runAsUser') === undefined && this.spec.runAsUser?.rule === 'MustRunAsNonRoot') {
      setEffectiveField(pod, c, 'runAsNonRoot', true);
    }
    setContainerField(c, 'capabilities', s.capabilities.generate(containerField<Capabilities>(c, 'capabilities')));
    if (this.spec.readOnlyRootFilesystem === true && containerField(c, 'readOnlyRootFilesystem') === undefined) setContainerField(c, 'readOnlyRootFilesystem', true);
    if (typeof this.spec.defaultAllowPrivilegeEscalation === 'boolean' && containerField(c, 'allowPrivilegeEscalation') === undefined) {
      setContainerField(c, 'allowPrivilegeEscalation', this.spec.defaultAllowPrivilegeEscalation);
    }
    if (this.spec.allowPrivilegeEscalation === false && containerField(c, 'allowPrivilegeEscalation') === undefined) setContainerField(c, 'allowPrivilegeEscalation', false);
  }

  /** Every way the pod breaks the policy, in upstream's order. */
  validatePod(pod: Pod): PspFieldError[] {
    const s = this.s;
    const spec = this.spec;
    const sc = 'spec.securityContext';
    const errs: PspFieldError[] = [];
    const fsGroup = podField<number>(pod, 'fsGroup');
    errs.push(...s.fsGroup.validate(`${sc}.fsGroup`, fsGroup === undefined ? undefined : [fsGroup]));
    errs.push(...s.supplementalGroups.validate(`${sc}.supplementalGroups`, podField<number[]>(pod, 'supplementalGroups')));
    errs.push(...s.seccomp.validatePod(pod));
    errs.push(...s.seLinux.validate(`${sc}.seLinuxOptions`, podField<SELinuxOptions>(pod, 'seLinuxOptions')));
    for (const [field, what] of [
      ['hostNetwork', 'Host network'],
      ['hostPID', 'Host PID'],
      ['hostIPC', 'Host IPC'],
    ] as const) {
      if (spec[field] !== true && pod.spec[field] === true) errs.push(invalid(`${sc}.${field}`, true, `${what} is not allowed to be used`));
    }
    errs.push(...s.sysctls.validate((podSC(pod)?.sysctls ?? []) as Array<{ name?: string }>));
    errs.push(...validatePodVolumes(spec, pod));
    const rc = spec.runtimeClass as Json | undefined;
    const rcName = pod.spec.runtimeClassName;
    if (rc && typeof rcName === 'string') {
      const names = (rc.allowedRuntimeClassNames ?? []) as string[];
      if (!names.includes(ALLOW_ALL_RUNTIME_CLASSES) && !names.includes(rcName)) errs.push(invalid('spec.runtimeClassName', rcName, ''));
    }
    for (const { container, path } of containersOf(pod)) errs.push(...this.validateContainer(pod, container, path));
    return errs;
  }

  private validateContainer(pod: Pod, c: Json, path: string): PspFieldError[] {
    const s = this.s;
    const spec = this.spec;
    const sc = `${path}.securityContext`;
    const errs: PspFieldError[] = [];
    errs.push(...s.runAsUser.validate(sc, effectiveField<boolean>(pod, c, 'runAsNonRoot'), effectiveField<number>(pod, c, 'runAsUser')));
    const gid = effectiveField<number>(pod, c, 'runAsGroup');
    errs.push(...s.runAsGroup.validate(sc, gid === undefined ? undefined : [gid]));
    errs.push(...s.seLinux.validate(`${sc}.seLinuxOptions`, effectiveField<SELinuxOptions>(pod, c, 'seLinuxOptions')));
    errs.push(...s.appArmor.validate(pod, c));
    errs.push(...s.seccomp.validateContainer(pod, c));
    if (spec.privileged !== true && containerField(c, 'privileged') === true) errs.push(invalid(`${sc}.privileged`, true, 'Privileged containers are not allowed'));
    const procMount = containerField<string>(c, 'procMount') ?? DEFAULT_PROC_MOUNT;
    const allowedProcMounts = (spec.allowedProcMountTypes as string[] | undefined)?.length ? (spec.allowedProcMountTypes as string[]) : [DEFAULT_PROC_MOUNT];
    if (!allowedProcMounts.includes(procMount)) errs.push(invalid(`${sc}.procMount`, procMount, 'ProcMountType is not allowed'));
    errs.push(...s.capabilities.validate(`${sc}.capabilities`, containerField<Capabilities>(c, 'capabilities')));
    errs.push(...this.invalidHostPorts(c, path));
    if (spec.readOnlyRootFilesystem === true) {
      const readOnly = containerField<boolean>(c, 'readOnlyRootFilesystem');
      if (readOnly === undefined) errs.push(invalid(`${sc}.readOnlyRootFilesystem`, null, 'ReadOnlyRootFilesystem may not be nil and must be set to true'));
      else if (!readOnly) errs.push(invalid(`${sc}.readOnlyRootFilesystem`, false, 'ReadOnlyRootFilesystem must be set to true'));
    }
    const escalation = containerField<boolean>(c, 'allowPrivilegeEscalation');
    if (spec.allowPrivilegeEscalation === false && escalation !== false) {
      errs.push(invalid(`${sc}.allowPrivilegeEscalation`, escalation ?? null, 'Allowing privilege escalation for containers is not allowed'));
    }
    return errs;
  }

  private invalidHostPorts(c: Json, path: string): PspFieldError[] {
    const ranges = (this.spec.hostPorts ?? []) as IdRange[];
    const errs: PspFieldError[] = [];
    for (const p of (c.ports ?? []) as Json[]) {
      const port = p.hostPort;
      if (typeof port !== 'number' || port <= 0) continue;
      if (ranges.some((r) => port >= r.min && port <= r.max)) continue;
      errs.push(invalid(`${path}.hostPort`, port, `Host port ${port} is not allowed to be used. Allowed ports: [${hostPortRangesText(ranges)}]`));
    }
    return errs;
  }
}
