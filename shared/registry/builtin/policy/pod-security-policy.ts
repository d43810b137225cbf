// PodSecurityPolicies (policy/v1beta1, deprecated): cluster-level rules on pod security fields.
// Every field of the spec's table is modelled and the cross-field rules are enforced here, with
// upstream's checks of the seccomp and AppArmor profile annotations the admission plugin reads.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { joinList } from '../common/columns.js';
import { asArray, asObject, at, duplicates, type Json, setDefault } from '../common/field-errors.js';
import { seLinuxOptions } from '../common/pod-spec.js';
import { atomicList, bool, described, int32, int64, obj, str, strEnum } from '../common/schema.js';
import * as docs from './pod-security-policy-docs.js';
import { updateValidation } from '../common/strategy.js';
import { forbidden, invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { validDnsSubdomain } from '../../../api/validation.js';

export const PSP_VOLUMES = [
  'azureFile',
  'flocker',
  'flexVolume',
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephFS',
  'downwardAPI',
  'fc',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  '*',
];
const RUN_AS_USER_RULES = ['MustRunAs', 'MustRunAsNonRoot', 'RunAsAny'];
const RUN_AS_GROUP_RULES = ['MustRunAs', 'MayRunAs', 'RunAsAny'];
const GROUP_RULES = ['MustRunAs', 'MayRunAs', 'RunAsAny'];
const SELINUX_RULES = ['MustRunAs', 'RunAsAny'];

const idRange = described(obj({ min: int64, max: int64 }, ['min', 'max']), docs.idRangeDocs, docs.ID_RANGE_ABOUT);
const ranges = atomicList(idRange);
const groupRule = (rules: string[], what: string, required?: string[]) => described(obj({ rule: strEnum(...rules), ranges }, required), docs.groupDocs(what), `Which ${what} pods may use.`);

const pspSpec = described(
  obj(
    {
      privileged: bool,
      defaultAddCapabilities: atomicList(str),
      requiredDropCapabilities: atomicList(str),
      allowedCapabilities: atomicList(str),
      volumes: atomicList(strEnum(...PSP_VOLUMES)),
      hostNetwork: bool,
      hostPorts: atomicList(described(obj({ min: int32, max: int32 }, ['min', 'max']), docs.hostPortRangeDocs, 'A range of host ports, both ends included.')),
      hostPID: bool,
      hostIPC: bool,
      seLinux: described(obj({ rule: strEnum(...SELINUX_RULES), seLinuxOptions }, ['rule']), docs.seLinuxDocs, 'Which SELinux labels pods may use.'),
      runAsUser: described(obj({ rule: strEnum(...RUN_AS_USER_RULES), ranges }, ['rule']), docs.runAsUserDocs, 'Which uids containers may run as.'),
      runAsGroup: groupRule(RUN_AS_GROUP_RULES, 'primary gids', ['rule']),
      supplementalGroups: groupRule(GROUP_RULES, 'supplemental groups'),
      fsGroup: groupRule(GROUP_RULES, 'fsGroup values'),
      readOnlyRootFilesystem: bool,
      defaultAllowPrivilegeEscalation: bool,
      allowPrivilegeEscalation: bool,
      allowedHostPaths: atomicList(described(obj({ pathPrefix: str, readOnly: bool }), docs.hostPathDocs, 'A host directory hostPath volumes may use.')),
      allowedFlexVolumes: atomicList(described(obj({ driver: str }, ['driver']), { driver: 'Name of the flex volume driver.' }, 'A flex volume driver pods may use.')),
      allowedCSIDrivers: atomicList(described(obj({ name: str }, ['name']), { name: 'Name of the CSI driver, as in its CSIDriver object.' }, 'A CSI driver pods may use inline.')),
      allowedUnsafeSysctls: atomicList(str),
      forbiddenSysctls: atomicList(str),
      allowedProcMountTypes: atomicList(strEnum('Default', 'Unmasked')),
      runtimeClass: described(
        obj({ allowedRuntimeClassNames: atomicList(str), defaultRuntimeClassName: str }, ['allowedRuntimeClassNames']),
        docs.runtimeClassDocs,
        'Which RuntimeClasses pods may name.',
      ),
    },
    ['seLinux', 'runAsUser', 'supplementalGroups', 'fsGroup'],
  ),
  docs.pspSpecDocs,
  docs.PSP_SPEC_ABOUT,
);

const schema = described(obj({ spec: pspSpec }), { spec: docs.PSP_SPEC_ABOUT }, docs.PSP_ABOUT);

const MAX_ID = 2147483647;

/** Upstream's validateIDRanges: min within 0…2^31-1, min not above max. */
function validateRanges(list: unknown, f: string): FieldError[] {
  const errs: FieldError[] = [];
  asArray(list).forEach((r, i) => {
    const range = asObject(r) ?? {};
    const min = range.min;
    const max = range.max;
    if (typeof min === 'number' && (min < 0 || min > MAX_ID)) errs.push(invalidValue(`${f}[${i}].min`, min, `must be between 0 and ${MAX_ID}, inclusive`));
    if (typeof max === 'number' && (max < 0 || max > MAX_ID)) errs.push(invalidValue(`${f}[${i}].max`, max, `must be between 0 and ${MAX_ID}, inclusive`));
    if (typeof min === 'number' && typeof max === 'number' && min > max) errs.push(invalidValue(`${f}[${i}]`, min, 'min cannot be greater than max'));
  });
  return errs;
}

/** runAsGroup as upstream: RunAsAny takes no ranges, MustRunAs and MayRunAs at least one. */
function validateRunAsGroup(s: unknown): FieldError[] {
  const strat = asObject(s);
  if (!strat) return [];
  const f = 'spec.runAsGroup';
  const ranges = asArray(strat.ranges);
  switch (strat.rule) {
    case 'RunAsAny':
      return ranges.length ? [invalidValue(`${f}.ranges`, ranges, 'Ranges must be empty')] : [];
    case 'MustRunAs':
    case 'MayRunAs':
      return ranges.length ? validateRanges(ranges, `${f}.ranges`) : [invalidValue(`${f}.ranges`, ranges, 'must provide at least one range')];
    default:
      return [unsupported(`${f}.rule`, strat.rule ?? '', RUN_AS_GROUP_RULES)];
  }
}

/** A `rule` + `ranges` strategy: known rule, valid ranges, ranges present for MustRunAs (the spec's table). */
function validateStrategy(s: unknown, f: string, rules: string[]): FieldError[] {
  const strat = asObject(s);
  if (!strat) return [required(f)];
  const errs: FieldError[] = [];
  const rule = strat.rule;
  if (typeof rule !== 'string' || !rules.includes(rule)) errs.push(unsupported(`${f}.rule`, rule ?? '', rules));
  if (rule === 'MustRunAs' && !asArray(strat.ranges).length) errs.push(required(`${f}.ranges`, 'ranges are required for rule MustRunAs'));
  errs.push(...validateRanges(strat.ranges, `${f}.ranges`));
  return errs;
}

// A sysctl name, or a prefix ending in `*`; `*` alone means all.
const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_PATTERN = new RegExp(`^(${SYSCTL_SEGMENT}[./])*(${SYSCTL_SEGMENT}|(${SYSCTL_SEGMENT})?\\*)$`);

function validateSysctls(list: unknown, f: string): FieldError[] {
  const values = asArray(list).map(String);
  const errs: FieldError[] = [];
  values.forEach((v, i) => {
    if (v === '*') {
      if (values.length > 1) errs.push(forbidden(`${f}[${i}]`, "if '*' is present, must not specify other sysctls"));
      return;
    }
    if (v.length > 253 || !SYSCTL_PATTERN.test(v) || (v.includes('*') && !v.endsWith('*'))) {
      errs.push(invalidValue(`${f}[${i}]`, v, `must have at most 253 characters and match regex ${SYSCTL_PATTERN.source.slice(1, -1)}`));
    }
  });
  errs.push(...duplicates(f, values));
  return errs;
}

/** No allowed unsafe sysctl may overlap a forbidden one (upstream's four cases of name and prefix). */
function validateSysctlOverlap(spec: Json): FieldError[] {
  const allowed = asArray(spec.allowedUnsafeSysctls).map(String);
  const forbiddenList = asArray(spec.forbiddenSysctls).map(String);
  const errs: FieldError[] = [];
  const prefix = (p: string): string | undefined => (p.endsWith('*') ? p.slice(0, -1) : undefined);
  allowed.forEach((a, i) => {
    const ap = prefix(a);
    forbiddenList.forEach((fb, j) => {
      const fp = prefix(fb);
      const onAllowed = invalidValue(`spec.allowedUnsafeSysctls[${i}]`, a, `sysctl overlaps with ${fb}`);
      const onForbidden = invalidValue(`spec.forbiddenSysctls[${j}]`, fb, `sysctl overlaps with ${a}`);
      if (ap !== undefined && fp !== undefined) {
        if (ap.startsWith(fp)) errs.push(onAllowed);
        else if (fp.startsWith(ap)) errs.push(onForbidden);
      } else if (ap !== undefined) {
        if (fb.startsWith(ap)) errs.push(onForbidden);
      } else if (fp !== undefined) {
        if (a.startsWith(fp)) errs.push(onAllowed);
      } else if (a === fb) errs.push(onAllowed);
    });
  });
  return errs;
}

function validateCapabilities(spec: Json): FieldError[] {
  const drop = new Set(asArray(spec.requiredDropCapabilities).map(String));
  const errs: FieldError[] = [];
  if (drop.size && asArray(spec.allowedCapabilities).includes('*')) {
    errs.push(invalidValue('spec.requiredDropCapabilities', spec.requiredDropCapabilities, 'must be empty when all capabilities are allowed by a wildcard'));
  }
  for (const field of ['allowedCapabilities', 'defaultAddCapabilities']) {
    for (const cap of asArray(spec[field]).map(String)) {
      if (drop.has(cap)) errs.push(invalidValue(`spec.${field}`, cap, `capability is listed in ${field} and requiredDropCapabilities`));
    }
  }
  return errs;
}

function validateHostPaths(spec: Json): FieldError[] {
  const errs: FieldError[] = [];
  asArray(spec.allowedHostPaths).forEach((p, i) => {
    const prefix = asObject(p)?.pathPrefix;
    const f = `spec.allowedHostPaths[${i}].pathPrefix`;
    if (typeof prefix !== 'string' || !prefix) errs.push(required(f));
    else if (prefix.includes('*')) errs.push(invalidValue(f, prefix, "must not contain '*'"));
    else if (prefix.split('/').includes('..')) errs.push(invalidValue(f, prefix, "must not contain '..'"));
  });
  return errs;
}

function validateHostPorts(spec: Json): FieldError[] {
  const errs: FieldError[] = [];
  asArray(spec.hostPorts).forEach((p, i) => {
    const r = asObject(p) ?? {};
    const f = `spec.hostPorts[${i}]`;
    for (const k of ['min', 'max']) {
      const v = r[k];
      if (typeof v === 'number' && (v < 0 || v > 65535)) errs.push(invalidValue(`${f}.${k}`, v, 'must be between 0 and 65535, inclusive'));
    }
    if (typeof r.min === 'number' && typeof r.max === 'number' && r.min > r.max) errs.push(invalidValue(f, { min: r.min, max: r.max }, 'min cannot be greater than max'));
  });
  return errs;
}

function validateRuntimeClass(spec: Json): FieldError[] {
  const rc = asObject(spec.runtimeClass);
  if (!rc) return [];
  const errs: FieldError[] = [];
  const allowed = asArray(rc.allowedRuntimeClassNames).map(String);
  if (!Array.isArray(rc.allowedRuntimeClassNames)) errs.push(required('spec.runtimeClass.allowedRuntimeClassNames'));
  allowed.forEach((n, i) => {
    const f = `spec.runtimeClass.allowedRuntimeClassNames[${i}]`;
    if (n === '*') {
      if (allowed.length > 1) errs.push(invalidValue(f, n, "if '*' is present, must not specify other RuntimeClass names"));
    } else if (!validDnsSubdomain(n)) errs.push(invalidValue(f, n, 'must be a valid RuntimeClass name (a DNS subdomain)'));
  });
  errs.push(...duplicates('spec.runtimeClass.allowedRuntimeClassNames', allowed));
  const def = rc.defaultRuntimeClassName;
  if (typeof def === 'string') {
    if (!validDnsSubdomain(def)) errs.push(invalidValue('spec.runtimeClass.defaultRuntimeClassName', def, 'must be a valid RuntimeClass name (a DNS subdomain)'));
    else if (!allowed.includes('*') && !allowed.includes(def)) errs.push(invalidValue('spec.runtimeClass.defaultRuntimeClassName', def, 'default must be allowed'));
  }
  return errs;
}

const SECCOMP_DEFAULT_PROFILE = 'seccomp.security.alpha.platform.io/defaultProfileName';
const SECCOMP_ALLOWED_PROFILES = 'seccomp.security.alpha.platform.io/allowedProfileNames';
const APPARMOR_DEFAULT_PROFILE = 'apparmor.security.beta.platform.io/defaultProfileName';
const APPARMOR_ALLOWED_PROFILES = 'apparmor.security.beta.platform.io/allowedProfileNames';

/** A seccomp profile name as a pod annotation may carry it. */
function seccompProfileErrors(p: string, f: string): FieldError[] {
  if (p === 'runtime/default' || p === 'docker/default' || p === 'unconfined') return [];
  if (p.startsWith('localhost/')) {
    const local = p.slice('localhost/'.length);
    if (local.startsWith('/')) return [invalidValue(f, local, 'must be a relative path')];
    if (local.split('/').includes('..')) return [invalidValue(f, local, "must not contain '..'")];
    return [];
  }
  return [invalidValue(f, p, 'must be a valid seccomp profile')];
}

const appArmorProfileValid = (p: string): boolean => p === '' || p === 'runtime/default' || p === 'unconfined' || p.startsWith('localhost/');

/** The policy's seccomp and AppArmor annotations name profiles a pod could use. */
function validateProfileAnnotations(annotations: Json): FieldError[] {
  const errs: FieldError[] = [];
  const key = (k: string) => `metadata.annotations[${k}]`;
  const at = (k: string): string => (typeof annotations[k] === 'string' ? (annotations[k] as string) : '');
  const aaDefault = at(APPARMOR_DEFAULT_PROFILE);
  if (!appArmorProfileValid(aaDefault)) errs.push(invalidValue(key(APPARMOR_DEFAULT_PROFILE), aaDefault, `invalid AppArmor profile name: ${JSON.stringify(aaDefault)}`));
  const aaAllowed = at(APPARMOR_ALLOWED_PROFILES);
  if (aaAllowed) {
    for (const p of aaAllowed.split(',')) {
      if (!appArmorProfileValid(p)) errs.push(invalidValue(key(APPARMOR_ALLOWED_PROFILES), aaAllowed, `invalid AppArmor profile name: ${JSON.stringify(p)}`));
    }
  }
  const scDefault = at(SECCOMP_DEFAULT_PROFILE);
  if (scDefault) errs.push(...seccompProfileErrors(scDefault, key(SECCOMP_DEFAULT_PROFILE)));
  const scAllowed = at(SECCOMP_ALLOWED_PROFILES);
  if (scAllowed) for (const p of scAllowed.split(',')) if (p !== '*') errs.push(...seccompProfileErrors(p, key(SECCOMP_ALLOWED_PROFILES)));
  return errs;
}

export function validatePodSecurityPolicy(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec);
  if (!spec) return [required('spec')];
  const errs: FieldError[] = [
    ...validateProfileAnnotations(asObject(o.metadata?.annotations) ?? {}),
    ...validateStrategy(spec.runAsUser, 'spec.runAsUser', RUN_AS_USER_RULES),
    ...validateRunAsGroup(spec.runAsGroup),
    ...validateStrategy(spec.fsGroup, 'spec.fsGroup', GROUP_RULES),
    ...validateStrategy(spec.supplementalGroups, 'spec.supplementalGroups', GROUP_RULES),
  ];
  const se = asObject(spec.seLinux);
  if (!se) errs.push(required('spec.seLinux'));
  else {
    if (typeof se.rule !== 'string' || !SELINUX_RULES.includes(se.rule)) errs.push(unsupported('spec.seLinux.rule', se.rule ?? '', SELINUX_RULES));
    if (se.rule === 'MustRunAs' && !asObject(se.seLinuxOptions)) errs.push(required('spec.seLinux.seLinuxOptions', 'seLinuxOptions are required for rule MustRunAs'));
  }
  asArray(spec.volumes).forEach((v, i) => {
    if (!PSP_VOLUMES.includes(String(v))) errs.push(unsupported(`spec.volumes[${i}]`, v, PSP_VOLUMES));
  });
  errs.push(...validateCapabilities(spec));
  errs.push(...validateHostPaths(spec));
  errs.push(...validateHostPorts(spec));
  errs.push(...validateSysctls(spec.allowedUnsafeSysctls, 'spec.allowedUnsafeSysctls'));
  errs.push(...validateSysctls(spec.forbiddenSysctls, 'spec.forbiddenSysctls'));
  errs.push(...validateSysctlOverlap(spec));
  errs.push(...validateRuntimeClass(spec));
  asArray(spec.allowedFlexVolumes).forEach((v, i) => {
    const d = asObject(v)?.driver;
    if (typeof d !== 'string' || !d) errs.push(required(`spec.allowedFlexVolumes[${i}].driver`));
  });
  asArray(spec.allowedCSIDrivers).forEach((v, i) => {
    const n = asObject(v)?.name;
    if (typeof n !== 'string' || !n) errs.push(required(`spec.allowedCSIDrivers[${i}].name`));
  });
  if (spec.allowPrivilegeEscalation === false && spec.defaultAllowPrivilegeEscalation === true) {
    errs.push(invalidValue('spec.defaultAllowPrivilegeEscalation', true, 'Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true'));
  }
  return errs;
}

