// Deployments: declarative rollouts of replica sets.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, labelSelector, typedCondition } from '../common/meta.js';
import { defaultPodTemplate, podTemplateSpec } from '../common/pod-spec.js';
import { bool, int32, int64, intOrString, obj, strEnum } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { countColumn, nonNegative, REPLICAS_SCALE, selectorImmutable, validateSelectorAndTemplate, wideTemplateColumns } from '../common/workload.js';
import { forbidden, invalidValue } from '../../../api/field-errors.js';

const schema = obj({
  spec: obj(
    {
      replicas: int32,
      selector: labelSelector,
      template: podTemplateSpec,
      strategy: obj({ type: strEnum('Recreate', 'RollingUpdate'), rollingUpdate: obj({ maxUnavailable: intOrString, maxSurge: intOrString }) }),
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
      paused: bool,
      progressDeadlineSeconds: int32,
    },
    ['selector', 'template'],
  ),
  status: obj({
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
});

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
