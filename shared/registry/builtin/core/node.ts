// Nodes: cluster-scoped records of the machines pods run on, owned by their node agents.

import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, at } from '../common/field-errors.js';
import { conditionList, typedCondition } from '../common/meta.js';
import { atomicList, bool, int32, int64, mergeList, obj, partial, quantityMap, str, strEnum, time } from '../common/schema.js';
import { nodeActions } from './proxy.js';

const taint = obj({ key: str, value: str, effect: strEnum('NoSchedule', 'PreferNoSchedule', 'NoExecute'), timeAdded: time }, ['key', 'effect']);

const schema = obj({
  spec: obj({
    podCIDR: str,
    podCIDRs: { ...atomicList(str), 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
    providerID: str,
    unschedulable: bool,
    taints: atomicList(taint),
    configSource: partial({}),
    externalID: str,
  }),
  // Node agents of different versions report different extras (features, runtimeHandlers...).
  status: partial({
    capacity: quantityMap,
    allocatable: quantityMap,
    phase: strEnum('Pending', 'Running', 'Terminated'),
    conditions: conditionList(typedCondition(['lastHeartbeatTime'])),
    addresses: mergeList(obj({ type: str, address: str }, ['type', 'address']), 'type'),
    daemonEndpoints: obj({ kubeletEndpoint: obj({ Port: int32 }, ['Port']) }),
    nodeInfo: partial({
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
    images: atomicList(obj({ names: atomicList(str), sizeBytes: int64 })),
    volumesInUse: atomicList(str),
    volumesAttached: atomicList(obj({ name: str, devicePath: str }, ['name', 'devicePath'])),
    config: partial({}),
  }),
});

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
