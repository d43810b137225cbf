// CSIDrivers: how the cluster talks to an installed CSI volume driver.

import type { ResourceType } from '../../types.js';
import { ageColumn, joinList } from '../common/columns.js';
import { asArray, at, ensureObject, setDefault } from '../common/field-errors.js';
import { atomicList, bool, int64, obj, setList, str, strEnum } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';

const schema = obj(
  {
    spec: obj({
      attachRequired: bool,
      podInfoOnMount: bool,
      volumeLifecycleModes: setList(strEnum('Persistent', 'Ephemeral')),
      storageCapacity: bool,
      fsGroupPolicy: strEnum('ReadWriteOnceWithFSType', 'File', 'None'),
      tokenRequests: atomicList(obj({ audience: str, expirationSeconds: int64 }, ['audience'])),
      requiresRepublish: bool,
      seLinuxMount: bool,
      nodeAllocatableUpdatePeriodSeconds: int64,
    }),
  },
  ['spec'],
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
