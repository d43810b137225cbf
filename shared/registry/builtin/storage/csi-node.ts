// CSINodes: which CSI drivers are installed on a node, and their topology keys.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, at, duplicates } from '../common/field-errors.js';
import { atomicList, int32, mergeList, obj, str } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';

const schema = obj(
  {
    spec: obj(
      {
        drivers: mergeList(obj({ name: str, nodeID: str, topologyKeys: atomicList(str), allocatable: obj({ count: int32 }) }, ['name', 'nodeID']), 'name'),
      },
      ['drivers'],
    ),
  },
  ['spec'],
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
