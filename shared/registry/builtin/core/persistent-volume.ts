// PersistentVolumes: cluster-scoped storage, bound one-to-one to claims.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, joinList } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { nodeSelector } from '../common/pod-spec.js';
import { atomicList, described, obj, partial, quantityMap, str, strEnum, time } from '../common/schema.js';
import { PERSISTENT_VOLUME_SOURCE_DOCS, persistentVolumeSources } from './persistent-volume-sources.js';
import { updateValidation } from '../common/strategy.js';
import { required } from '../../../api/field-errors.js';

export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
const SHORT_MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

const volumeNodeAffinity = described(
  obj({ required: nodeSelector }),
  { required: 'Nodes the volume can be used from: a node must match one of the terms.' },
  'The nodes from which a volume can be reached.',
);

/** The volume source (hostPath, nfs, csi, vendor plugins...) is kept as sent: partial. */
const pvSpec = described(
  partial({
    capacity: quantityMap,
    accessModes: atomicList(strEnum(...ACCESS_MODES)),
    claimRef: objectReference,
    persistentVolumeReclaimPolicy: strEnum('Retain', 'Recycle', 'Delete'),
    storageClassName: str,
    mountOptions: atomicList(str),
    volumeMode: strEnum('Block', 'Filesystem'),
    nodeAffinity: volumeNodeAffinity,
    volumeAttributesClassName: str,
    ...persistentVolumeSources,
  }),
  {
    capacity: 'Size of the volume, as storage (such as 10Gi). Required; a claim binds only to a volume at least as large as it asks for.',
    accessModes:
      'How the volume can be mounted: ReadWriteOnce (read-write by one node), ReadOnlyMany, ReadWriteMany, or ReadWriteOncePod (read-write by one pod). At least one; a claim binds only to a volume that offers every mode it asks for.',
    claimRef: 'The claim the volume is bound to, by namespace and name (and uid once bound). Set before binding, it reserves the volume for that claim.',
    persistentVolumeReclaimPolicy:
      'What happens to the volume when its claim is deleted: Retain keeps it and its data for an administrator, Delete removes it and its storage, Recycle (deprecated) wipes it for a new claim. Defaults to Retain; volumes made by a provisioner take the reclaimPolicy of their class.',
    storageClassName: 'StorageClass the volume belongs to; it binds only to claims that ask for that class. Empty means no class, for claims that ask for none.',
    mountOptions: 'Options for mounting the volume on a node, such as `hard` or `nfsvers=4.1`. Not checked here; a wrong option makes the mount fail.',
    volumeMode: 'Filesystem (the default) to mount a filesystem, Block to hand the volume to pods as a raw device. A claim binds only to a volume of its own mode.',
    nodeAffinity: 'Nodes the volume can be used from; pods that use it are scheduled to those nodes only. Needed for local volumes.',
    volumeAttributesClassName: 'VolumeAttributesClass of the volume, for settings that may change after creation. Empty means none.',
    ...PERSISTENT_VOLUME_SOURCE_DOCS,
  },
  'The storage a volume stands for and how claims may bind to it. Exactly one source (csi, nfs, local, ...) is given.',
);

const pvStatus = described(
  obj({ phase: strEnum('Pending', 'Available', 'Bound', 'Released', 'Failed'), message: str, reason: str, lastPhaseTransitionTime: time }),
  {
    phase:
      'Where the volume is in its life: Pending (not yet usable; set on create), Available (free to bind), Bound, Released (its claim is gone, the volume not yet reclaimed) or Failed (reclaiming failed).',
    message: 'Readable details of the phase, such as why reclaiming failed.',
    reason: 'Short machine-readable reason for the phase, in CamelCase.',
    lastPhaseTransitionTime: 'When phase last changed.',
  },
  'Where a volume is in its life.',
);

const schema = described(
  obj({ spec: pvSpec, status: pvStatus }),
  { spec: 'The storage the volume stands for and how claims may bind to it.', status: 'Where the volume is in its life, as the volume controllers last saw it.' },
  'A piece of storage in the cluster, made by an administrator or by a provisioner of a StorageClass, that one PersistentVolumeClaim at a time binds to. Cluster-scoped; the pv-protection finalizer keeps it while a claim is bound to it.',
);

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
