// What a LimitRange does to a pod or claim, after upstream's plugin/pkg/admission/limitranger:
// container defaults (`default` → limits, `defaultRequest` → requests) filled into containers and
// init containers that lack them, with the `platform.io/limit-ranger` annotation saying what was
// set; and min, max and maxLimitRequestRatio checked per Container, per Pod (containers summed,
// the largest init container counted against the sum, overhead added) and per claim's storage
// request, with upstream's messages. Pure: objects are core v1 JSON.

import type { ApiObject } from '../../../../shared/api/types.js';
import { MAX_MILLI_VALUE, Quantity } from '../../../../shared/api/quantity.js';
import { toResourceList, type ResourceList } from '../../../../shared/quota/resource-list.js';

export const LIMIT_RANGER_ANNOTATION = 'platform.io/limit-ranger';

type Json = Record<string, any>;

interface LimitItem {
  type: string;
  min: ResourceList;
  max: ResourceList;
  default: ResourceList;
  defaultRequest: ResourceList;
  maxLimitRequestRatio: ResourceList;
}

function limitItems(lr: ApiObject): LimitItem[] {
  const limits = (lr.spec as Json | undefined)?.limits;
  return (Array.isArray(limits) ? limits : [])
    .filter((l): l is Json => Boolean(l) && typeof l === 'object')
    .map((l) => ({
      type: String(l.type ?? ''),
      min: toResourceList(l.min),
      max: toResourceList(l.max),
      default: toResourceList(l.default),
      defaultRequest: toResourceList(l.defaultRequest),
      maxLimitRequestRatio: toResourceList(l.maxLimitRequestRatio),
    }));
}

function containers(pod: ApiObject, field: 'containers' | 'initContainers'): Json[] {
  const list = (pod.spec as Json | undefined)?.[field];
  return Array.isArray(list) ? list.filter((c): c is Json => Boolean(c) && typeof c === 'object') : [];
}

/** Fills one container's missing requests and limits; what it set, as the annotation words it. */
function mergeContainer(c: Json, requests: ResourceList, limits: ResourceList, kind: string): string[] {
  const res: Json = c.resources && typeof c.resources === 'object' ? c.resources : {};
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(limits)) {
    if (res.limits && typeof res.limits === 'object' && k in res.limits) continue;
    (res.limits ??= {})[k] = v.toString();
    setLimits.push(k);
  }
  for (const [k, v] of Object.entries(requests)) {
    if (res.requests && typeof res.requests === 'object' && k in res.requests) continue;
    (res.requests ??= {})[k] = v.toString();
    setRequests.push(k);
  }
  if (setLimits.length || setRequests.length) c.resources = res;
  const out: string[] = [];
  if (setRequests.length) out.push(`${setRequests.sort().join(', ')} request for ${kind} ${String(c.name ?? '')}`);
  if (setLimits.length) out.push(`${setLimits.sort().join(', ')} limit for ${kind} ${String(c.name ?? '')}`);
  return out;
}

/** Applies one LimitRange's container defaults to a pod in place; true when something was set. */
export function applyContainerDefaults(lr: ApiObject, pod: ApiObject): boolean {
  let requests: ResourceList = {};
  let limits: ResourceList = {};
  for (const item of limitItems(lr)) {
    if (item.type !== 'Container') continue;
    requests = { ...requests, ...item.defaultRequest };
    limits = { ...limits, ...item.default };
  }
  if (!Object.keys(requests).length && !Object.keys(limits).length) return false;
  const notes = [
    ...containers(pod, 'containers').flatMap((c) => mergeContainer(c, requests, limits, 'container')),
    ...containers(pod, 'initContainers').flatMap((c) => mergeContainer(c, requests, limits, 'init container')),
  ];
  if (!notes.length) return false;
  (pod.metadata.annotations ??= {})[LIMIT_RANGER_ANNOTATION] = `LimitRanger plugin set: ${notes.join('; ')}`;
  return true;
}

// ---- constraints --------------------------------------------------------------------------------

/** Request, limit and bound at a common precision: thousandths when none is too large, else whole units. */
function comparable(req: Quantity | undefined, lim: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const zero = Quantity.zero();
  const [r, l, e] = [req ?? zero, lim ?? zero, enforced];
  if (r.value() <= MAX_MILLI_VALUE && l.value() <= MAX_MILLI_VALUE && e.value() <= MAX_MILLI_VALUE) return [r.milliValue(), l.milliValue(), e.milliValue()];
  return [r.value(), l.value(), e.value()];
}

function minConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests[name];
  const lim = limits[name];
  const [r, l, e] = comparable(req, lim, enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${enforced}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${enforced}, but request is ${req}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${enforced}, but limit is ${lim}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests[name];
  const lim = limits[name];
  const [r, l, e] = comparable(req, lim, enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${enforced}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${enforced}, but limit is ${lim}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${enforced}, but request is ${req}`;
  return undefined;
}

/** Max for what only has requests (claims). */
function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList): string | undefined {
  const req = requests[name];
  const [r, , e] = comparable(req, undefined, enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${enforced}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${enforced}, but request is ${req}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests[name];
  const lim = limits[name];
  const [r, l] = comparable(req, lim, enforced);
  if (!req || r === 0n) return `${name} max limit to request ratio per ${type} is ${enforced}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${name} max limit to request ratio per ${type} is ${enforced}, but no limit is specified or limit is 0`;
  const shown = Number(l) / Number(r);
  let observed = shown;
  let allowed = Number(enforced.value());
  if (enforced.value() <= MAX_MILLI_VALUE) {
    observed *= 1000;
    allowed = Number(enforced.milliValue());
  }
  if (observed > allowed) return `${name} max limit to request ratio per ${type} is ${enforced}, but provided ratio is ${shown.toFixed(6)}`;
  return undefined;
}

const sortedEntries = (list: ResourceList) => Object.entries(list).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function checkItem(item: LimitItem, requests: ResourceList, limits: ResourceList, errs: string[]): void {
  for (const [k, v] of sortedEntries(item.min)) push(errs, minConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.max)) push(errs, maxConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) push(errs, ratioConstraint(item.type, k, v, requests, limits));
}

function push(errs: string[], e: string | undefined): void {
  if (e) errs.push(e);
}

function resources(c: Json): { requests: ResourceList; limits: ResourceList } {
  return { requests: toResourceList(c.resources?.requests), limits: toResourceList(c.resources?.limits) };
}

/** Each resource every container names, summed (upstream 1.24 leaves out what one container lacks). */
function sumAll(lists: ResourceList[]): ResourceList {
  const out: ResourceList = {};
  if (!lists.length) return out;
  for (const k of Object.keys(lists[0]!)) {
    if (!lists.every((l) => l[k])) continue;
    out[k] = lists.reduce((acc, l) => acc.add(l[k]!), Quantity.zero());
  }
  return out;
}

/** What the pod as a whole requests and is limited to, as the Pod limit type sees it. */
export function podTotals(pod: ApiObject): { requests: ResourceList; limits: ResourceList } {
  const main = containers(pod, 'containers').map(resources);
  const requests = sumAll(main.map((m) => m.requests));
  const limits = sumAll(main.map((m) => m.limits));
  for (const init of containers(pod, 'initContainers').map(resources)) {
    for (const [k, v] of Object.entries(init.requests)) if (!requests[k] || v.cmp(requests[k]!) > 0) requests[k] = v;
    for (const [k, v] of Object.entries(init.limits)) if (!limits[k] || v.cmp(limits[k]!) > 0) limits[k] = v;
  }
  for (const [k, v] of Object.entries(toResourceList((pod.spec as Json | undefined)?.overhead))) {
    requests[k] = requests[k] ? requests[k]!.add(v) : v;
    limits[k] = limits[k] ? limits[k]!.add(v) : v;
  }
  return { requests, limits };
}

/** Upstream's aggregate error text: one message alone, several (de-duplicated) in brackets. */
export function aggregate(errs: string[]): string | undefined {
  const unique = [...new Set(errs)];
  if (!unique.length) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** Why one LimitRange refuses a pod, or undefined. */
export function validatePodLimits(lr: ApiObject, pod: ApiObject): string | undefined {
  const errs: string[] = [];
  for (const item of limitItems(lr)) {
    if (item.type === 'Container') {
      for (const c of [...containers(pod, 'containers'), ...containers(pod, 'initContainers')]) {
        const { requests, limits } = resources(c);
        checkItem(item, requests, limits, errs);
      }
    }
    if (item.type === 'Pod') {
      const { requests, limits } = podTotals(pod);
      checkItem(item, requests, limits, errs);
    }
  }
  return aggregate(errs);
}

/** Why one LimitRange refuses a claim's storage request, or undefined. */
export function validateClaimLimits(lr: ApiObject, pvc: ApiObject): string | undefined {
  const errs: string[] = [];
  const requests = toResourceList((pvc.spec as Json | undefined)?.resources?.requests);
  for (const item of limitItems(lr)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min)) push(errs, minConstraint(item.type, k, v, requests, {}));
    for (const [k, v] of sortedEntries(item.max)) push(errs, maxRequestConstraint(item.type, k, v, requests));
  }
  return aggregate(errs);
}

/** The limit types a LimitRange has rules for. */
export function limitRangeTypes(lr: ApiObject): Set<string> {
  return new Set(limitItems(lr).map((i) => i.type));
}
