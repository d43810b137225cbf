// ReplicationControllers: the original replicated pod controller, with an equality-only selector.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, templateContainers } from '../common/columns.js';
import { asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, typedCondition } from '../common/meta.js';
import { defaultPodTemplate, podTemplateSpec, validatePodTemplate } from '../common/pod-spec.js';
import { described, int32, int64, obj, strMap } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { countColumn, nonNegative } from '../common/workload.js';
import { invalidValue, required, unsupported } from '../../../api/field-errors.js';

const rcSpec = described(
  obj({ replicas: int32, minReadySeconds: int32, selector: { ...strMap, 'x-kubernetes-map-type': 'atomic' }, template: podTemplateSpec }),
  {
    replicas: 'Number of pods wanted. Defaults to 1. Also set through the scale subresource.',
    minReadySeconds: 'Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0.',
    selector: 'Labels, with these exact values, that the pods of the controller carry. Omitted, it defaults to the labels of the template; must match the template labels.',
    template: 'Pods to make when there are fewer than replicas. Their restartPolicy must be Always. Changing it affects only pods made afterwards.',
  },
  'How many pods to keep running and what they look like.',
);

const rcStatus = described(
  obj({ replicas: int32, fullyLabeledReplicas: int32, readyReplicas: int32, availableReplicas: int32, observedGeneration: int64, conditions: conditionList(typedCondition()) }, ['replicas']),
  {
    replicas: 'Pods the controller has now. Selectable as the field selector status.replicas.',
    fullyLabeledReplicas: 'Pods whose labels match the template labels, not only the selector.',
    readyReplicas: 'Pods that are ready.',
    availableReplicas: 'Pods that have been ready for at least minReadySeconds.',
    observedGeneration: 'The metadata.generation the controller last acted on.',
    conditions: 'Conditions of the controller, such as ReplicaFailure when it could not make or remove pods.',
  },
  'What the replication manager last observed of the pods.',
);

const schema = described(
  obj({ spec: rcSpec, status: rcStatus }),
  { spec: 'How many pods to keep running and what they look like.', status: 'What the replication manager last observed.' },
  'The original replicated pod controller: keeps a number of pods matching an equality-based selector running. Deleting one through v1 leaves its pods behind unless a propagation policy says otherwise. Deployments and replica sets supersede it.',
);

function validateRC(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs = nonNegative(spec, ['replicas', 'minReadySeconds']);
  const selector = asObject(spec.selector) ?? {};
  if (!Object.keys(selector).length) errs.push(required('spec.selector'));
  const template = asObject(spec.template);
  if (!template) {
    errs.push(required('spec.template'));
    return errs;
  }
  const labels = asObject(asObject(template.metadata)?.labels) ?? {};
  if (Object.entries(selector).some(([k, v]) => labels[k] !== v)) {
    errs.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplate(template, 'spec.template'));
  const restart = at(template, 'spec.restartPolicy');
  if (restart !== undefined && restart !== 'Always') errs.push(unsupported('spec.template.spec.restartPolicy', restart, ['Always']));
  return errs;
}

export const replicationcontrollers: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'ReplicationController',
  // Upstream keeps v1's old default: deleting a ReplicationController leaves its pods.
  orphanDependentsByDefault: ['v1'],
  plural: 'replicationcontrollers',
  singular: 'replicationcontroller',
  scope: 'Namespaced',
  shortNames: ['rc'],
  categories: ['all'],
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
  columns: [
    countColumn('Desired', 'spec.replicas', 'Number of desired pods.'),
    countColumn('Current', 'status.replicas', 'Number of actually running pods.'),
    countColumn('Ready', 'status.readyReplicas', 'Number of ready pods.'),
    ageColumn,
    { name: 'Containers', type: 'string', priority: 1, cell: (o) => templateContainers(at(o, 'spec.template')).names },
    { name: 'Images', type: 'string', priority: 1, cell: (o) => templateContainers(at(o, 'spec.template')).images },
    {
      name: 'Selector',
      type: 'string',
      priority: 1,
      cell: (o) =>
        Object.entries(asObject(at(o, 'spec.selector')) ?? {})
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',') || '<none>',
    },
  ],
  fieldSelectors: { 'status.replicas': (o) => String(at(o, 'status.replicas') ?? 0) },
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      const labels = asObject(asObject(asObject(spec.template)?.metadata)?.labels);
      // An RC without a selector selects its template's labels, and is labelled like its pods.
      if (labels && Object.keys(labels).length) {
        if (!asObject(spec.selector) || !Object.keys(asObject(spec.selector)!).length) spec.selector = { ...labels };
        if (!o.metadata.labels || !Object.keys(o.metadata.labels).length) o.metadata.labels = { ...(labels as Record<string, string>) };
      }
      setDefault(spec, 'replicas', 1);
      defaultPodTemplate(spec.template);
    },
    validate: validateRC,
    validateUpdate: updateValidation(validateRC),
  },
};
