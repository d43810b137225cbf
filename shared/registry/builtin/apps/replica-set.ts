// ReplicaSets: keep a number of identical pods running (deployments manage them).

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, labelSelector, typedCondition } from '../common/meta.js';
import { defaultPodTemplate, podTemplateSpec } from '../common/pod-spec.js';
import { int32, int64, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { countColumn, nonNegative, REPLICAS_SCALE, selectorImmutable, validateSelectorAndTemplate, wideTemplateColumns } from '../common/workload.js';

const schema = obj({
  spec: obj({ replicas: int32, minReadySeconds: int32, selector: labelSelector, template: podTemplateSpec }, ['selector']),
  status: obj(
    {
      replicas: int32,
      fullyLabeledReplicas: int32,
      readyReplicas: int32,
      availableReplicas: int32,
      terminatingReplicas: int32,
      observedGeneration: int64,
      conditions: conditionList(typedCondition()),
    },
    ['replicas'],
  ),
});

function validateReplicaSet(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  return [...validateSelectorAndTemplate(spec, { kind: 'replicaset' }), ...nonNegative(spec, ['replicas', 'minReadySeconds'])];
}

export const replicasets: ResourceType = {
  group: 'apps',
  versions: [{ name: 'v1', schema }],
  kind: 'ReplicaSet',
  plural: 'replicasets',
  singular: 'replicaset',
  scope: 'Namespaced',
  shortNames: ['rs'],
  categories: ['all'],
  subresources: { status: true, scale: REPLICAS_SCALE },
  columns: [
    countColumn('Desired', 'spec.replicas', 'Number of desired pods.'),
    countColumn('Current', 'status.replicas', 'Number of actually running pods.'),
    countColumn('Ready', 'status.readyReplicas', 'Number of ready pods.'),
    ageColumn,
    ...wideTemplateColumns(),
  ],
  fieldSelectors: { 'status.replicas': (o) => String(at(o, 'status.replicas') ?? 0) },
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      setDefault(spec, 'replicas', 1);
      defaultPodTemplate(spec.template);
    },
    validate: validateReplicaSet,
    validateUpdate: updateValidation(validateReplicaSet, selectorImmutable),
  },
};
