// Leases: leader election and node heartbeats.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at } from '../common/field-errors.js';
import { described, int32, obj, str, time } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { invalidValue } from '../../../api/field-errors.js';

const leaseSpec = described(
  obj({
    holderIdentity: str,
    leaseDurationSeconds: int32,
    acquireTime: time,
    renewTime: time,
    leaseTransitions: int32,
    strategy: str,
    preferredHolder: str,
  }),
  {
    holderIdentity: 'Identity of the current holder (a process, or a node for node heartbeats). Empty when nobody holds the lease.',
    leaseDurationSeconds: 'Seconds after renewTime that others must wait before taking the lease over. Greater than 0.',
    acquireTime: 'When the current holder took the lease, with microsecond precision.',
    renewTime: 'When the holder last renewed the lease, with microsecond precision. The lease expires leaseDurationSeconds after it.',
    leaseTransitions: 'How many times the lease has changed hands. Not negative.',
    strategy: 'How a coordinator picks the holder, when a coordinator elects it rather than the candidates taking the lease themselves. The server stores it as given.',
    preferredHolder: 'The candidate a coordinator wants to hold the lease next; the current holder is expected to give it up. The server stores it as given.',
  },
  'The state of the lease. The server enforces no locking: holders read and update it with resource versions, and the one whose update succeeds holds it.',
);

const schema = described(
  obj({ spec: leaseSpec }),
  { spec: 'Who holds the lease and until when.' },
  'A lease: a time-limited claim that one holder makes by renewing it, used for leader election among replicas of a component and for node heartbeats (in namespace platform-node-lease).',
);

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
