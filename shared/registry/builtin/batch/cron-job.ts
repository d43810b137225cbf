// CronJobs: jobs created on a cron schedule.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, since } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { objectReference } from '../common/meta.js';
import { atomicList, bool, described, int32, int64, obj, str, strEnum, time } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { wideTemplateColumns } from '../common/workload.js';
import { defaultJobSpec, jobTemplateSpec, validateJobSpec } from './job-spec.js';
import { invalidValue, required } from '../../../api/field-errors.js';

const cronJobSpec = described(
  obj(
    {
      schedule: str,
      timeZone: str,
      startingDeadlineSeconds: int64,
      concurrencyPolicy: strEnum('Allow', 'Forbid', 'Replace'),
      suspend: bool,
      jobTemplate: jobTemplateSpec,
      successfulJobsHistoryLimit: int32,
      failedJobsHistoryLimit: int32,
    },
    ['schedule', 'jobTemplate'],
  ),
  {
    schedule:
      'When to make a job, in cron format: five fields (minute, hour, day of month, month, day of week), such as `0 3 * * *`, or a shortcut such as @hourly or @daily. Required; a TZ= or CRON_TZ= prefix is rejected (use timeZone).',
    timeZone: 'Time zone the schedule is read in, an IANA name such as Europe/Berlin. Unset uses the time zone of the controller.',
    startingDeadlineSeconds: 'Seconds after its scheduled time that a missed run may still start; a run later than that is skipped. Unset means no deadline.',
    concurrencyPolicy:
      'What to do when a run is due while a job of an earlier run is still going: Allow (the default) runs both, Forbid skips the new run, Replace deletes the running job and starts the new one.',
    suspend: 'While true no new jobs are made; jobs already running go on. Defaults to false.',
    jobTemplate: 'The job made at each scheduled time.',
    successfulJobsHistoryLimit: 'How many jobs that succeeded are kept; older ones are deleted. Defaults to 3.',
    failedJobsHistoryLimit: 'How many jobs that failed are kept; older ones are deleted. Defaults to 1.',
  },
  'When the cron job makes jobs and what they run.',
);

const cronJobStatus = described(
  obj({ active: atomicList(objectReference), lastScheduleTime: time, lastSuccessfulTime: time }),
  {
    active: 'The jobs of this cron job that are running.',
    lastScheduleTime: 'When a job was last made on schedule.',
    lastSuccessfulTime: 'When a job of this cron job last completed successfully.',
  },
  'What the cron job controller last observed.',
);

const schema = described(
  obj({ spec: cronJobSpec, status: cronJobStatus }),
  { spec: 'When the cron job makes jobs and what they run.', status: 'What the cron job controller last observed.' },
  'A cron job: makes a job from a template at each time of a repeating schedule, like a line of a crontab, and keeps a bounded history of the jobs it made.',
);

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const FIELDS: Array<{ min: number; max: number; names?: string[]; question?: boolean }> = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31, question: true },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS, question: true },
];

function cronValue(s: string, f: (typeof FIELDS)[number]): number | undefined {
  if (/^\d+$/.test(s)) return Number(s);
  const i = f.names?.indexOf(s.toUpperCase()) ?? -1;
  return i >= 0 ? i + f.min : undefined;
}

/** Standard 5-field cron (with month/day names, ranges, steps) or an @-descriptor. */
export function cronError(schedule: string): string | undefined {
  const s = schedule.trim();
  if (DESCRIPTORS.includes(s)) return undefined;
  if (s.startsWith('@every ')) return /^@every\s+(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s) ? undefined : `failed to parse duration ${s.slice(7)}`;
  const parts = s.split(/\s+/);
  if (parts.length !== 5) return `expected exactly 5 fields, found ${parts.length}: ${s}`;
  for (let i = 0; i < 5; i++) {
    const f = FIELDS[i]!;
    for (const item of parts[i]!.split(',')) {
      if (f.question && item === '?') continue;
      const [range, step, extra] = item.split('/');
      if (extra !== undefined || (step !== undefined && !/^\d+$/.test(step))) return `failed to parse int from ${step ?? item}`;
      if (range === '*') continue;
      const [lo, hi, more] = range!.split('-');
      if (more !== undefined) return `too many hyphens: ${range}`;
      const a = cronValue(lo!, f);
      const b = hi === undefined ? a : cronValue(hi, f);
      if (a === undefined || b === undefined) return `failed to parse int from ${range}`;
      if (a < f.min || b > f.max || a > b) return `end of range (${b}) above maximum (${f.max}): ${range}`;
    }
  }
  return undefined;
}

function validateCronJob(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs: FieldError[] = [];
  const schedule = spec.schedule;
  if (typeof schedule !== 'string' || !schedule.trim()) errs.push(required('spec.schedule'));
  else if (/^\s*(CRON_)?TZ=/.test(schedule)) errs.push(invalidValue('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  else {
    const e = cronError(schedule);
    if (e) errs.push(invalidValue('spec.schedule', schedule, e));
  }
  if (typeof spec.timeZone === 'string' && (spec.timeZone === '' || /\s|^\.|\.\.|^\//.test(spec.timeZone))) errs.push(invalidValue('spec.timeZone', spec.timeZone, 'unknown time zone'));
  for (const k of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    const v = spec[k];
    if (typeof v === 'number' && v < 0) errs.push(invalidValue(`spec.${k}`, v, 'must be greater than or equal to 0'));
  }
  const jt = asObject(spec.jobTemplate);
  if (!jt) errs.push(required('spec.jobTemplate'));
  else errs.push(...validateJobSpec(jt.spec, 'spec.jobTemplate.spec'));
  return errs;
}

export const cronjobs: ResourceType = {
  group: 'batch',
  versions: [
    { name: 'v1', schema },
    { name: 'v1beta1', schema, deprecation: { since: '1.21', removedIn: '1.25', replacement: 'v1' } },
  ],
  kind: 'CronJob',
  plural: 'cronjobs',
  singular: 'cronjob',
  scope: 'Namespaced',
  shortNames: ['cj'],
  categories: ['all'],
  subresources: { status: true },
  columns: [
    { name: 'Schedule', type: 'string', description: 'The schedule in Cron format', cell: (o) => at(o, 'spec.schedule') ?? '' },
    { name: 'Timezone', type: 'string', description: 'The time zone of the schedule', cell: (o) => at(o, 'spec.timeZone') ?? '<none>' },
    { name: 'Suspend', type: 'boolean', description: 'Whether scheduling is suspended', cell: (o) => at(o, 'spec.suspend') === true },
    { name: 'Active', type: 'integer', description: 'Number of currently running jobs', cell: (o) => asArray(at(o, 'status.active')).length },
    { name: 'Last Schedule', type: 'string', description: 'When the last job was scheduled', cell: (o) => (at(o, 'status.lastScheduleTime') ? since(at(o, 'status.lastScheduleTime')) : '<none>') },
    ageColumn,
    ...wideTemplateColumns('spec.jobTemplate.spec.template'),
  ],
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      setDefault(spec, 'concurrencyPolicy', 'Allow');
      setDefault(spec, 'suspend', false);
      setDefault(spec, 'successfulJobsHistoryLimit', 3);
      setDefault(spec, 'failedJobsHistoryLimit', 1);
      const jt = asObject(spec.jobTemplate);
      const js = asObject(jt?.spec);
      if (js) defaultJobSpec(js);
    },
    validate: validateCronJob,
    validateUpdate: updateValidation(validateCronJob),
  },
};
