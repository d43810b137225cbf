// PodDisruptionBudgets: limits on voluntary evictions of selected pods.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject, at } from '../common/field-errors.js';
import { conditionList, labelSelector, metaCondition } from '../common/meta.js';
import { described, int32, int64, intOrString, obj, strEnum, time } from '../common/schema.js';
import { validateLabelSelector } from '../common/selector.js';
import { updateValidation } from '../common/strategy.js';
import { validateIntOrPercent } from '../apps/deployment.js';
import { invalidValue } from '../../../api/field-errors.js';
import { cloneJson } from '../../../patch/json-value.js';

const pdbSpec = described(
  obj({
    minAvailable: intOrString,
    selector: labelSelector,
    maxUnavailable: intOrString,
    unhealthyPodEvictionPolicy: strEnum('IfHealthyBudget', 'AlwaysAllow'),
  }),
  {
    minAvailable: 'Pods that must stay available after an eviction: a number, or a percentage of the expected pods. Not together with maxUnavailable.',
    selector: 'Pods the budget protects, in its namespace. An empty selector matches every pod in v1 and no pod in v1beta1.',
    maxUnavailable: 'Pods that may be unavailable after an eviction: a number, or a percentage of the expected pods. Not together with minAvailable.',
    unhealthyPodEvictionPolicy:
      'When a running pod that is not ready may be evicted: IfHealthyBudget (the default) only while the budget has its desired healthy pods; AlwaysAllow always, whatever the budget.',
  },
  'Which pods the budget protects and how many of them must stay available.',
);

const pdbStatus = described(
  obj(
    {
      observedGeneration: int64,
      disruptedPods: { type: 'object', additionalProperties: time },
      disruptionsAllowed: int32,
      currentHealthy: int32,
      desiredHealthy: int32,
      expectedPods: int32,
      conditions: conditionList(metaCondition),
    },
    ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'],
  ),
  {
    observedGeneration: 'The metadata.generation the disruption controller last computed the status for. While it is behind, evictions are refused.',
    disruptedPods: 'Pods the eviction subresource allowed to be deleted that the controller has not seen go yet, with the time of the eviction. Pods are added here by the server when it evicts them.',
    disruptionsAllowed: 'How many more pods may be evicted now. The eviction subresource refuses an eviction at 0 and lowers it by one for each one it allows.',
    currentHealthy: 'Selected pods that are ready now.',
    desiredHealthy: 'Ready pods the budget wants at least.',
    expectedPods: 'Pods the budget counts: those the owners of the selected pods want, which percentages are taken of.',
    conditions: 'DisruptionAllowed, among others: whether an eviction would be allowed now, and why not.',
  },
  'What the disruption controller last computed for the budget.',
);

const schema = described(
  obj({ spec: pdbSpec, status: pdbStatus }),
  { spec: 'Which pods are protected and how many must stay available.', status: 'What the disruption controller last computed, updated by evictions too.' },
  'A limit on voluntary disruptions of a set of pods: the eviction subresource of a pod refuses to evict it when that would leave fewer pods available than the budget allows. Deleting a pod directly ignores budgets.',
);

function validatePDB(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push(invalidValue('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  errs.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  errs.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  return errs;
}

// An empty selector matches every pod in v1 and none in v1beta1. Stored objects keep v1's meaning;
// a v1beta1 empty selector is stored as one that needs a label no pod has, and a v1beta1 client
// says "every pod" with a requirement that the label is absent (upstream's conversion).
export const PDB_V1BETA1_LABEL = 'pdb.platform.io/deprecated-v1beta1-empty-selector-match';
const MATCH_NONE = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'Exists' }] };
const V1BETA1_MATCH_ALL = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'DoesNotExist' }] };

type Selector = Record<string, unknown>;

/** Go's semantic equality of two selectors: nil and empty lists and maps are the same. */
function sameSelector(a: unknown, b: Selector): boolean {
  const norm = (s: unknown) => {
    const o = asObject(s) ?? {};
    const labels = asObject(o.matchLabels) ?? {};
    const exprs = Array.isArray(o.matchExpressions) ? o.matchExpressions : [];
    return JSON.stringify([
      labels,
      exprs.map((e) => ({ key: asObject(e)?.key, operator: asObject(e)?.operator, values: (asObject(e)?.values as unknown[] | undefined)?.length ? asObject(e)?.values : [] })),
    ]);
  };
  return asObject(a) !== undefined && norm(a) === norm(b);
}

function withSelector(o: ApiObject, selector: Selector): ApiObject {
  return { ...o, spec: { ...(o.spec as Record<string, unknown>), selector } };
}

/** A selector swapped for another when it is one of the special pair; the object itself otherwise. */
function swapSelector(o: ApiObject, pairs: Array<[from: Selector, to: Selector]>): ApiObject {
  const sel = asObject(o.spec)?.selector;
  for (const [from, to] of pairs) if (sameSelector(sel, from)) return withSelector(o, cloneJson(to));
  return o;
}

const v1beta1ToHub = (o: ApiObject) =>
  swapSelector(o, [
    [{}, MATCH_NONE],
    [V1BETA1_MATCH_ALL, {}],
  ]);
const hubToV1beta1 = (o: ApiObject) =>
  swapSelector(o, [
    [MATCH_NONE, {}],
    [{}, V1BETA1_MATCH_ALL],
  ]);

/** v1 keeps the match-none selector as it is and drops the label's requirements from any other. */
function v1ToHub(o: ApiObject): ApiObject {
  const sel = asObject(asObject(o.spec)?.selector);
  if (!sel || !Array.isArray(sel.matchExpressions) || sameSelector(sel, MATCH_NONE)) return o;
  const kept = sel.matchExpressions.filter((e) => asObject(e)?.key !== PDB_V1BETA1_LABEL);
  if (kept.length === sel.matchExpressions.length) return o;
  const next: Selector = { ...sel, matchExpressions: kept };
  if (!kept.length) delete next.matchExpressions;
  return withSelector(o, next);
}

export const poddisruptionbudgets: ResourceType = {
  group: 'policy',
  versions: [
    { name: 'v1', schema, toHub: v1ToHub },
    { name: 'v1beta1', schema, toHub: v1beta1ToHub, fromHub: hubToV1beta1, deprecation: { since: '1.21', removedIn: '1.25', replacement: 'v1' } },
  ],
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  singular: 'poddisruptionbudget',
  scope: 'Namespaced',
  createOnUpdate: true,
  shortNames: ['pdb'],
  subresources: { status: true },
  columns: [
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available', cell: (o) => String(at(o, 'spec.minAvailable') ?? 'N/A') },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable', cell: (o) => String(at(o, 'spec.maxUnavailable') ?? 'N/A') },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Number of pod disruptions currently allowed', cell: (o) => at(o, 'status.disruptionsAllowed') ?? 0 },
    ageColumn,
  ],
  strategy: {
    validate: validatePDB,
    validateUpdate: updateValidation(validatePDB),
  },
};
