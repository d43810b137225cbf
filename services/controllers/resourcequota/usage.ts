// What the resource quota controller writes into a quota's status, after upstream's
// CalculateUsage and syncResourceQuota: status.hard is spec.hard; status.used is recounted from the
// namespace's objects for every limited resource some evaluator can measure, keeping the last
// recorded value of any it cannot (its objects not listable right now). Pure.

import type { ApiObject } from '../../../shared/api/types.js';
import { coreEvaluators, objectCountEvaluator, parseObjectCountName, quotaScopeSelectors, type Evaluator } from '../../../shared/quota/evaluators.js';
import { brandSpelling } from '../../../shared/api/groups.js';
import { Quantity } from '../../../shared/api/quantity.js';
import { addLists, equalLists, maskList, resourceListJson, resourceNames, toResourceList, type ResourceList } from '../../../shared/quota/resource-list.js';

type Json = Record<string, unknown>;

/** The evaluators a quota's hard limits need: the core ones it names, and an object count per other `count/…`. */
export function evaluatorsFor(quota: ApiObject): Evaluator[] {
  const hard = resourceNames(toResourceList((quota.spec as Json | undefined)?.hard));
  const out = coreEvaluators.filter((e) => e.matchingResources(hard).length > 0);
  const seen = new Set(out.map((e) => `${e.group}/${e.resource}`));
  for (const name of hard) {
    if (out.some((e) => e.matchingResources([name]).length)) continue;
    const gr = parseObjectCountName(name);
    if (!gr) continue;
    const group = brandSpelling(gr.group) ?? gr.group;
    const key = `${group}/${gr.resource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(objectCountEvaluator(group, gr.resource));
  }
  return out;
}

/** The objects of one evaluator's resource in a namespace; undefined when they cannot be listed now. */
export type ListObjects = (e: Evaluator, namespace: string) => ApiObject[] | undefined;

export interface Recount {
  /** Usage of every resource that could be measured. */
  used: ResourceList;
  /** Resources whose objects could not be listed. */
  unavailable: string[];
}

/** Counts what a quota's namespace uses of the resources it limits (upstream's CalculateUsage). */
export function recount(quota: ApiObject, evaluators: readonly Evaluator[], list: ListObjects, nowMs: number): Recount {
  const ns = quota.metadata.namespace ?? '';
  const hard = resourceNames(toResourceList((quota.spec as Json | undefined)?.hard));
  let matched = new Set(evaluators.flatMap((e) => e.matchingResources(hard)));
  const unavailable: string[] = [];
  const scopes = quotaScopeSelectors(quota);
  let used: ResourceList = {};
  for (const e of evaluators) {
    const names = e.matchingResources([...matched]);
    if (!names.length) continue;
    const items = list(e, ns);
    if (!items) {
      unavailable.push(...names);
      matched = new Set([...matched].filter((n) => !names.includes(n)));
      continue;
    }
    let sum: ResourceList = Object.fromEntries(names.map((n) => [n, Quantity.zero()]));
    for (const item of items) if (scopes.every((s) => e.matchesScope(s, item))) sum = addLists(sum, e.usage(item, nowMs));
    used = addLists(used, sum);
  }
  return { used: maskList(used, matched), unavailable };
}

/** The status a quota should have after a recount, or undefined when it already has it. */
export function nextStatus(quota: ApiObject, counted: ResourceList): { hard: Record<string, string>; used: Record<string, string> } | undefined {
  const spec = (quota.spec ?? {}) as Json;
  const status = (quota.status ?? {}) as Json;
  const hard = toResourceList(spec.hard);
  const oldHard = toResourceList(status.hard);
  const oldUsed = toResourceList(status.used);
  const used = maskList({ ...oldUsed, ...counted }, resourceNames(hard));
  const missing = Object.keys(hard).length > 0 && (status.hard === undefined || status.used === undefined);
  const dirty = missing || !equalLists(hard, oldHard) || !equalLists(used, oldUsed);
  return dirty ? { hard: resourceListJson(hard), used: resourceListJson(used) } : undefined;
}
