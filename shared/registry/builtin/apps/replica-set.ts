// ReplicaSets: keep a number of identical pods running (deployments manage them).

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, labelSelector, typedCondition } from '../common/meta.js';
import { defaultPodTemplate, podTemplateSpec } from '../common/pod-spec.js';
import { described, int32, int64, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { countColumn, nonNegative, REPLICAS_SCALE, selectorImmutable, validateSelectorAndTemplate, wideTemplateColumns } from '../common/workload.js';

const schema = described(
  obj({
    spec: described(obj({ replicas: int32, minReadySeconds: int32, selector: labelSelector, template: podTemplateSpec }, ['selector']), {
      replicas: 'Number of pods wanted. Defaults to 1.',
      minReadySeconds: 'Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0.',
      selector: 'Labels of the pods the replica set counts as its own; must match the labels of the template. Cannot be changed.',
      template: 'Pods made when there are too few. Changing it does not touch existing pods.',
    }),
    status: described(
      obj(
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
      {
        replicas: 'Pods of the replica set that are not terminating.',
        fullyLabeledReplicas: 'Pods whose labels match those of the template.',
        readyReplicas: 'Pods that are ready.',
        availableReplicas: 'Pods that have been ready for at least minReadySeconds.',
        terminatingReplicas: 'Pods of the replica set that are terminating.',
        observedGeneration: 'The metadata.generation the controller last acted on.',
        conditions: 'Conditions of the replica set, such as ReplicaFailure.',
      },
    ),
  }),
  { spec: 'How many pods to keep and what they run.', status: 'What the replica set controller last observed.' },
  'A replica set: keeps a number of identical pods running, making or deleting pods to match. Usually managed by a deployment.',
);

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
