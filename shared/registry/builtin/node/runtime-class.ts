// RuntimeClasses: named container runtime configurations pods select by `runtimeClassName`.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';

import { toleration } from '../common/pod-spec.js';
import { atomicList, obj, quantityMap, str, strMap } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { required } from '../../../api/field-errors.js';
import { dnsLabelError, validDnsLabel } from '../../../api/validation.js';

const schema = obj(
  {
    handler: str,
    overhead: obj({ podFixed: quantityMap }),
    scheduling: obj({ nodeSelector: { ...strMap, 'x-kubernetes-map-type': 'atomic' }, tolerations: atomicList(toleration) }),
  },
  ['handler'],
);

function validate(o: ApiObject): FieldError[] {
  const h = o.handler;
  if (typeof h !== 'string' || !h) return [required('handler')];
  return validDnsLabel(h) ? [] : [dnsLabelError('handler', h)];
}

export const runtimeclasses: ResourceType = {
  group: 'node.platform.io',
  versions: [
    { name: 'v1', schema },
    // Upstream names no replacement for this one.
    { name: 'v1beta1', schema, deprecation: { since: '1.22', removedIn: '1.25' } },
  ],
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  singular: 'runtimeclass',
  scope: 'Cluster',
  createOnUpdate: true,
  generation: false,
  columns: [{ name: 'Handler', type: 'string', description: 'Handler is the name of the underlying runtime and configuration.', cell: (o) => o.handler ?? '' }, ageColumn],
  strategy: { validate, validateUpdate: updateValidation(validate, (o, old) => immutableFields(o, old, ['handler'])) },
};
