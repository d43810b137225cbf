// VolumeAttachments: requests to attach a volume to a node, fulfilled by the attacher.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at } from '../common/field-errors.js';
import { bool, int32, obj, partial, str, strMap, time } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { required } from '../../../api/field-errors.js';

const volumeError = obj({ time, message: str, errorCode: int32 });

const schema = obj({
  spec: obj(
    {
      attacher: str,
      // An inline PersistentVolumeSpec (migrated in-tree volumes) is kept as sent.
      source: obj({ persistentVolumeName: str, inlineVolumeSpec: partial({}) }),
      nodeName: str,
    },
    ['attacher', 'source', 'nodeName'],
  ),
  status: obj({ attached: bool, attachmentMetadata: strMap, attachError: volumeError, detachError: volumeError }, ['attached']),
});

function validate(o: ApiObject): FieldError[] {
  const source = asObject(at(o, 'spec.source')) ?? {};
  const count = (source.persistentVolumeName ? 1 : 0) + (source.inlineVolumeSpec ? 1 : 0);
  return count === 1 ? [] : [required('spec.source', 'must specify exactly one of persistentVolumeName and inlineVolumeSpec')];
}

export const volumeattachments: ResourceType = {
  group: 'storage.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  returnDeletedObject: true,
  singular: 'volumeattachment',
  scope: 'Cluster',
  subresources: { status: true },
  columns: [
    { name: 'Attacher', type: 'string', cell: (o) => at(o, 'spec.attacher') ?? '' },
    { name: 'PV', type: 'string', cell: (o) => at(o, 'spec.source.persistentVolumeName') ?? '' },
    { name: 'Node', type: 'string', cell: (o) => at(o, 'spec.nodeName') ?? '' },
    { name: 'Attached', type: 'boolean', cell: (o) => at(o, 'status.attached') === true },
    ageColumn,
  ],
  strategy: { validate, validateUpdate: updateValidation(validate, (o, old) => immutableFields(o, old, ['spec'])) },
};
