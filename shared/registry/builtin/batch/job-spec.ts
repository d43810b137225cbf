// JobSpec schema, defaults and validation, shared by Jobs and CronJob job templates.

import type { FieldError } from '../../../api/status.js';
import { asObject, at, type Json, setDefault } from '../common/field-errors.js';
import { embeddedObjectMeta, labelSelector } from '../common/meta.js';
import { defaultPodTemplate, podTemplateSpec, validatePodTemplate } from '../common/pod-spec.js';
import { validateLabelSelector } from '../common/selector.js';
import { bool, int32, int64, obj, partial, str, strEnum } from '../common/schema.js';
import { nonNegative } from '../common/workload.js';
import { invalidValue, required, unsupported } from '../../../api/field-errors.js';
import type { JsonSchema } from '../../../api/types.js';

export const jobSpec: JsonSchema = obj(
  {
    parallelism: int32,
    completions: int32,
    activeDeadlineSeconds: int64,
    // Failure and success policies are modelled loosely: their rule trees are kept as sent.
    podFailurePolicy: partial({}),
    successPolicy: partial({}),
    backoffLimit: int32,
    backoffLimitPerIndex: int32,
    maxFailedIndexes: int32,
    selector: labelSelector,
    manualSelector: bool,
    template: podTemplateSpec,
    ttlSecondsAfterFinished: int32,
    completionMode: strEnum('NonIndexed', 'Indexed'),
    suspend: bool,
    podReplacementPolicy: strEnum('TerminatingOrFailed', 'Failed'),
    managedBy: str,
  },
  ['template'],
);

export const jobTemplateSpec: JsonSchema = obj({ metadata: embeddedObjectMeta, spec: jobSpec });

export function defaultJobSpec(spec: Json): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', 6);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  defaultPodTemplate(spec.template);
}

export const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];

export function validateJobSpec(spec: unknown, field: string): FieldError[] {
  const s = asObject(spec) ?? {};
  const errs = nonNegative(s, ['parallelism', 'completions', 'backoffLimit', 'ttlSecondsAfterFinished']).map((e) => ({ ...e, field: e.field.replace(/^spec\./, `${field}.`) }));
  const ads = s.activeDeadlineSeconds;
  if (typeof ads === 'number' && ads <= 0) errs.push(invalidValue(`${field}.activeDeadlineSeconds`, ads, 'must be greater than 0'));
  if (s.completionMode === 'Indexed' && s.completions === undefined) errs.push(required(`${field}.completions`, 'when completion mode is Indexed'));
  errs.push(...validateLabelSelector(s.selector, `${field}.selector`));
  errs.push(...validatePodTemplate(s.template, `${field}.template`));
  const restart = at(s, 'template.spec.restartPolicy');
  if (!JOB_RESTART_POLICIES.includes(String(restart))) errs.push(unsupported(`${field}.template.spec.restartPolicy`, restart ?? '', JOB_RESTART_POLICIES));
  return errs;
}
