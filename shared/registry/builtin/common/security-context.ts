// Security settings of pods and containers: users and groups, Linux capabilities, SELinux,
// seccomp and AppArmor profiles, Windows options. A container's setting wins over the pod's.

import { atomicList, bool, described, int64, obj, str, strEnum } from './schema.js';
import type { JsonSchema } from '../../../api/types.js';

export const seLinuxOptions: JsonSchema = described(
  obj({ user: str, role: str, type: str, level: str }),
  {
    user: 'SELinux user part of the label.',
    role: 'SELinux role part of the label.',
    type: 'SELinux type part of the label.',
    level: 'SELinux level part of the label (the MCS/MLS range, such as s0:c123,c456).',
  },
  'SELinux label parts for a container. A part left empty is chosen by the container runtime.',
);

const windowsOptions = described(
  obj({ gmsaCredentialSpecName: str, gmsaCredentialSpec: str, runAsUserName: str, hostProcess: bool }),
  {
    gmsaCredentialSpecName: 'Name of the GMSA credential spec to use, for a group managed service account identity.',
    gmsaCredentialSpec: 'Contents of the GMSA credential spec named by gmsaCredentialSpecName, filled in by the admission webhook that resolves it.',
    runAsUserName: 'Windows user name the entrypoint of the container runs as.',
    hostProcess: 'Run as a Windows host process container. All containers of the pod must agree, and the pod must use the host network.',
  },
  'Settings that only apply to containers on Windows nodes.',
);

const profileType = 'Which profile: RuntimeDefault uses the container runtime default, Unconfined applies none, Localhost loads the profile named by localhostProfile from the node.';

const seccompProfile = described(
  obj({ type: strEnum('Unconfined', 'RuntimeDefault', 'Localhost'), localhostProfile: str }, ['type']),
  {
    type: profileType,
    localhostProfile: 'Path of the profile file, relative to the seccomp profile directory of the node agent. Required with type Localhost and not allowed otherwise.',
  },
  'The seccomp filter that limits which system calls a container may make.',
);

const appArmorProfile = described(
  obj({ type: strEnum('Unconfined', 'RuntimeDefault', 'Localhost'), localhostProfile: str }, ['type']),
  { type: profileType, localhostProfile: 'Name of a profile already loaded on the node. Required with type Localhost and not allowed otherwise.' },
  'The AppArmor profile that confines a container.',
);

const capabilities = described(
  obj({ add: atomicList(str), drop: atomicList(str) }),
  {
    add: 'Capabilities given on top of the default set of the runtime, named without the CAP_ prefix (NET_ADMIN, SYS_TIME).',
    drop: 'Capabilities taken away from the default set; ALL drops every one.',
  },
  'Linux capabilities to change from the default set of the container runtime.',
);

const userDocs = {
  runAsUser: 'User ID the entrypoint runs as. When not set anywhere, the user named by the image is used.',
  runAsGroup: 'Primary group ID of the entrypoint. When not set anywhere, the group of the image user is used.',
  runAsNonRoot: 'When true, the node agent refuses to start a container that would run as user 0 (it checks the effective user at start).',
};

export const securityContext: JsonSchema = described(
  obj({
    capabilities,
    privileged: bool,
    seLinuxOptions,
    windowsOptions,
    runAsUser: int64,
    runAsGroup: int64,
    runAsNonRoot: bool,
    readOnlyRootFilesystem: bool,
    allowPrivilegeEscalation: bool,
    procMount: strEnum('Default', 'Unmasked'),
    seccompProfile,
    appArmorProfile,
  }),
  {
    capabilities: 'Linux capabilities to add to or drop from the default set.',
    privileged: 'Run the container with almost every privilege of the host, devices included. Defaults to false.',
    seLinuxOptions: 'SELinux label of the container; replaces the one set for the pod.',
    windowsOptions: 'Windows settings of the container; replace the ones set for the pod.',
    runAsUser: `${userDocs.runAsUser} Replaces the pod-level value.`,
    runAsGroup: `${userDocs.runAsGroup} Replaces the pod-level value.`,
    runAsNonRoot: userDocs.runAsNonRoot,
    readOnlyRootFilesystem: 'Mount the root filesystem of the container read-only, so only volumes can be written. Defaults to false.',
    allowPrivilegeEscalation:
      'Whether a process may gain more privileges than its parent had (through setuid binaries or file capabilities). It is in effect true whenever the container is privileged or has CAP_SYS_ADMIN.',
    procMount: 'How /proc is mounted: Default keeps the masked and read-only paths of the runtime, Unmasked drops them. Without the ProcMountType feature gate the server stores Default.',
    seccompProfile: 'Seccomp profile of the container; replaces the one set for the pod.',
    appArmorProfile: 'AppArmor profile of the container; replaces the one set for the pod.',
  },
  'Security settings of one container. Where a setting is also given for the pod, the container value wins.',
);

export const podSecurityContext: JsonSchema = described(
  obj({
    seLinuxOptions,
    windowsOptions,
    runAsUser: int64,
    runAsGroup: int64,
    runAsNonRoot: bool,
    supplementalGroups: atomicList(int64),
    supplementalGroupsPolicy: strEnum('Merge', 'Strict'),
    fsGroup: int64,
    fsGroupChangePolicy: strEnum('OnRootMismatch', 'Always'),
    sysctls: atomicList(described(obj({ name: str, value: str }, ['name', 'value']), { name: 'Name of the kernel parameter, such as net.ipv4.ip_local_port_range.', value: 'Value to set.' })),
    seccompProfile,
    appArmorProfile,
  }),
  {
    seLinuxOptions: 'SELinux label of every container that sets none of its own.',
    windowsOptions: 'Windows settings of every container that sets none of its own.',
    runAsUser: `${userDocs.runAsUser} Applies to every container that sets none of its own.`,
    runAsGroup: `${userDocs.runAsGroup} Applies to every container that sets none of its own.`,
    runAsNonRoot: `${userDocs.runAsNonRoot} Applies to every container that sets none of its own.`,
    supplementalGroups: 'Group IDs the first process of every container belongs to, besides its primary group.',
    supplementalGroupsPolicy: 'Merge (the default) also adds the groups the image lists for the user in /etc/group; Strict uses only supplementalGroups, fsGroup and the primary group.',
    fsGroup:
      'Group ID that owns the files of volumes able to change ownership (emptyDir, secret, configMap, most block and CSI volumes): they are made group-owned and group-writable, and every container gets the group as a supplementary group.',
    fsGroupChangePolicy: 'When the ownership of a volume is changed to fsGroup: Always on every mount, or OnRootMismatch only when the root of the volume does not already match.',
    sysctls: 'Namespaced kernel parameters set for the pod. A pod asking for one the node does not allow fails to start there.',
    seccompProfile: 'Seccomp profile of every container that sets none of its own.',
    appArmorProfile: 'AppArmor profile of every container that sets none of its own.',
  },
  'Security settings of a pod: the defaults of its containers and the settings that only exist per pod (groups, fsGroup, sysctls).',
);
