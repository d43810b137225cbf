// PriorityClasses: named pod priorities. The value is fixed once created.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { setDefault } from '../common/field-errors.js';
import { bool, described, int32, obj, str, strEnum } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { invalidValue } from '../../../api/field-errors.js';

/** Values above this are reserved for the built-in system classes. */
export const HIGHEST_USER_PRIORITY = 1_000_000_000;
const SYSTEM_PREFIX = 'system-';

const schema = described(
  obj({ value: int32, globalDefault: bool, description: str, preemptionPolicy: strEnum('PreemptLowerPriority', 'Never') }, ['value']),
  {
    value: 'The priority pods of this class get in spec.priority; higher runs first. At most 1000000000 for user classes (higher values are kept for the system- classes). Cannot be changed.',
    globalDefault: 'When true, pods naming no priority class get this one. At most one class may be the default; admission refuses a second.',
    description: 'Free text saying when to use this class.',
    preemptionPolicy:
      'Whether pods of this class may evict pods of lower priority to be scheduled: PreemptLowerPriority (the default) or Never. Copied into the spec of each pod of the class; cannot be changed.',
  },
  "A named priority for pods. Admission resolves a pod's spec.priorityClassName to this class's value, which the scheduler orders pending pods by and preempts with.",
);

function validate(o: ApiObject): FieldError[] {
  const name = o.metadata.name ?? '';
  const errs: FieldError[] = [];
  if (name.startsWith(SYSTEM_PREFIX)) {
    if (!['system-cluster-critical', 'system-node-critical'].includes(name)) {
      errs.push(invalidValue('metadata.name', name, `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only`));
    }
  } else if (typeof o.value === 'number' && o.value > HIGHEST_USER_PRIORITY) {
    errs.push(invalidValue('value', o.value, `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  }
  return errs;
}

export const priorityclasses: ResourceType = {
  group: 'scheduling.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'PriorityClass',
  plural: 'priorityclasses',
  singular: 'priorityclass',
  scope: 'Cluster',
  shortNames: ['pc'],
  generation: false,
  columns: [
    { name: 'Value', type: 'integer', description: 'Value is the integer value of this priority class.', cell: (o) => o.value ?? 0 },
    { name: 'Global-Default', type: 'boolean', description: 'Whether this is the default priority class.', cell: (o) => o.globalDefault === true },
    ageColumn,
    { name: 'PreemptionPolicy', type: 'string', priority: 1, description: 'Whether lower-priority pods may be preempted.', cell: (o) => o.preemptionPolicy ?? '' },
  ],
  strategy: {
    defaults(o) {
      setDefault(o, 'preemptionPolicy', 'PreemptLowerPriority');
    },
    validate,
    validateUpdate: updateValidation(validate, (o, old) => immutableFields(o, old, ['value', 'preemptionPolicy'])),
  },
};
