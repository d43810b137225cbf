// ResourceQuotas: per-namespace totals; `status.used` is maintained by the quota controller.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { invalidValue, required } from '../../../api/field-errors.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray, asObject } from '../common/field-errors.js';
import { atomicList, described, obj, quantityMap, str, strEnum } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { isStandardQuotaResourceName, sortedResourceEntries, validateQuotaResourceName, validateResourceQuantity } from './resource-names.js';

const scopeRequirement = described(
  obj({ scopeName: str, operator: strEnum('In', 'NotIn', 'Exists', 'DoesNotExist'), values: atomicList(str) }, ['scopeName', 'operator']),
  {
    scopeName: 'Scope the expression tests: Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass or CrossNamespacePodAffinity.',
    operator: 'In, NotIn, Exists or DoesNotExist. Every scope but PriorityClass takes Exists only.',
    values: 'Values for In and NotIn, at least one (for PriorityClass: names of priority classes); must be empty for Exists and DoesNotExist.',
  },
  'One condition on a scope of the objects a quota counts.',
);

const scopeSelector = described(
  obj({ matchExpressions: atomicList(scopeRequirement) }, undefined, { 'x-kubernetes-map-type': 'atomic' }),
  { matchExpressions: 'The conditions; an object is counted only when it meets all of them.' },
  'Which objects a quota counts, as conditions on scopes.',
);

const resourceNamesText = 'compute (requests.cpu, limits.memory), storage (requests.storage), and object counts (pods, services, `count/<resource>.<group>`)';

const schema = described(
  obj({
    spec: described(
      obj({ hard: quantityMap, scopes: atomicList(str), scopeSelector }),
      {
        hard: `Most of each resource, by name, that the objects of the namespace may use together: ${resourceNamesText}.`,
        scopes:
          'Count only objects in every listed scope: Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass or CrossNamespacePodAffinity. Opposite scopes cannot be combined, and the list cannot change after creation.',
        scopeSelector: 'Count only objects that meet these conditions on scopes; the same as scopes, with values for PriorityClass.',
      },
      'The limits of a quota and which objects it counts.',
    ),
    status: described(
      obj({ hard: quantityMap, used: quantityMap }),
      {
        hard: 'The limits in force, copied from spec.hard by the resource quota controller.',
        used: 'How much of each limited resource the namespace uses now. The ResourceQuota admission plugin adds to it as objects are created and rejects requests that would go over hard; the resource quota controller recounts it.',
      },
      'The limits in force and what the namespace uses of them.',
    ),
  }),
  { spec: 'The limits and which objects they count.', status: 'The limits in force and current usage, kept by the resource quota controller.' },
  'Limits on the total resources and object counts of one namespace. The ResourceQuota admission plugin rejects a request that would go over a limit; the resource quota controller keeps the usage in status.',
);

/** `cpu: 100m/1, pods: 2/10`: used against hard, split into request and limit columns. */
function usage(o: ApiObject, limits: boolean): string {
  const hard = asObject(asObject(o.status)?.hard) ?? asObject(asObject(o.spec)?.hard) ?? {};
  const used = asObject(asObject(o.status)?.used) ?? {};
  return Object.keys(hard)
    .sort()
    .filter((k) => k.startsWith('limits.') === limits)
    .map((k) => `${k}: ${String(used[k] ?? 0)}/${String(hard[k])}`)
    .join(', ');
}

const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const POD_COUNT = new Set(['pods']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const CONFLICTING = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];

/** Which standard resources a scope may limit: pod counts and pod compute (BestEffort: counts only). */
function scopeValidFor(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return POD_COUNT.has(resource);
  if (SCOPES.includes(scope)) return POD_COUNT.has(resource) || POD_COMPUTE.has(resource);
  return true;
}

function unsupportedForHard(scope: string, hard: string[]): boolean {
  return hard.some((k) => isStandardQuotaResourceName(k) && !scopeValidFor(scope, k));
}

function validateResourceMap(raw: unknown, path: string): FieldError[] {
  return sortedResourceEntries(raw).flatMap(([k, v]) => [...validateQuotaResourceName(k, `${path}[${k}]`), ...validateResourceQuantity(k, v, `${path}[${k}]`)]);
}

function validateResourceQuota(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const status = asObject(o.status) ?? {};
  const errs = validateResourceMap(spec.hard, 'spec.hard');
  const hard = Object.keys(asObject(spec.hard) ?? {}).sort();
  const scopes = asArray(spec.scopes).map(String);
  const scopeSet = new Set<string>();
  for (const scope of scopes) {
    if (!SCOPES.includes(scope)) errs.push(invalidValue('spec.scopes', scopes, 'unsupported scope'));
    if (unsupportedForHard(scope, hard)) errs.push(invalidValue('spec.scopes', scopes, 'unsupported scope applied to resource'));
    scopeSet.add(scope);
  }
  if (CONFLICTING.some((pair) => pair.every((s) => scopeSet.has(s)))) errs.push(invalidValue('spec.scopes', scopes, 'conflicting scopes'));

  const selector = asObject(spec.scopeSelector);
  const exprPath = 'spec.scopeSelector.matchExpressions';
  const selected = new Set<string>();
  for (const raw of asArray(selector?.matchExpressions)) {
    const req = asObject(raw) ?? {};
    const name = String(req.scopeName ?? '');
    const op = String(req.operator ?? '');
    const values = asArray(req.values);
    if (!SCOPES.includes(name)) errs.push(invalidValue(`${exprPath}.scopeName`, name, 'unsupported scope'));
    if (unsupportedForHard(name, hard)) errs.push(invalidValue(exprPath, selector, 'unsupported scope applied to resource'));
    if (['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'].includes(name) && op !== 'Exists') {
      errs.push(
        invalidValue(
          `${exprPath}.operator`,
          op,
          "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    if (op === 'In' || op === 'NotIn') {
      if (!values.length) errs.push(required(`${exprPath}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length) errs.push(invalidValue(`${exprPath}.values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else errs.push(invalidValue(`${exprPath}.operator`, op, 'not a valid selector operator'));
    selected.add(name);
  }
  if (CONFLICTING.some((pair) => pair.every((s) => selected.has(s)))) errs.push(invalidValue(exprPath, scopes, 'conflicting scopes'));

  errs.push(...validateResourceMap(status.hard, 'status.hard'), ...validateResourceMap(status.used, 'status.used'));
  return errs;
}

function validateScopesUnchanged(o: ApiObject, old: ApiObject): FieldError[] {
  const now = new Set(asArray(asObject(o.spec)?.scopes).map(String));
  const before = new Set(asArray(asObject(old.spec)?.scopes).map(String));
  const same = now.size === before.size && [...now].every((s) => before.has(s));
  return same ? [] : [invalidValue('spec.scopes', asObject(o.spec)?.scopes ?? null, 'field is immutable')];
}

export const resourcequotas: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  returnDeletedObject: true,
  singular: 'resourcequota',
  scope: 'Namespaced',
  shortNames: ['quota'],
  subresources: { status: true },
  strategy: {
    validate: validateResourceQuota,
    validateUpdate: updateValidation(validateResourceQuota, validateScopesUnchanged),
  },
  columns: [
    ageColumn,
    { name: 'Request', type: 'string', description: 'Request represents a minimum amount of cpu/memory that a container may consume.', cell: (o) => usage(o, false) },
    { name: 'Limit', type: 'string', description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', cell: (o) => usage(o, true) },
  ],
};
