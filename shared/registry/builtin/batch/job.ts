// Jobs: pods run to completion. Unless `manualSelector` is set, the selector is generated from
// the job's uid so jobs never adopt each other's pods.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, humanDuration } from '../common/columns.js';
import { asObject, at, ensureObject } from '../common/field-errors.js';
import { conditionList, typedCondition } from '../common/meta.js';
import { atomicList, described, int32, obj, str, time } from '../common/schema.js';
import { selectorMatches } from '../common/selector.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { wideTemplateColumns } from '../common/workload.js';
import { defaultJobSpec, jobSpec, validateJobSpec } from './job-spec.js';
import { invalidValue, required } from '../../../api/field-errors.js';

export const JOB_UID_LABEL = 'batch.platform.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.platform.io/job-name';
// The unprefixed labels older clients and controllers select on.
const LEGACY_UID_LABEL = 'controller-uid';
const LEGACY_NAME_LABEL = 'job-name';

const INDEXED = 'Only for Indexed jobs:';

const jobStatus = described(
  obj({
    conditions: conditionList(typedCondition(['lastProbeTime'])),
    startTime: time,
    completionTime: time,
    active: int32,
    succeeded: int32,
    failed: int32,
    terminating: int32,
    completedIndexes: str,
    failedIndexes: str,
    uncountedTerminatedPods: described(
      obj({ succeeded: atomicList(str), failed: atomicList(str) }),
      {
        succeeded: 'Uids of succeeded pods not yet added to status.succeeded.',
        failed: 'Uids of failed pods not yet added to status.failed.',
      },
      'Finished pods the job controller has yet to count.',
    ),
    ready: int32,
  }),
  {
    conditions: 'Conditions of the job: Complete or Failed once it has finished, Suspended while suspended, and SuccessCriteriaMet or FailureTarget just before it finishes.',
    startTime: 'When the job controller started the job, or resumed it after a suspension.',
    completionTime: 'When the job completed successfully; not set for a job that failed.',
    active: 'Pods of the job that are pending or running and not terminating.',
    succeeded: 'Pods of the job that succeeded. Selectable as the field selector status.successful.',
    failed: 'Pods of the job that failed.',
    terminating: 'Pods of the job that are terminating.',
    completedIndexes: `${INDEXED} the indexes that have succeeded, as a list of numbers and ranges such as \`1,3-5,7\`.`,
    failedIndexes: `${INDEXED} with backoffLimitPerIndex, the indexes that have failed, in the same form as completedIndexes.`,
    uncountedTerminatedPods: 'Pods that have finished but are not yet counted in succeeded or failed; the job controller counts them before it lets the pods go.',
    ready: 'Pods of the job that are ready.',
  },
  'What the job controller last observed of the pods of the job.',
);

const schema = described(
  obj({ spec: jobSpec, status: jobStatus }),
  { spec: 'The pods the job runs and when it counts as complete or failed.', status: 'What the job controller last observed.' },
  'A job: runs pods until a given number of them succeed, replacing pods that fail up to a limit. A finished job stays until it is deleted or its ttlSecondsAfterFinished runs out.',
);

function validateJob(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs = validateJobSpec(spec, 'spec');
  const selector = asObject(spec.selector);
  if (!selector) errs.push(required('spec.selector'));
  else if (!selectorMatches(selector, asObject(at(spec, 'template.metadata.labels')) as Record<string, string> | undefined)) {
    errs.push(invalidValue('spec.template.metadata.labels', at(spec, 'template.metadata.labels') ?? {}, '`selector` does not match template `labels`'));
  }
  return errs;
}

function validateJobUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs = immutableFields(o, old, ['spec.selector', 'spec.completionMode']);
  // A suspended job that never started may still get new scheduling directives.
  if (!(at(old, 'spec.suspend') === true && !at(old, 'status.startTime'))) errs.push(...immutableFields(o, old, ['spec.template']));
  if (at(o, 'spec.completionMode') !== 'Indexed') errs.push(...immutableFields(o, old, ['spec.completions']));
  return errs;
}

function durationCell(o: ApiObject): string {
  const start = at(o, 'status.startTime');
  if (typeof start !== 'string') return '';
  const end = at(o, 'status.completionTime');
  const endMs = typeof end === 'string' ? Date.parse(end) : Date.now();
  return humanDuration((endMs - Date.parse(start)) / 1000);
}

function completionsCell(o: ApiObject): string {
  const succeeded = Number(at(o, 'status.succeeded') ?? 0);
  const completions = at(o, 'spec.completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = Number(at(o, 'spec.parallelism') ?? 0);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function statusCell(o: ApiObject): string {
  const conds = (at(o, 'status.conditions') as Array<Record<string, unknown>> | undefined) ?? [];
  const trueType = (t: string) => conds.some((c) => c.type === t && c.status === 'True');
  if (trueType('Complete')) return 'Complete';
  if (trueType('Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (trueType('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (trueType('FailureTarget')) return 'FailureTarget';
  if (trueType('Suspended')) return 'Suspended';
  return 'Running';
}

export const jobs: ResourceType = {
  group: 'batch',
  versions: [{ name: 'v1', schema }],
  kind: 'Job',
  plural: 'jobs',
  singular: 'job',
  scope: 'Namespaced',
  categories: ['all'],
  subresources: { status: true },
  columns: [
    { name: 'Status', type: 'string', description: 'Status of the job.', cell: statusCell },
    { name: 'Completions', type: 'string', description: 'The desired number of successfully finished pods the job should be run with.', cell: completionsCell },
    { name: 'Duration', type: 'string', description: 'Time required to complete the job.', cell: durationCell },
    ageColumn,
    ...wideTemplateColumns(),
  ],
  fieldSelectors: { 'status.successful': (o) => String(at(o, 'status.succeeded') ?? 0) },
  strategy: {
    defaults(o) {
      defaultJobSpec(ensureObject(o, 'spec'));
    },
    prepareForCreate(o) {
      const spec = ensureObject(o, 'spec');
      if (spec.manualSelector === true || !o.metadata.uid) return;
      const uid = o.metadata.uid;
      const name = o.metadata.name ?? '';
      spec.selector = { matchLabels: { [JOB_UID_LABEL]: uid } };
      const meta = ensureObject(ensureObject(spec, 'template'), 'metadata');
      meta.labels = { ...(asObject(meta.labels) ?? {}), [JOB_UID_LABEL]: uid, [JOB_NAME_LABEL]: name, [LEGACY_UID_LABEL]: uid, [LEGACY_NAME_LABEL]: name };
    },
    validate: validateJob,
    validateUpdate: updateValidation(validateJob, validateJobUpdate),
  },
};
