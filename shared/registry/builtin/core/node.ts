// Nodes: cluster-scoped records of the machines pods run on, owned by their node agents.

import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, at } from '../common/field-errors.js';
import { conditionList, typedCondition } from '../common/meta.js';
import { atomicList, bool, described, int32, int64, mergeList, obj, partial, quantityMap, str, strEnum, time } from '../common/schema.js';
import { nodeActions } from './proxy.js';

const taint = described(
  obj({ key: str, value: str, effect: strEnum('NoSchedule', 'PreferNoSchedule', 'NoExecute'), timeAdded: time }, ['key', 'effect']),
  {
    key: 'Key of the taint, a qualified name such as `node.platform.io/not-ready`. Pods tolerate a taint by its key.',
    value: 'Optional value of the taint, which a toleration with operator Equal must match.',
    effect:
      'What the taint does to pods that do not tolerate it: NoSchedule keeps new ones off the node, PreferNoSchedule makes the scheduler avoid the node when it can, NoExecute also evicts running ones.',
    timeAdded: 'When a NoExecute taint was put on the node; the start of the tolerationSeconds of pods that tolerate it for a while. Only set for NoExecute taints.',
  },
  'A mark on a node that keeps away pods which do not tolerate it.',
);

const nodeSpec = described(
  obj({
    podCIDR: str,
    podCIDRs: { ...atomicList(str), 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
    providerID: str,
    unschedulable: bool,
    taints: atomicList(taint),
    configSource: partial({}),
    externalID: str,
  }),
  {
    podCIDR: 'IP range, in CIDR notation, from which pods on this node get their addresses. The same as the first entry of podCIDRs.',
    podCIDRs: 'IP ranges, in CIDR notation, for the pods of the node: at most one per IP family (IPv4, IPv6). Once set they are not changed.',
    providerID: 'Identifier of the machine at its infrastructure provider, as `<provider>://<id>`.',
    unschedulable: 'When true no new pods are scheduled to the node (`kubectl cordon`); pods already there keep running. Selectable as the field selector spec.unschedulable. Defaults to false.',
    taints: 'Taints of the node. The TaintNodesByCondition admission plugin adds the not-ready NoSchedule taint to a node when it is created.',
    configSource: 'Deprecated: where the node agent was to load its configuration from. Node agents no longer read it, and a node agent may not set it to a new value.',
    externalID: 'Deprecated identifier of the node at its infrastructure provider; not used. See providerID.',
  },
  'How the node is set up for scheduling: pod address ranges, taints, and whether it takes new pods.',
);

const nodeInfo = described(
  partial({
    machineID: str,
    systemUUID: str,
    bootID: str,
    kernelVersion: str,
    osImage: str,
    containerRuntimeVersion: str,
    kubeletVersion: str,
    kubeProxyVersion: str,
    operatingSystem: str,
    architecture: str,
  }),
  {
    machineID: 'Machine identifier of the host, unique per installation of its operating system (/etc/machine-id).',
    systemUUID: 'Hardware or firmware identifier of the machine (the SMBIOS system UUID where there is one).',
    bootID: 'Identifier of the current boot of the machine; it changes when the machine restarts.',
    kernelVersion: 'Version of the kernel, as `uname -r` prints it.',
    osImage: 'Name and version of the operating system, such as `Debian GNU/Linux 12 (bookworm)`.',
    containerRuntimeVersion: 'Container runtime and its version, as `<runtime>://<version>`.',
    kubeletVersion: 'Version of the node agent. `kubectl get nodes` shows it in the VERSION column.',
    kubeProxyVersion: 'Version of the service proxy the node agent reports; may be empty or stale.',
    operatingSystem: 'Operating system family, such as linux or windows.',
    architecture: 'CPU architecture, such as amd64 or arm64.',
  },
  'Versions and identifiers of the machine, reported by its node agent.',
);

const nodeStatus = described(
  // Node agents of different versions report different extras (features, runtimeHandlers...).
  partial({
    capacity: quantityMap,
    allocatable: quantityMap,
    phase: strEnum('Pending', 'Running', 'Terminated'),
    conditions: conditionList(typedCondition(['lastHeartbeatTime'])),
    addresses: mergeList(
      described(
        obj({ type: str, address: str }, ['type', 'address']),
        {
          type: 'Kind of address: Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.',
          address: 'The address itself: a host name or an IP address.',
        },
        'One way to reach the node.',
      ),
      'type',
    ),
    daemonEndpoints: described(
      obj({ kubeletEndpoint: described(obj({ Port: int32 }, ['Port']), { Port: 'TCP port number.' }, 'A port of a daemon on the node.') }),
      { kubeletEndpoint: 'Port on which the node agent serves its API (logs, exec, metrics); the API server proxies to it.' },
      'Ports of the daemons running on the node.',
    ),
    nodeInfo,
    images: atomicList(
      described(
        obj({ names: atomicList(str), sizeBytes: int64 }),
        {
          names: 'Names the image is known by on the node: references by tag and by digest.',
          sizeBytes: 'Size of the image, in bytes.',
        },
        'A container image present on the node.',
      ),
    ),
    volumesInUse: atomicList(str),
    volumesAttached: atomicList(
      described(
        obj({ name: str, devicePath: str }, ['name', 'devicePath']),
        {
          name: 'Unique name of the attached volume.',
          devicePath: 'Path on the node under which the volume is available as a device.',
        },
        'A volume attached to the node.',
      ),
    ),
    config: partial({}),
  }),
  {
    capacity: 'Total resources of the node by name: cpu in cores, memory and ephemeral-storage in bytes, pods as a count, and extended resources.',
    allocatable: 'The part of capacity that pods may use, after what the system and the node agent keep for themselves. The scheduler fits pod requests into it.',
    phase: 'Deprecated lifecycle phase of the node: Pending, Running or Terminated. Not set by current node agents; read the conditions instead.',
    conditions: 'Conditions of the node, such as Ready, MemoryPressure, DiskPressure, PIDPressure and NetworkUnavailable; the node agent refreshes lastHeartbeatTime of each.',
    addresses: 'Addresses of the node, one per type, merged by type in strategic merge patches.',
    daemonEndpoints: 'Ports of the daemons on the node.',
    nodeInfo: 'Versions and identifiers of the machine and its software.',
    images: 'Container images the node holds.',
    volumesInUse: 'Unique names of the volumes mounted on the node.',
    volumesAttached: 'Volumes attached to the node by the attach/detach controller.',
    config: 'Deprecated: what became of the configuration the node agent was told to use in spec.configSource.',
  },
  'What the node agent last reported about the machine: resources, conditions, addresses and software.',
);

const schema = described(
  obj({ spec: nodeSpec, status: nodeStatus }),
  { spec: 'How the node is set up for scheduling.', status: 'What the node agent last reported about the node.' },
  'A machine of the cluster that runs pods. Its node agent registers it and keeps its status up to date; the scheduler places pods on it. Nodes are cluster-scoped.',
);

function readyStatus(o: ApiObject): string {
  const conds = asArray(at(o, 'status.conditions')).map((c) => asObject(c) ?? {});
  const ready = conds.find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown') : 'Unknown'];
  if (at(o, 'spec.unschedulable') === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

const ROLE_PREFIX = 'node-role.platform.io/';

function rolesCell(o: ApiObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length) roles.add(k.slice(ROLE_PREFIX.length));
    else if (k === 'platform.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function address(o: ApiObject, type: string): string {
  const a = asArray(at(o, 'status.addresses'))
    .map((x) => asObject(x) ?? {})
    .find((x) => x.type === type);
  return a ? String(a.address) : '<none>';
}

export const nodes: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'Node',
  plural: 'nodes',
  singular: 'node',
  scope: 'Cluster',
  shortNames: ['no'],
  subresources: {
    status: true,
    others: [{ name: 'proxy', kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] }],
  },
  rest: { actions: nodeActions },
  strategy: { keepStatusOnCreate: true },
  columns: [
    { name: 'Status', type: 'string', description: 'The status of the node', cell: readyStatus },
    { name: 'Roles', type: 'string', description: 'The roles of the node', cell: rolesCell },
    ageColumn,
    { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.', cell: (o) => (at(o, 'status.nodeInfo.kubeletVersion') as string | undefined) ?? '' },
    { name: 'Internal-IP', type: 'string', priority: 1, description: 'List of addresses reachable to the node.', cell: (o) => address(o, 'InternalIP') },
    { name: 'External-IP', type: 'string', priority: 1, description: 'List of addresses reachable to the node.', cell: (o) => address(o, 'ExternalIP') },
    { name: 'OS-Image', type: 'string', priority: 1, description: 'OS Image reported by the node.', cell: (o) => (at(o, 'status.nodeInfo.osImage') as string | undefined) || '<unknown>' },
    {
      name: 'Kernel-Version',
      type: 'string',
      priority: 1,
      description: 'Kernel Version reported by the node.',
      cell: (o) => (at(o, 'status.nodeInfo.kernelVersion') as string | undefined) || '<unknown>',
    },
    {
      name: 'Container-Runtime',
      type: 'string',
      priority: 1,
      description: 'Container Runtime Version reported by the node.',
      cell: (o) => (at(o, 'status.nodeInfo.containerRuntimeVersion') as string | undefined) || '<unknown>',
    },
  ],
  fieldSelectors: {
    'spec.unschedulable': (o) => String(at(o, 'spec.unschedulable') === true),
  },
};
