// Field descriptions of PodSecurityPolicy (policy/v1beta1), kept apart from its schema and
// validation (pod-security-policy.ts) so that neither file grows too long. What the texts say the
// server does is the PodSecurityPolicy admission plugin's (services/admission/plugins/pod-security-policy).

import type { FieldDocs } from '../../schema-docs.js';

export const ID_RANGE_ABOUT = 'A range of user or group ids, both ends included; one id is a range whose ends are equal.';

export const idRangeDocs: FieldDocs = {
  min: 'Lowest id of the range, 0 to 2147483647.',
  max: 'Highest id of the range, 0 to 2147483647; not below min.',
};

export const hostPortRangeDocs: FieldDocs = {
  min: 'Lowest port of the range, 0 to 65535.',
  max: 'Highest port of the range, 0 to 65535; not below min.',
};

const ranges = (what: string): string => `Allowed ${what}; required for MustRunAs and MayRunAs. With MustRunAs, a pod naming none gets the min of the first range.`;

export const runAsUserDocs: FieldDocs = {
  rule: 'MustRunAs: every container runs as a uid within ranges; MustRunAsNonRoot: containers must set runAsNonRoot or a non-zero runAsUser; RunAsAny: any uid.',
  ranges: 'Allowed uids; required for MustRunAs. A container naming no uid gets the min of the first range.',
};

export const groupDocs = (what: string): FieldDocs => ({
  rule: `MustRunAs: ${what} must lie within ranges, and a pod naming none gets one; MayRunAs: ${what}, when set, must lie within ranges; RunAsAny: anything.`,
  ranges: ranges(what),
});

export const seLinuxDocs: FieldDocs = {
  rule: "MustRunAs: every container's SELinux label must equal seLinuxOptions (a pod naming none gets them); RunAsAny: any label.",
  seLinuxOptions: 'The SELinux label pods must use; required for MustRunAs.',
};

export const hostPathDocs: FieldDocs = {
  pathPrefix: 'Host directory a hostPath volume may be at or under, compared by whole path elements (`/foo` allows `/foo/bar`, not `/food`). No `*` and no `..`; trailing slashes are dropped.',
  readOnly: 'When true, every mount of a volume under this prefix must be read-only.',
};

export const runtimeClassDocs: FieldDocs = {
  allowedRuntimeClassNames: 'RuntimeClasses pods may name. `*` alone allows any; an empty list allows only pods naming none.',
  defaultRuntimeClassName: 'RuntimeClass given to a pod that names none; must be allowed. Unset: the pod is left as it is.',
};

export const pspSpecDocs: FieldDocs = {
  privileged: 'Whether containers may run privileged. Defaults to false.',
  defaultAddCapabilities: 'Capabilities added to every container unless it drops them explicitly; they count as allowed. May not appear in requiredDropCapabilities.',
  requiredDropCapabilities: 'Capabilities dropped from every container; no container may add them. Must be empty when allowedCapabilities is `*`.',
  allowedCapabilities: 'Capabilities containers may add beyond the defaults; `*` allows any. May not appear in requiredDropCapabilities.',
  volumes: 'Volume types pods may use, by the name of the field in the volume (configMap, hostPath, csi, ...); `*` allows every type. Empty: no volumes.',
  hostNetwork: 'Whether pods may use the network namespace of the node. Defaults to false.',
  hostPorts: 'Ranges of host ports containers may bind. Empty: none.',
  hostPID: 'Whether pods may share the process id namespace of the node. Defaults to false.',
  hostIPC: 'Whether pods may share the IPC namespace of the node. Defaults to false.',
  seLinux: 'Which SELinux labels pods may use. Required.',
  runAsUser: 'Which uids containers may run as. Required.',
  runAsGroup: 'Which primary gids containers may run as. Unset: any, and nothing is defaulted.',
  supplementalGroups: 'Which supplemental groups pods may add. Required.',
  fsGroup: 'Which fsGroup pods may give their volumes. Required.',
  readOnlyRootFilesystem: 'When true, every container must run with a read-only root file system; a container that says nothing gets one.',
  defaultAllowPrivilegeEscalation: 'Value given to allowPrivilegeEscalation of a container that sets none. Cannot be true when allowPrivilegeEscalation is false.',
  allowPrivilegeEscalation: 'Whether a container may set allowPrivilegeEscalation to true. Defaults to true; when false, containers that set nothing get false.',
  allowedHostPaths: 'Host paths hostPath volumes may use. Empty: any host path.',
  allowedFlexVolumes: 'Flex volume drivers pods may use, when volumes allows flexVolume. Empty: any driver.',
  allowedCSIDrivers: 'CSI drivers pods may use in inline (ephemeral) csi volumes. Empty: any driver.',
  allowedUnsafeSysctls: 'Sysctls beyond the safe set that pods may set: names, or prefixes ending in `*`; `*` alone allows all. Default: none. May not overlap forbiddenSysctls.',
  forbiddenSysctls: 'Sysctls pods may not set, safe ones included: names, or prefixes ending in `*`; `*` alone forbids all.',
  allowedProcMountTypes: 'Proc mount types containers may ask for: Default and Unmasked. Empty: only Default.',
  runtimeClass: 'Which RuntimeClasses pods may name. Unset: any.',
};

export const PSP_SPEC_ABOUT = 'What pods admitted under the policy may ask for, and what they get when they say nothing.';

export const PSP_ABOUT =
  "A pod security policy (deprecated; removed in 1.25): security rules a pod must meet to be created. With the PodSecurityPolicy admission plugin on, a pod is admitted only under a policy that its creator or its service account may `use`; the policy may fill in defaults, and its name is recorded in the pod's platform.io/psp annotation. Cluster-scoped.";
