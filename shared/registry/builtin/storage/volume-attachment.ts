// VolumeAttachments: requests to attach a volume to a node, fulfilled by the attacher.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at } from '../common/field-errors.js';
import { bool, described, int32, obj, partial, str, strMap, time } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { required } from '../../../api/field-errors.js';

const volumeError = described(
  obj({ time, message: str, errorCode: int32 }),
  {
    time: 'When the error happened.',
    message: 'What went wrong, as the attacher reported it; may be shown to users.',
    errorCode: 'The numeric error code the driver returned (a gRPC status code for CSI drivers).',
  },
  'An error of the last attach or detach attempt.',
);

const source = described(
  // An inline PersistentVolumeSpec (migrated in-tree volumes) is kept as sent.
  obj({ persistentVolumeName: str, inlineVolumeSpec: partial({}) }),
  {
    persistentVolumeName: 'Name of the persistent volume to attach.',
    inlineVolumeSpec: 'The spec of a persistent volume given in full, for a volume declared inline in a pod and handled by a CSI driver in place of an older built-in plugin. Stored as sent.',
  },
  'The volume to attach; exactly one of the fields.',
);

const attachmentSpec = described(
  obj({ attacher: str, source, nodeName: str }, ['attacher', 'source', 'nodeName']),
  {
    attacher: 'Name of the volume driver that attaches the volume (the name a CSI driver reports of itself).',
    source: 'The volume to attach.',
    nodeName: 'The node to attach the volume to.',
  },
  'Which volume to attach to which node, by which driver. Cannot be changed.',
);

const attachmentStatus = described(
  obj({ attached: bool, attachmentMetadata: strMap, attachError: volumeError, detachError: volumeError }, ['attached']),
  {
    attached: 'Whether the volume is attached to the node.',
    attachmentMetadata: 'What the attacher learned when attaching (such as a device path), passed on to the mount step.',
    attachError: 'The error of the last attach attempt; cleared once attaching succeeds.',
    detachError: 'The error of the last detach attempt; cleared once detaching succeeds.',
  },
  'The outcome of attaching, written by the attacher through the status subresource.',
);

const schema = described(
  obj({ spec: attachmentSpec, status: attachmentStatus }),
  { spec: 'Which volume to attach to which node. Cannot be changed.', status: 'Whether the volume is attached, and the last errors. Written by the attacher.' },
  'A request to attach a volume to a node, made by the attach/detach controller for volumes whose CSI driver requires attaching, and carried out by the external attacher of that driver.',
);

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
