// PersistentVolumes: cluster-scoped storage, bound one-to-one to claims.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, joinList } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { nodeSelector } from '../common/pod-spec.js';
import { atomicList, obj, partial, quantityMap, str, strEnum, time } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { required } from '../../../api/field-errors.js';

export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
const SHORT_MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

/** The volume source (hostPath, nfs, csi, vendor plugins...) is kept as sent: partial. */
const schema = obj({
  spec: partial({
    capacity: quantityMap,
    accessModes: atomicList(strEnum(...ACCESS_MODES)),
    claimRef: objectReference,
    persistentVolumeReclaimPolicy: strEnum('Retain', 'Recycle', 'Delete'),
    storageClassName: str,
    mountOptions: atomicList(str),
    volumeMode: strEnum('Block', 'Filesystem'),
    nodeAffinity: obj({ required: nodeSelector }),
    volumeAttributesClassName: str,
  }),
  status: obj({ phase: strEnum('Pending', 'Available', 'Bound', 'Released', 'Failed'), message: str, reason: str, lastPhaseTransitionTime: time }),
});

export function accessModesCell(modes: unknown): string {
  return joinList(
    asArray(modes).map((m) => SHORT_MODES[String(m)] ?? String(m)),
    '',
  );
}

function validatePV(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs: FieldError[] = [];
  if (!asArray(spec.accessModes).length) errs.push(required('spec.accessModes'));
  if (at(spec, 'capacity.storage') === undefined) errs.push(required('spec.capacity.storage'));
  return errs;
}

export const persistentvolumes: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  singular: 'persistentvolume',
  scope: 'Cluster',
  returnDeletedObject: true,
  shortNames: ['pv'],
  subresources: { status: true },
  columns: [
    { name: 'Capacity', type: 'string', cell: (o) => String(at(o, 'spec.capacity.storage') ?? '') },
    { name: 'Access Modes', type: 'string', cell: (o) => accessModesCell(at(o, 'spec.accessModes')) },
    { name: 'Reclaim Policy', type: 'string', cell: (o) => String(at(o, 'spec.persistentVolumeReclaimPolicy') ?? '') },
    { name: 'Status', type: 'string', cell: (o) => String(at(o, 'status.phase') ?? '') },
    {
      name: 'Claim',
      type: 'string',
      cell: (o) => {
        const ref = asObject(at(o, 'spec.claimRef'));
        return ref ? `${String(ref.namespace ?? '')}/${String(ref.name ?? '')}` : '';
      },
    },
    { name: 'StorageClass', type: 'string', cell: (o) => String(at(o, 'spec.storageClassName') ?? '') },
    { name: 'Reason', type: 'string', cell: (o) => String(at(o, 'status.reason') ?? '') },
    ageColumn,
    { name: 'VolumeMode', type: 'string', priority: 1, cell: (o) => String(at(o, 'spec.volumeMode') ?? '') },
  ],
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
      setDefault(spec, 'volumeMode', 'Filesystem');
    },
    prepareForCreate(o) {
      o.status = { phase: 'Pending' };
    },
    validate: validatePV,
    validateUpdate: updateValidation(validatePV),
  },
};
