// CSINodes: which CSI drivers are installed on a node, and their topology keys.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, at, duplicates } from '../common/field-errors.js';
import { atomicList, described, int32, mergeList, obj, str } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';

const allocatable = described(
  obj({ count: int32 }),
  { count: 'Most volumes of the driver this node can have attached at once. Unset: no limit is known.' },
  'How many volumes of the driver the node can take.',
);

const driver = described(
  obj({ name: str, nodeID: str, topologyKeys: atomicList(str), allocatable }, ['name', 'nodeID']),
  {
    name: 'Name of the driver, as in its CSIDriver object. Each driver appears once in the list.',
    nodeID: 'The identity of this node as the driver knows it, which controllers pass to the driver to attach a volume here.',
    topologyKeys: 'Node label keys the driver uses for topology (for example a zone key). The kubelet sets those labels on the node.',
    allocatable: 'Limits of the driver on this node. Unset: no limit.',
  },
  'A CSI driver registered on the node.',
);

const schema = described(
  obj({ spec: described(obj({ drivers: mergeList(driver, 'name') }, ['drivers']), { drivers: 'The CSI drivers registered on the node, one entry each.' }, 'The CSI drivers on the node.') }, ['spec']),
  { spec: 'The CSI drivers on the node.' },
  'The CSI drivers installed on one node, named like the node. The kubelet writes it when a driver registers; there is no need to create it by hand.',
);

function validate(o: ApiObject): FieldError[] {
  return duplicates(
    'spec.drivers',
    asArray(at(o, 'spec.drivers')).map((d) => at(d, 'name')),
  );
}

export const csinodes: ResourceType = {
  group: 'storage.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'CSINode',
  plural: 'csinodes',
  returnDeletedObject: true,
  singular: 'csinode',
  scope: 'Cluster',
  columns: [{ name: 'Drivers', type: 'integer', description: 'Number of CSI drivers on the node', cell: (o) => asArray(at(o, 'spec.drivers')).length }, ageColumn],
  strategy: { validate, validateUpdate: updateValidation(validate) },
};
