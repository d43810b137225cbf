// CSIStorageCapacities: capacity a CSI driver reports per topology segment and class.

import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { labelSelector } from '../common/meta.js';
import { obj, quantity, str } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';

const schema = obj({ nodeTopology: labelSelector, storageClassName: str, capacity: quantity, maximumVolumeSize: quantity }, ['storageClassName']);

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
