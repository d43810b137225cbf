// StorageClasses: provisioner and parameters for dynamically provisioned volumes.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { setDefault } from '../common/field-errors.js';
import { topologySelectorTerm } from '../common/meta.js';
import { atomicList, bool, described, obj, str, strEnum, strMap } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { forbidden, invalidValue, required } from '../../../api/field-errors.js';
import { validDnsSubdomain } from '../../../api/validation.js';
import { jsonEqual } from '../../../patch/json-value.js';

const schema = described(
  obj(
    {
      provisioner: str,
      parameters: strMap,
      reclaimPolicy: strEnum('Delete', 'Retain'),
      mountOptions: atomicList(str),
      allowVolumeExpansion: bool,
      volumeBindingMode: strEnum('Immediate', 'WaitForFirstConsumer'),
      allowedTopologies: atomicList(topologySelectorTerm),
    },
    ['provisioner'],
  ),
  {
    provisioner: 'The provisioner that makes volumes of this class, as a qualified name (for example `csi.example.com`). Cannot be changed.',
    parameters: "Settings passed to the provisioner, whose meaning is the provisioner's. Cannot be changed.",
    reclaimPolicy:
      'What happens to a volume of this class once its claim is deleted: Delete (the default) removes it, Retain keeps it for an administrator. Copied into each volume; cannot be changed.',
    mountOptions: 'Mount options for volumes of this class, such as `ro` or `soft`. Not validated: a wrong option makes mounting fail.',
    allowVolumeExpansion: 'When true, a bound claim of this class may ask for more storage and its volume is expanded; otherwise admission refuses a larger request. Defaults to false.',
    volumeBindingMode:
      'When a claim of this class gets a volume: Immediate (the default) as soon as it is created, WaitForFirstConsumer only once a pod using it is scheduled, so the volume is made where the pod runs. Cannot be changed.',
    allowedTopologies: 'Where volumes of this class may be provisioned; a volume may be placed anywhere matching one of the terms. Empty: anywhere the provisioner can.',
  },
  'A class of storage: which provisioner makes volumes for claims of the class and with which settings. A claim names it in spec.storageClassName; a claim naming none gets the class annotated `storageclass.platform.io/is-default-class: "true"`.',
);

function validate(o: ApiObject): FieldError[] {
  const p = o.provisioner;
  if (typeof p !== 'string' || !p) return [required('provisioner')];
  // Provisioner names are qualified names such as `example.com/nfs`.
  const [prefix, name, extra] = p.split('/');
  const ok =
    extra === undefined && (name === undefined ? /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(prefix!) : validDnsSubdomain(prefix!) && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name));
  return ok && p.length <= 253 ? [] : [invalidValue('provisioner', p, 'must be a qualified name (e.g. "example.com/my-provisioner")')];
}

function validateUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['parameters', 'provisioner', 'reclaimPolicy']) {
    if (!jsonEqual(o[f] ?? null, old[f] ?? null)) errs.push(forbidden(f, `updates to ${f} are forbidden.`));
  }
  return [...errs, ...immutableFields(o, old, ['volumeBindingMode'])];
}

export const storageclasses: ResourceType = {
  group: 'storage.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'StorageClass',
  plural: 'storageclasses',
  singular: 'storageclass',
  scope: 'Cluster',
  returnDeletedObject: true,
  shortNames: ['sc'],
  generation: false,
  columns: [
    { name: 'Provisioner', type: 'string', cell: (o) => o.provisioner ?? '' },
    { name: 'ReclaimPolicy', type: 'string', cell: (o) => o.reclaimPolicy ?? 'Delete' },
    { name: 'VolumeBindingMode', type: 'string', cell: (o) => o.volumeBindingMode ?? 'Immediate' },
    { name: 'AllowVolumeExpansion', type: 'string', cell: (o) => String(o.allowVolumeExpansion === true) },
    ageColumn,
  ],
  strategy: {
    defaults(o) {
      setDefault(o, 'reclaimPolicy', 'Delete');
      setDefault(o, 'volumeBindingMode', 'Immediate');
    },
    validate,
    validateUpdate: updateValidation(validate, validateUpdate),
  },
};
