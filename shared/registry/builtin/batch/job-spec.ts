// JobSpec schema, defaults and validation, shared by Jobs and CronJob job templates.

import type { FieldError } from '../../../api/status.js';
import { asObject, at, type Json, setDefault } from '../common/field-errors.js';
import { embeddedObjectMeta, labelSelector } from '../common/meta.js';
import { defaultPodTemplate, podTemplateSpec, validatePodTemplate } from '../common/pod-spec.js';
import { validateLabelSelector } from '../common/selector.js';
import { bool, described, int32, int64, obj, partial, str, strEnum } from '../common/schema.js';
import { nonNegative } from '../common/workload.js';
import { invalidValue, required, unsupported } from '../../../api/field-errors.js';
import type { JsonSchema } from '../../../api/types.js';

const INDEXED = 'Only for Indexed jobs:';

export const jobSpec: JsonSchema = described(
  obj(
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
  ),
  {
    parallelism: 'Most pods of the job that run at the same time. Defaults to 1; 0 runs none.',
    completions:
      'How many pods must succeed for the job to be complete. Unset means the first success completes it, as for a work queue; when parallelism is unset too both default to 1. Required for Indexed jobs, and only they may change it.',
    activeDeadlineSeconds: 'Seconds the job may run, counted from its start, before its pods are stopped and it fails with reason DeadlineExceeded. Greater than 0; unset means no deadline.',
    podFailurePolicy:
      'Rules, by container exit code or pod condition, that decide how a failed pod counts: fail the whole job at once, ignore the failure (not counted against backoffLimit), fail only its index, or count it as usual. Needs restartPolicy Never.',
    successPolicy: `${INDEXED} rules by which the job succeeds before every index has, once given indexes or a number of them have succeeded.`,
    backoffLimit: 'How many pod failures the job tolerates, retrying with a growing delay, before it fails with reason BackoffLimitExceeded. Defaults to 6.',
    backoffLimitPerIndex: `${INDEXED} how many times each index may fail before that index alone is marked failed, instead of a limit for the whole job.`,
    maxFailedIndexes: `${INDEXED} with backoffLimitPerIndex, how many indexes may fail before the whole job fails.`,
    selector:
      'Labels of the pods of the job. Unless manualSelector is true, the server makes it on create from the uid of the job (label batch.platform.io/controller-uid) and puts the labels on the template, so jobs never share pods. Cannot be changed.',
    manualSelector: 'When true, selector and the template labels are used as given instead of generated; keeping them unique to this job is then up to the user. Defaults to false.',
    template: 'Pods to run. Their restartPolicy must be OnFailure or Never. Cannot be changed, except while the job is suspended and has not started yet.',
    ttlSecondsAfterFinished: 'Seconds after the job finishes (Complete or Failed) before it is deleted with its pods. 0 deletes it right away; unset keeps it.',
    completionMode:
      'NonIndexed (the default): the job is complete once completions pods have succeeded, and its pods are alike. Indexed: each pod gets an index from 0 to completions - 1, and the job is complete once every index has succeeded. Cannot be changed.',
    suspend: 'While true the job starts no pods and its running pods are stopped; setting it back to false resumes the job. Defaults to false.',
    podReplacementPolicy:
      'When a failed pod is replaced: TerminatingOrFailed as soon as it is terminating, Failed only once it has fully terminated. Unset means TerminatingOrFailed, or Failed when podFailurePolicy is set.',
    managedBy: 'Controller that runs the job instead of the built-in job controller, which then leaves the job alone. Unset means the built-in one.',
  },
  'The pods a job runs and when it counts as complete or failed.',
);

export const jobTemplateSpec: JsonSchema = described(
  obj({ metadata: embeddedObjectMeta, spec: jobSpec }),
  { metadata: 'Labels and annotations given to each job made from the template.', spec: 'Spec of each job made from the template.' },
  'A template from which a cron job makes jobs.',
);

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