export function defaultPodSecurityPolicy(o: ApiObject): void {
  const spec = asObject(o.spec);
  if (!spec) return;
  setDefault(spec, 'allowPrivilegeEscalation', true);
  for (const p of asArray(spec.allowedHostPaths)) {
    const hp = asObject(p);
    // `/foo/` and `/foo` are the same prefix; only the root keeps its slash.
    if (hp && typeof hp.pathPrefix === 'string' && hp.pathPrefix.length > 1) hp.pathPrefix = hp.pathPrefix.replace(/\/+$/, '') || '/';
  }
}

export const podsecuritypolicies: ResourceType = {
  group: 'policy',
  versions: [
    // No replacement: pod security admission takes its place.
    { name: 'v1beta1', schema, deprecation: { since: '1.21', removedIn: '1.25' } },
  ],
  kind: 'PodSecurityPolicy',
  plural: 'podsecuritypolicies',
  singular: 'podsecuritypolicy',
  scope: 'Cluster',
  returnDeletedObject: true,
  shortNames: ['psp'],
  columns: [
    { name: 'Priv', type: 'string', description: 'Whether privileged pods are allowed', cell: (o) => String(at(o, 'spec.privileged') === true) },
    { name: 'Caps', type: 'string', description: 'Allowed capabilities', cell: (o) => joinList(at(o, 'spec.allowedCapabilities'), '') },
    { name: 'SELinux', type: 'string', description: 'SELinux strategy', cell: (o) => at(o, 'spec.seLinux.rule') ?? '' },
    { name: 'RunAsUser', type: 'string', description: 'User strategy', cell: (o) => at(o, 'spec.runAsUser.rule') ?? '' },
    { name: 'FsGroup', type: 'string', description: 'FSGroup strategy', cell: (o) => at(o, 'spec.fsGroup.rule') ?? '' },
    { name: 'SupGroup', type: 'string', description: 'Supplemental groups strategy', cell: (o) => at(o, 'spec.supplementalGroups.rule') ?? '' },
    { name: 'ReadOnlyRootFS', type: 'string', description: 'Whether the root filesystem must be read-only', cell: (o) => String(at(o, 'spec.readOnlyRootFilesystem') === true) },
    { name: 'Volumes', type: 'string', description: 'Allowed volume plugins', cell: (o) => joinList(at(o, 'spec.volumes'), '') },
  ],
  strategy: {
    defaults: defaultPodSecurityPolicy,
    validate: validatePodSecurityPolicy,
    validateUpdate: updateValidation(validatePodSecurityPolicy),
  },
};
