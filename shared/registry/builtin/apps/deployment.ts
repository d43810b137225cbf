// Deployments: declarative rollouts of replica sets.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, labelSelector, typedCondition } from '../common/meta.js';
import { defaultPodTemplate, podTemplateSpec } from '../common/pod-spec.js';
import { bool, described, int32, int64, intOrString, obj, strEnum } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { countColumn, nonNegative, REPLICAS_SCALE, selectorImmutable, validateSelectorAndTemplate, wideTemplateColumns } from '../common/workload.js';
import { forbidden, invalidValue } from '../../../api/field-errors.js';

const rollingUpdate = described(obj({ maxUnavailable: intOrString, maxSurge: intOrString }), {
  maxUnavailable: 'How many of the wanted pods may be unavailable during the update: a number or a percentage of replicas (rounded down). Defaults to 25%; cannot be 0 when maxSurge is 0.',
  maxSurge: 'How many pods may exist beyond the wanted number during the update: a number or a percentage of replicas (rounded up). Defaults to 25%.',
});

const deploymentSpec = described(
  obj(
    {
      replicas: int32,
      selector: labelSelector,
      template: podTemplateSpec,
      strategy: described(obj({ type: strEnum('Recreate', 'RollingUpdate'), rollingUpdate }), {
        type: 'RollingUpdate (the default) replaces pods gradually within maxUnavailable and maxSurge; Recreate removes all old pods before making new ones.',
        rollingUpdate: 'Limits of a rolling update; only with type RollingUpdate.',
      }),
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
      paused: bool,
      progressDeadlineSeconds: int32,
    },
    ['selector', 'template'],
  ),
  {
    replicas: 'Number of pods wanted. Defaults to 1.',
    selector: 'Labels of the pods the deployment manages; must match the labels of the template. Cannot be changed.',
    template: 'Pods to run. Changing it starts a rollout to a new replica set.',
    strategy: 'How old pods are replaced by new ones in a rollout.',
    minReadySeconds: 'Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0.',
    revisionHistoryLimit: 'How many old replica sets are kept to roll back to. Defaults to 10.',
    paused: 'While true, changes of the template start no rollout. Defaults to false.',
    progressDeadlineSeconds: 'Seconds a rollout may make no progress before the Progressing condition turns False with reason ProgressDeadlineExceeded. Defaults to 600.',
  },
  'What the deployment runs and how it rolls out changes.',
);

const deploymentStatus = described(
  obj({
    observedGeneration: int64,
    replicas: int32,
    updatedReplicas: int32,
    readyReplicas: int32,
    availableReplicas: int32,
    unavailableReplicas: int32,
    terminatingReplicas: int32,
    conditions: conditionList(typedCondition(['lastUpdateTime'])),
    collisionCount: int32,
  }),
  {
    observedGeneration: 'The metadata.generation the controller last acted on.',
    replicas: 'Pods of the deployment that are not terminating, old and new.',
    updatedReplicas: 'Pods made from the current template.',
    readyReplicas: 'Pods that are ready.',
    availableReplicas: 'Pods that have been ready for at least minReadySeconds.',
    unavailableReplicas: 'Pods still needed for the deployment to be fully available.',
    terminatingReplicas: 'Pods of the deployment that are terminating.',
    conditions: 'Available and Progressing conditions, among others.',
    collisionCount: 'Counter the controller raises when the hash naming a new replica set collides, to get a fresh name.',
  },
  'What the deployment controller last observed of the rollout.',
);

const schema = described(
  obj({ spec: deploymentSpec, status: deploymentStatus }),
  { spec: 'What the deployment runs and how it rolls out changes.', status: 'What the deployment controller last observed.' },
  'A deployment: keeps a number of identical pods running through replica sets, and rolls out changes of their template gradually, with rollback to earlier revisions.',
);

/** An int-or-percent value as (number, isPercent), or an error text. */
export function parseIntOrPercent(v: unknown): { value: number; percent: boolean } | string {
  if (typeof v === 'number') return { value: v, percent: false };
  if (typeof v === 'string') {
    const m = /^(\d+)%$/.exec(v);
    if (m) return { value: Number(m[1]), percent: true };
  }
  return "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
}

export function validateIntOrPercent(v: unknown, field: string): FieldError[] {
  if (v === undefined) return [];
  const p = parseIntOrPercent(v);
  if (typeof p === 'string') return [invalidValue(field, v, p)];
  if (p.value < 0) return [invalidValue(field, v, 'must be greater than or equal to 0')];
  if (p.percent && p.value > 100) return [invalidValue(field, v, 'must not be greater than 100%')];
  return [];
}

function isZero(v: unknown): boolean {
  const p = parseIntOrPercent(v);
  return typeof p !== 'string' && p.value === 0;
}

function validateDeployment(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs = validateSelectorAndTemplate(spec, { kind: 'deployment' });
  errs.push(...nonNegative(spec, ['replicas', 'minReadySeconds', 'revisionHistoryLimit', 'progressDeadlineSeconds']));
  const strategy = asObject(spec.strategy) ?? {};
  const ru = asObject(strategy.rollingUpdate);
  if (strategy.type === 'Recreate' && ru) errs.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  if (ru) {
    errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
    errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
    if (ru.maxUnavailable !== undefined && ru.maxSurge !== undefined && isZero(ru.maxUnavailable) && isZero(ru.maxSurge)) {
      errs.push(invalidValue('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
  }
  const pds = spec.progressDeadlineSeconds;
  const mrs = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
  if (typeof pds === 'number' && pds <= mrs) errs.push(invalidValue('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  return errs;
}

function readyCell(o: ApiObject): string {
  return `${Number(at(o, 'status.readyReplicas') ?? 0)}/${Number(at(o, 'spec.replicas') ?? 0)}`;
}

export const deployments: ResourceType = {
  group: 'apps',
  versions: [{ name: 'v1', schema }],
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  scope: 'Namespaced',
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: { status: true, scale: REPLICAS_SCALE },
  columns: [
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', cell: readyCell },
    countColumn('Up-to-date', 'status.updatedReplicas', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    countColumn('Available', 'status.availableReplicas', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn,
    ...wideTemplateColumns(),
  ],
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      setDefault(spec, 'replicas', 1);
      const strategy = ensureObject(spec, 'strategy');
      setDefault(strategy, 'type', 'RollingUpdate');
      if (strategy.type === 'RollingUpdate') {
        const ru = ensureObject(strategy, 'rollingUpdate');
        setDefault(ru, 'maxUnavailable', '25%');
        setDefault(ru, 'maxSurge', '25%');
      }
      setDefault(spec, 'revisionHistoryLimit', 10);
      setDefault(spec, 'progressDeadlineSeconds', 600);
      defaultPodTemplate(spec.template);
    },
    validate: validateDeployment,
    validateUpdate: updateValidation(validateDeployment, selectorImmutable),
  },
};
