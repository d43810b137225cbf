// CSIStorageCapacities: capacity a CSI driver reports per topology segment and class.

import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { labelSelector } from '../common/meta.js';
import { described, obj, quantity, str } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';

const schema = described(
  obj({ nodeTopology: labelSelector, storageClassName: str, capacity: quantity, maximumVolumeSize: quantity }, ['storageClassName']),
  {
    nodeTopology: 'Labels of the nodes that can reach this storage. Unset: no node can. Cannot be changed.',
    storageClassName: 'The StorageClass the capacity is for. Cannot be changed.',
    capacity: 'Storage left for new volumes of the class in this topology segment. Unset: unknown, not zero.',
    maximumVolumeSize: 'Largest single volume that can be made there now; a volume may not fit even below capacity (space is fragmented). Unset: only capacity applies.',
  },
  'Free storage that a CSI driver reports for one storage class in one part of the cluster (the nodes nodeTopology selects). The scheduler reads it to place pods whose volumes are provisioned late (WaitForFirstConsumer).',
);

export const csistoragecapacities: ResourceType = {
  group: 'storage.platform.io',
  versions: [
    { name: 'v1', schema },
    { name: 'v1beta1', schema, deprecation: { since: '1.24', removedIn: '1.27', replacement: 'v1' } },
  ],
  kind: 'CSIStorageCapacity',
  plural: 'csistoragecapacities',
  singular: 'csistoragecapacity',
  scope: 'Namespaced',
  generation: false,
  columns: [
    { name: 'StorageClassName', type: 'string', cell: (o) => o.storageClassName ?? '' },
    { name: 'Capacity', type: 'string', cell: (o) => (o.capacity === undefined ? '' : String(o.capacity)) },
    ageColumn,
  ],
  strategy: { validateUpdate: updateValidation(undefined, (o, old) => immutableFields(o, old, ['storageClassName', 'nodeTopology'])) },
};
