// The decision for one request against the quotas of its namespace, after upstream's CheckRequest
// (plugin/pkg/admission/resourcequota/controller.go): which quotas apply, what the object must
// declare for them, what the request adds to each one's usage, and the refusal when that would go
// over a hard limit. Pure: the caller reads the quotas and writes back the new usage.

import type { ApiObject } from '../../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import { quotaMatches, quotaScopeSelectors, type Evaluator, type ScopeRequirement } from '../../../../shared/quota/evaluators.js';
import {
  addLists,
  lessThanOrEqual,
  maskList,
  negativeNames,
  prettyPrint,
  prettyPrintNames,
  removeZeros,
  resourceNames,
  subtractNonNegative,
  toResourceList,
  type ResourceList,
} from '../../../../shared/quota/resource-list.js';

/** One quota as the check sees it: its object and the usage charged so far in this round. */
export interface QuotaView {
  object: ApiObject;
  hard: ResourceList;
  used: ResourceList;
}

export function quotaView(object: ApiObject): QuotaView {
  const status = (object.status ?? {}) as Record<string, unknown>;
  return { object, hard: toResourceList(status.hard), used: toResourceList(status.used) };
}

/** A resource whose consumption needs a covering quota (the plugin's `limitedResources`). */
export interface LimitedResource {
  apiGroup: string;
  resource: string;
  matchContains: string[];
  matchScopes: ScopeRequirement[];
}

/** Why the request is refused: the text after `<resource> "<name>" is forbidden: `. */
export class QuotaDenied extends Error {}

/** Go's %v of scope requirements: `[{PriorityClass In [a b]}]`. */
function goScopes(scopes: ScopeRequirement[]): string {
  return `[${scopes.map((s) => `{${s.scopeName} ${s.operator} [${(s.values ?? []).join(' ')}]}`).join(' ')}]`;
}

/** Whether the quota has recorded usage for every resource of `restricted` that it limits. */
function hasUsageStats(q: QuotaView, restricted: readonly string[]): boolean {
  return restricted.every((n) => !q.hard[n] || q.used[n] !== undefined);
}

/**
 * The usage of each quota after admitting the request (the same objects where nothing changes),
 * or a QuotaDenied. `quotas` are not changed.
 */
export function checkRequest(quotas: readonly QuotaView[], req: AdmissionRequest, e: Evaluator, limited: readonly LimitedResource[], nowMs: number): QuotaView[] {
  const obj = req.object!;
  const forThis = limited.filter((l) => l.apiGroup === req.resource.group && l.resource === req.resource.resource);
  const limitedScopes = forThis.flatMap((l) => l.matchScopes.filter((s) => e.matchesScope(s, obj)));
  let limitedNames: string[] = [];
  if (forThis.length) {
    const usage = e.usage(obj, nowMs);
    limitedNames = resourceNames(usage).filter((n) => forThis.some((l) => l.matchContains.some((c) => n.includes(c))));
  }

  const interesting: number[] = [];
  const restrictedNames = new Set<string>();
  const restrictedScopes: ScopeRequirement[] = [];
  quotas.forEach((q, i) => {
    const name = q.object.metadata.name ?? '';
    restrictedScopes.push(...quotaScopeSelectors(q.object).filter((s) => e.matchesScope(s, obj)));
    if (!quotaMatches(q.object, obj, e)) return;
    const restricted = e.matchingResources(resourceNames(q.hard));
    const why = e.constraints(restricted, obj);
    if (why) throw new QuotaDenied(`failed quota: ${name}: ${why}`);
    if (!hasUsageStats(q, restricted)) throw new QuotaDenied(`status unknown for quota: ${name}, resources: ${prettyPrintNames(restricted)}`);
    interesting.push(i);
    for (const n of restricted) restrictedNames.add(n);
  });

  let delta = e.usage(obj, nowMs);
  const negative = negativeNames(delta);
  if (negative.length) throw new QuotaDenied(`quota usage is negative for resource(s): ${prettyPrintNames(negative)}`);
  if (req.operation === 'UPDATE') {
    const old = req.oldObject;
    if (!old) throw new QuotaDenied('unable to get previous usage since prior version of object was not found');
    // Charged for the difference only when the old object is really stored (not a create on update).
    if (old.metadata?.resourceVersion) delta = subtractNonNegative(delta, e.usage(old, nowMs));
  }
  delta = removeZeros(delta);
  if (Object.keys(delta).length === 0) return [...quotas];

  const uncovered = limitedNames.filter((n) => !restrictedNames.has(n));
  if (uncovered.length) throw new QuotaDenied(`insufficient quota to consume: ${prettyPrintNames(uncovered)}`);
  const uncoveredScopes = limitedScopes.filter((s) => !restrictedScopes.some((r) => r.scopeName === s.scopeName));
  if (uncoveredScopes.length) throw new QuotaDenied(`insufficient quota to match these scopes: ${goScopes(uncoveredScopes)}`);
  if (!interesting.length) return [...quotas];

  const out = [...quotas];
  for (const i of interesting) {
    const q = quotas[i]!;
    const requested = maskList(delta, resourceNames(q.hard));
    const newUsage = addLists(q.used, requested);
    const { ok, exceeded } = lessThanOrEqual(maskList(newUsage, resourceNames(requested)), q.hard);
    if (!ok) {
      throw new QuotaDenied(
        `exceeded quota: ${q.object.metadata.name ?? ''}, requested: ${prettyPrint(maskList(requested, exceeded))}, used: ${prettyPrint(maskList(q.used, exceeded))}, limited: ${prettyPrint(maskList(q.hard, exceeded))}`,
      );
    }
    out[i] = { ...q, used: newUsage };
  }
  return out;
}
