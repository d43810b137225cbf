// PersistentVolumeClaims: a namespaced request for storage, bound to a PersistentVolume.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, typedCondition } from '../common/meta.js';
import { persistentVolumeClaimSpec } from '../common/pod-spec.js';
import { atomicList, described, obj, quantityMap, str, strEnum, strMap } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { ACCESS_MODES, accessModesCell } from './persistent-volume.js';
import { forbidden, required } from '../../../api/field-errors.js';
import { cloneJson, jsonEqual } from '../../../patch/json-value.js';

const claimStatus = described(
  obj({
    phase: strEnum('Pending', 'Bound', 'Lost'),
    accessModes: atomicList(strEnum(...ACCESS_MODES)),
    capacity: quantityMap,
    conditions: conditionList(typedCondition(['lastProbeTime'])),
    allocatedResources: quantityMap,
    allocatedResourceStatuses: strMap,
    currentVolumeAttributesClassName: str,
    modifyVolumeStatus: described(
      obj({ targetVolumeAttributesClassName: str, status: str }, ['status']),
      {
        targetVolumeAttributesClassName: 'VolumeAttributesClass the volume is being changed to.',
        status: 'State of the change: Pending (waiting to start, for example because the class does not exist yet), InProgress, or Infeasible (the driver refused it).',
      },
      'A change of the volume to another VolumeAttributesClass that is under way.',
    ),
  }),
  {
    phase: 'Pending (not bound yet; set on create), Bound (bound to a volume), or Lost (the bound volume has gone).',
    accessModes: 'Access modes of the bound volume, which may offer more than the claim asked for.',
    capacity: 'Size of the bound volume, as storage.',
    conditions: 'Conditions of the claim, such as Resizing and FileSystemResizePending while the volume is being expanded.',
    allocatedResources: 'Storage set aside for the claim by an expansion; while a resize is under way it may be more than capacity.',
    allocatedResourceStatuses:
      'State of an expansion by resource name (storage): ControllerResizeInProgress, ControllerResizeInfeasible, NodeResizePending, NodeResizeInProgress or NodeResizeInfeasible. Absent when no resize is under way.',
    currentVolumeAttributesClassName: 'VolumeAttributesClass the bound volume has now.',
    modifyVolumeStatus: 'A change to another VolumeAttributesClass that is under way; absent when there is none.',
  },
  'The binding of a claim and the state of its volume.',
);

const schema = described(
  obj({ spec: persistentVolumeClaimSpec, status: claimStatus }),
  {
    spec: 'What the claim asks of its volume. After creation only resources.requests (to grow the volume, when its class allows expansion), volumeAttributesClassName, and an unset volumeName may change.',
    status: 'The binding of the claim and the state of its volume, as the volume controllers last saw it.',
  },
  'A request for storage by the pods of a namespace. It binds to one PersistentVolume that meets it, found among existing volumes or made by the provisioner of its StorageClass; pods mount the volume through the claim. The pvc-protection finalizer keeps a claim that a pod uses.',
);

export function validateClaimSpec(spec: unknown, field: string): FieldError[] {
  const s = asObject(spec) ?? {};
  const errs: FieldError[] = [];
  if (!asArray(s.accessModes).length) errs.push(required(`${field}.accessModes`, 'at least 1 access mode is required'));
  if (at(s, 'resources.requests.storage') === undefined && !s.dataSourceRef) errs.push(required(`${field}.resources[storage]`));
  return errs;
}

function validatePVC(o: ApiObject): FieldError[] {
  return validateClaimSpec(o.spec, 'spec');
}

// After creation a claim may only grow its storage request or get bound to a volume.
function mutableMasked(spec: unknown, old: unknown): unknown {
  const s = cloneJson(asObject(spec) ?? {});
  delete s.resources;
  if (!asObject(old)?.volumeName) delete s.volumeName;
  delete s.volumeAttributesClassName;
  return s;
}

function validatePVCUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const oldMasked = mutableMasked(old.spec, old.spec);
  if (jsonEqual(mutableMasked(o.spec, old.spec), oldMasked)) return [];
  return [forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims')];
}

export const persistentvolumeclaims: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  scope: 'Namespaced',
  returnDeletedObject: true,
  shortNames: ['pvc'],
  subresources: { status: true },
  columns: [
    { name: 'Status', type: 'string', cell: (o) => String(at(o, 'status.phase') ?? '') },
    { name: 'Volume', type: 'string', cell: (o) => String(at(o, 'spec.volumeName') ?? '') },
    { name: 'Capacity', type: 'string', cell: (o) => String(at(o, 'status.capacity.storage') ?? '') },
    { name: 'Access Modes', type: 'string', cell: (o) => accessModesCell(at(o, 'status.accessModes')) },
    { name: 'StorageClass', type: 'string', cell: (o) => String(at(o, 'spec.storageClassName') ?? '') },
    { name: 'VolumeAttributesClass', type: 'string', cell: (o) => String(at(o, 'spec.volumeAttributesClassName') ?? '<unset>') },
    ageColumn,
    { name: 'VolumeMode', type: 'string', priority: 1, cell: (o) => String(at(o, 'spec.volumeMode') ?? '') },
  ],
  strategy: {
    defaults(o) {
      setDefault(ensureObject(o, 'spec'), 'volumeMode', 'Filesystem');
    },
    prepareForCreate(o) {
      o.status = { phase: 'Pending' };
    },
    validate: validatePVC,
    validateUpdate: updateValidation(validatePVC, validatePVCUpdate),
  },
};
