// Leases: leader election and node heartbeats.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at } from '../common/field-errors.js';
import { int32, obj, str, time } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { invalidValue } from '../../../api/field-errors.js';

const schema = obj({
  spec: obj({
    holderIdentity: str,
    leaseDurationSeconds: int32,
    acquireTime: time,
    renewTime: time,
    leaseTransitions: int32,
    strategy: str,
    preferredHolder: str,
  }),
});

function validate(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) errs.push(invalidValue('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) errs.push(invalidValue('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  return errs;
}

export const leases: ResourceType = {
  group: 'coordination.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'Lease',
  plural: 'leases',
  singular: 'lease',
  scope: 'Namespaced',
  createOnUpdate: true,
  columns: [{ name: 'Holder', type: 'string', description: 'Current holder of the lease', cell: (o) => at(o, 'spec.holderIdentity') ?? '' }, ageColumn],
  strategy: { validate, validateUpdate: updateValidation(validate) },
};
