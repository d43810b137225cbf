// CSIDrivers: how the cluster talks to an installed CSI volume driver.

import type { ResourceType } from '../../types.js';
import { ageColumn, joinList } from '../common/columns.js';
import { asArray, at, ensureObject, setDefault } from '../common/field-errors.js';
import { atomicList, bool, described, int64, obj, setList, str, strEnum } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';

const tokenRequest = described(
  obj({ audience: str, expirationSeconds: int64 }, ['audience']),
  {
    audience: 'Audience the token is issued for; empty means the audiences of the API server.',
    expirationSeconds: 'Lifetime of the token in seconds; unset means the default lifetime of service account tokens.',
  },
  'A service account token the kubelet asks for on behalf of the pod and hands to the driver when it mounts a volume.',
);

const csiDriverSpec = described(
  obj({
    attachRequired: bool,
    podInfoOnMount: bool,
    volumeLifecycleModes: setList(strEnum('Persistent', 'Ephemeral')),
    storageCapacity: bool,
    fsGroupPolicy: strEnum('ReadWriteOnceWithFSType', 'File', 'None'),
    tokenRequests: atomicList(tokenRequest),
    requiresRepublish: bool,
    seLinuxMount: bool,
    nodeAllocatableUpdatePeriodSeconds: int64,
  }),
  {
    attachRequired:
      'Whether volumes of the driver must be attached to a node (a VolumeAttachment, handled by the attach/detach controller) before they are mounted. Defaults to true; cannot be changed.',
    podInfoOnMount: 'When true, the kubelet passes the name, namespace, uid and service account of the pod to the driver when it mounts a volume. Defaults to false.',
    volumeLifecycleModes:
      'Kinds of volume the driver serves: Persistent (through persistent volumes) and Ephemeral (inline in a pod spec, living with the pod). Defaults to [Persistent]; cannot be changed.',
    storageCapacity: 'When true, the driver publishes CSIStorageCapacity objects and the scheduler only picks nodes with room for a new volume of a WaitForFirstConsumer class. Defaults to false.',
    fsGroupPolicy:
      "Whether the kubelet changes ownership and permissions of a volume to the pod's fsGroup: ReadWriteOnceWithFSType (the default) only for read-write-once volumes with a file system type, File always, None never. Cannot be changed.",
    tokenRequests: 'Service account tokens the kubelet passes to the driver with each mount, one per audience.',
    requiresRepublish: 'When true, the kubelet calls the driver again periodically for mounted volumes, so that it can refresh their contents (such as tokens from tokenRequests). Defaults to false.',
    seLinuxMount: 'When true, the driver can mount a volume with an SELinux context option, so that the kubelet need not relabel its files. Defaults to false.',
    nodeAllocatableUpdatePeriodSeconds:
      'How often, in seconds, the kubelet refreshes the number of volumes of this driver a node can take (CSINode allocatable.count). Unset: only when the driver registers.',
  },
  'How the cluster deals with volumes of the driver.',
);

const schema = described(
  obj({ spec: csiDriverSpec }, ['spec']),
  { spec: 'How the cluster deals with volumes of the driver.' },
  'A CSI volume driver installed in the cluster, named like the driver itself (for example `csi.example.com`), telling the kubelet and controllers how to treat its volumes.',
);

export const csidrivers: ResourceType = {
  group: 'storage.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'CSIDriver',
  plural: 'csidrivers',
  returnDeletedObject: true,
  singular: 'csidriver',
  scope: 'Cluster',
  columns: [
    { name: 'AttachRequired', type: 'boolean', cell: (o) => at(o, 'spec.attachRequired') !== false },
    { name: 'PodInfoOnMount', type: 'boolean', cell: (o) => at(o, 'spec.podInfoOnMount') === true },
    { name: 'StorageCapacity', type: 'boolean', cell: (o) => at(o, 'spec.storageCapacity') === true },
    {
      name: 'TokenRequests',
      type: 'string',
      cell: (o) =>
        joinList(
          asArray(at(o, 'spec.tokenRequests')).map((t) => at(t, 'audience')),
          '<unset>',
        ),
    },
    { name: 'RequiresRepublish', type: 'boolean', cell: (o) => at(o, 'spec.requiresRepublish') === true },
    { name: 'Modes', type: 'string', cell: (o) => joinList(at(o, 'spec.volumeLifecycleModes'), '<none>') },
    ageColumn,
  ],
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      setDefault(spec, 'attachRequired', true);
      setDefault(spec, 'podInfoOnMount', false);
      setDefault(spec, 'storageCapacity', false);
      setDefault(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
      setDefault(spec, 'requiresRepublish', false);
      setDefault(spec, 'volumeLifecycleModes', ['Persistent']);
    },
    validateUpdate: updateValidation(undefined, (o, old) => immutableFields(o, old, ['spec.attachRequired', 'spec.fsGroupPolicy', 'spec.volumeLifecycleModes'])),
  },
};
