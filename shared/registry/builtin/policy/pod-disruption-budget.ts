// PodDisruptionBudgets: limits on voluntary evictions of selected pods.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at } from '../common/field-errors.js';
import { conditionList, labelSelector, metaCondition } from '../common/meta.js';
import { int32, int64, intOrString, obj, strEnum, time } from '../common/schema.js';
import { validateLabelSelector } from '../common/selector.js';
import { updateValidation } from '../common/strategy.js';
import { validateIntOrPercent } from '../apps/deployment.js';
import { invalidValue } from '../../../api/field-errors.js';

const schema = obj({
  spec: obj({
    minAvailable: intOrString,
    selector: labelSelector,
    maxUnavailable: intOrString,
    unhealthyPodEvictionPolicy: strEnum('IfHealthyBudget', 'AlwaysAllow'),
  }),
  status: obj(
    {
      observedGeneration: int64,
      disruptedPods: { type: 'object', additionalProperties: time },
      disruptionsAllowed: int32,
      currentHealthy: int32,
      desiredHealthy: int32,
      expectedPods: int32,
      conditions: conditionList(metaCondition),
    },
    ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'],
  ),
});

function validatePDB(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push(invalidValue('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  errs.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  errs.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  return errs;
}

export const poddisruptionbudgets: ResourceType = {
  group: 'policy',
  versions: [{ name: 'v1', schema }],
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  singular: 'poddisruptionbudget',
  scope: 'Namespaced',
  shortNames: ['pdb'],
  subresources: { status: true },
  columns: [
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available', cell: (o) => String(at(o, 'spec.minAvailable') ?? 'N/A') },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable', cell: (o) => String(at(o, 'spec.maxUnavailable') ?? 'N/A') },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Number of pod disruptions currently allowed', cell: (o) => at(o, 'status.disruptionsAllowed') ?? 0 },
    ageColumn,
  ],
  strategy: {
    validate: validatePDB,
    validateUpdate: updateValidation(validatePDB),
  },
};

