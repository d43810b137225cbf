// What a ResourceQuota charges for each object, after upstream's pkg/quota/v1/evaluator/core and
// generic object counting: which quota resource names a type is measured by, what one object uses
// of them, which quota scopes it falls under, and what a pod must declare when its quota limits
// cpu or memory. Shared by the ResourceQuota admission plugin (charging one request) and the
// resource quota controller (recounting a namespace); both read core v1 objects.

import type { ApiObject } from '../api/types.js';
import { brandSpelling, upstreamSpelling } from '../api/groups.js';
import { Quantity, quantityOf } from '../api/quantity.js';
import { validateQualifiedName } from '../api/labels.js';
import { addLists, maxLists, resourceNames, toResourceList, type ResourceList } from './resource-list.js';

export const ResourceQuotaScope = {
  Terminating: 'Terminating',
  NotTerminating: 'NotTerminating',
  BestEffort: 'BestEffort',
  NotBestEffort: 'NotBestEffort',
  PriorityClass: 'PriorityClass',
  CrossNamespacePodAffinity: 'CrossNamespacePodAffinity',
} as const;

export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

type Json = Record<string, any>;

const ONE = () => Quantity.fromInt(1);
const ZERO = () => Quantity.zero();

/** `count/<resource>` or `count/<resource>.<group>`: upstream's object count quota name. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** The group and resource an object count name counts; undefined for any other name. */
export function parseObjectCountName(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  if (!rest || dot === 0) return undefined;
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** The scope requirements a quota's objects must all meet: `spec.scopes` (as Exists) then `spec.scopeSelector`. */
export function quotaScopeSelectors(quota: ApiObject): ScopeRequirement[] {
  const spec = (quota.spec ?? {}) as Json;
  const out: ScopeRequirement[] = [];
  for (const s of Array.isArray(spec.scopes) ? spec.scopes : []) if (typeof s === 'string') out.push({ scopeName: s, operator: 'Exists' });
  for (const e of Array.isArray(spec.scopeSelector?.matchExpressions) ? spec.scopeSelector.matchExpressions : []) {
    if (e && typeof e === 'object') out.push({ scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''), values: Array.isArray(e.values) ? e.values.map(String) : [] });
  }
  return out;
}

/** How one resource is measured for quota (upstream's quota.Evaluator). */
export interface Evaluator {
  readonly group: string;
  readonly resource: string;
  /** Whether admission charges this operation (CREATE for counts; UPDATE too for services and claims). */
  handles(operation: string): boolean;
  /** The names of `names` this evaluator measures. */
  matchingResources(names: readonly string[]): string[];
  /** Whether an object falls under one scope requirement (objects other than pods fall under none). */
  matchesScope(scope: ScopeRequirement, obj: ApiObject): boolean;
  /** Why the object may not be admitted under a quota limiting `required` (pods only), or undefined. */
  constraints(required: readonly string[], obj: ApiObject): string | undefined;
  /** What the object uses. */
  usage(obj: ApiObject, nowMs: number): ResourceList;
  /** Whether an update of a stored object can lower usage (the controller then recounts). */
  usageMayDrop?(oldObj: ApiObject, newObj: ApiObject, nowMs: number): boolean;
}

/** Whether a quota applies to an object: it limits something the evaluator measures and every scope matches. */
export function quotaMatches(quota: ApiObject, obj: ApiObject, e: Evaluator): boolean {
  const hard = toResourceList((quota.status as Json | undefined)?.hard);
  if (e.matchingResources(resourceNames(hard)).length === 0) return false;
  return quotaScopeSelectors(quota).every((s) => e.matchesScope(s, obj));
}

// ---- object counts ------------------------------------------------------------------------------

/** The names one object count is known by: upstream's, its `.k8s.io` spelling for branded groups, a legacy alias. */
function countNames(group: string, resource: string, alias?: string): string[] {
  const names = [objectCountName(group, resource)];
  const upstream = upstreamSpelling(group);
  if (upstream) names.push(objectCountName(upstream, resource));
  if (alias) names.push(alias);
  return names;
}

export function objectCountEvaluator(group: string, resource: string, alias?: string): Evaluator {
  const names = countNames(group, resource, alias);
  return {
    group,
    resource,
    handles: (op) => op === 'CREATE',
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => Object.fromEntries(names.map((n) => [n, ONE()])),
  };
}

// ---- pods ---------------------------------------------------------------------------------------

const POD_RESOURCES = [
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
];
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** Limiting one of these obliges every container to declare it (a historical rule upstream keeps). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);
const NATIVE_PREFIXES = ['platform.io/', 'kubernetes.io/'];

function isNativeResource(name: string): boolean {
  return !name.includes('/') || NATIVE_PREFIXES.some((p) => name.includes(p));
}

/** An extended resource a container may request (`example.com/gpu`). */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return validateQualifiedName(`requests.${name}`).length === 0;
}

/** A quota name for an extended resource: only `requests.<name>` (no overcommit). */
function isExtendedResourceNameForQuota(name: string): boolean {
  return !isNativeResource(name) && name.startsWith('requests.');
}

function containersOf(pod: ApiObject, field: 'containers' | 'initContainers'): Json[] {
  const list = (pod.spec as Json | undefined)?.[field];
  return Array.isArray(list) ? list.filter((c) => c && typeof c === 'object') : [];
}

function resourcesOf(c: Json): { requests: ResourceList; limits: ResourceList } {
  return { requests: toResourceList(c.resources?.requests), limits: toResourceList(c.resources?.limits) };
}

/** What requests and limits amount to in quota names (upstream's podComputeUsageHelper). */
export function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: ONE() };
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (requests[r]) {
      out[r] = requests[r]!;
      out[`requests.${r}`] = requests[r]!;
    }
    if (limits[r]) out[`limits.${r}`] = limits[r]!;
  }
  for (const [name, q] of Object.entries(requests)) {
    if (name.startsWith('hugepages-')) {
      out[name] = q;
      out[`requests.${name}`] = q;
    }
    if (isExtendedResourceName(name)) out[`requests.${name}`] = q;
  }
  return out;
}

/** A pod in a terminal phase, or past its deletion grace, uses no compute (upstream's QuotaV1Pod is the opposite). */
export function podChargedForCompute(pod: ApiObject, nowMs: number): boolean {
  const phase = (pod.status as Json | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const m = pod.metadata;
  if (m.deletionTimestamp && typeof m.deletionGracePeriodSeconds === 'number') {
    const end = Date.parse(m.deletionTimestamp) + m.deletionGracePeriodSeconds * 1000;
    if (nowMs > end) return false;
  }
  return true;
}

export function podUsage(pod: ApiObject, nowMs: number): ResourceList {
  const out: ResourceList = { 'count/pods': ONE() };
  if (!podChargedForCompute(pod, nowMs)) return out;
  let requests: ResourceList = {};
  let limits: ResourceList = {};
  for (const c of containersOf(pod, 'containers')) {
    const r = resourcesOf(c);
    requests = addLists(requests, r.requests);
    limits = addLists(limits, r.limits);
  }
  // Init containers run one at a time before the others: the largest of each counts against the sum.
  for (const c of containersOf(pod, 'initContainers')) {
    const r = resourcesOf(c);
    requests = maxLists(requests, r.requests);
    limits = maxLists(limits, r.limits);
  }
  const overhead = toResourceList((pod.spec as Json | undefined)?.overhead);
  requests = addLists(requests, overhead);
  limits = addLists(limits, overhead);
  return addLists(out, podComputeUsage(requests, limits));
}

/** No container asks for or is limited to any cpu or memory (QoS class BestEffort). */
export function isBestEffort(pod: ApiObject): boolean {
  for (const c of [...containersOf(pod, 'containers'), ...containersOf(pod, 'initContainers')]) {
    const { requests, limits } = resourcesOf(c);
    for (const r of ['cpu', 'memory']) {
      if (requests[r] && requests[r]!.sign() > 0) return false;
      if (limits[r] && limits[r]!.sign() > 0) return false;
    }
  }
  return true;
}

function isTerminating(pod: ApiObject): boolean {
  const d = (pod.spec as Json | undefined)?.activeDeadlineSeconds;
  return typeof d === 'number' && d >= 0;
}

function crossNamespaceTerm(term: Json | undefined): boolean {
  if (!term) return false;
  return (Array.isArray(term.namespaces) && term.namespaces.length > 0) || (term.namespaceSelector !== undefined && term.namespaceSelector !== null);
}

function usesCrossNamespacePodAffinity(pod: ApiObject): boolean {
  const affinity = (pod.spec as Json | undefined)?.affinity;
  if (!affinity) return false;
  for (const a of [affinity.podAffinity, affinity.podAntiAffinity]) {
    if (!a) continue;
    const required: Json[] = Array.isArray(a.requiredDuringSchedulingIgnoredDuringExecution) ? a.requiredDuringSchedulingIgnoredDuringExecution : [];
    const preferred: Json[] = Array.isArray(a.preferredDuringSchedulingIgnoredDuringExecution) ? a.preferredDuringSchedulingIgnoredDuringExecution : [];
    if (required.some(crossNamespaceTerm) || preferred.some((w) => crossNamespaceTerm(w?.podAffinityTerm))) return true;
  }
  return false;
}

/** A scope selector over the pod's priority class, read as a label selector on `{PriorityClass: <name>}`. */
function priorityClassMatches(pod: ApiObject, s: ScopeRequirement): boolean {
  const name = (pod.spec as Json | undefined)?.priorityClassName;
  const has = typeof name === 'string' && name !== '';
  const values = s.values ?? [];
  switch (s.operator) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'In':
      return has && values.includes(name);
    case 'NotIn':
      return !has || !values.includes(name);
    default:
      return false;
  }
}

export function podMatchesScope(s: ScopeRequirement, pod: ApiObject): boolean {
  switch (s.scopeName) {
    case ResourceQuotaScope.Terminating:
      return isTerminating(pod);
    case ResourceQuotaScope.NotTerminating:
      return !isTerminating(pod);
    case ResourceQuotaScope.BestEffort:
      return isBestEffort(pod);
    case ResourceQuotaScope.NotBestEffort:
      return !isBestEffort(pod);
    case ResourceQuotaScope.PriorityClass:
      return priorityClassMatches(pod, s);
    case ResourceQuotaScope.CrossNamespacePodAffinity:
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}

export const podEvaluator: Evaluator = {
  group: '',
  resource: 'pods',
  // Containers' resources cannot change after creation (at 1.24), so only a create is charged.
  handles: (op) => op === 'CREATE',
  matchingResources(input) {
    const out = input.filter((n) => POD_RESOURCES.includes(n));
    for (const n of input) if (POD_RESOURCE_PREFIXES.some((p) => n.startsWith(p)) || isExtendedResourceNameForQuota(n)) out.push(n);
    return out;
  },
  matchesScope: podMatchesScope,
  constraints(required, pod) {
    const wanted = required.filter((n) => VALIDATION_SET.has(n));
    if (!wanted.length) return undefined;
    const missing = new Set<string>();
    for (const c of [...containersOf(pod, 'containers'), ...containersOf(pod, 'initContainers')]) {
      const { requests, limits } = resourcesOf(c);
      const has = podComputeUsage(requests, limits);
      for (const n of wanted) if (!has[n]) missing.add(n);
    }
    return missing.size ? `must specify ${[...missing].sort().join(',')}` : undefined;
  },
  usage: podUsage,
  usageMayDrop: (oldPod, newPod, now) => podChargedForCompute(oldPod, now) && !podChargedForCompute(newPod, now),
};

// ---- services -----------------------------------------------------------------------------------

const SERVICE_RESOURCES = ['count/services', 'services', 'services.nodeports', 'services.loadbalancers'];

function serviceQuotaType(svc: ApiObject): string {
  const t = (svc.spec as Json | undefined)?.type;
  return t === 'NodePort' || t === 'LoadBalancer' ? t : '';
}

export function serviceUsage(svc: ApiObject): ResourceList {
  const spec = (svc.spec ?? {}) as Json;
  const ports: Json[] = Array.isArray(spec.ports) ? spec.ports : [];
  const out: ResourceList = { 'count/services': ONE(), services: ONE(), 'services.loadbalancers': ZERO(), 'services.nodeports': ZERO() };
  if (spec.type === 'NodePort') out['services.nodeports'] = Quantity.fromInt(ports.length);
  if (spec.type === 'LoadBalancer') {
    // Without node ports allocated for it, only the ports that name one explicitly take one.
    const counted = spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => typeof p?.nodePort === 'number' && p.nodePort !== 0).length : ports.length;
    out['services.nodeports'] = Quantity.fromInt(counted);
    out['services.loadbalancers'] = ONE();
  }
  return out;
}

export const serviceEvaluator: Evaluator = {
  group: '',
  resource: 'services',
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) => input.filter((n) => SERVICE_RESOURCES.includes(n)),
  matchesScope: () => false,
  constraints: () => undefined,
  usage: serviceUsage,
  usageMayDrop: (oldSvc, newSvc) => serviceQuotaType(oldSvc) !== serviceQuotaType(newSvc),
};

// ---- persistent volume claims ------------------------------------------------------------------

const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];
/** `<class>.storageclass.storage.platform.io/<resource>`, and upstream's spelling of it. */
export const STORAGE_CLASS_SUFFIXES = ['.storageclass.storage.platform.io/', '.storageclass.storage.k8s.io/'];
const BETA_STORAGE_CLASS_ANNOTATIONS = ['volume.beta.platform.io/storage-class', 'volume.beta.kubernetes.io/storage-class'];

/** The claim's class: the beta annotation first, as upstream reads it, then spec.storageClassName. */
export function claimStorageClass(pvc: ApiObject): string {
  const ann = pvc.metadata.annotations ?? {};
  for (const a of BETA_STORAGE_CLASS_ANNOTATIONS) if (a in ann) return ann[a] ?? '';
  const c = (pvc.spec as Json | undefined)?.storageClassName;
  return typeof c === 'string' ? c : '';
}

export function claimUsage(pvc: ApiObject): ResourceList {
  const out: ResourceList = { persistentvolumeclaims: ONE(), 'count/persistentvolumeclaims': ONE() };
  const cls = claimStorageClass(pvc);
  if (cls) for (const s of STORAGE_CLASS_SUFFIXES) out[`${cls}${s}persistentvolumeclaims`] = ONE();
  const request = (pvc.spec as Json | undefined)?.resources?.requests?.storage;
  if (request !== undefined) {
    const rounded = quantityOf(request).roundUp();
    out['requests.storage'] = rounded;
    if (cls) for (const s of STORAGE_CLASS_SUFFIXES) out[`${cls}${s}requests.storage`] = rounded;
  }
  return out;
}

export const claimEvaluator: Evaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  // An update may resize the claim.
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) =>
    input.filter((n) => n === 'count/persistentvolumeclaims' || PVC_RESOURCES.includes(n) || STORAGE_CLASS_SUFFIXES.some((s) => PVC_RESOURCES.some((r) => n.endsWith(s + r)))),
  matchesScope: () => false,
  constraints: () => undefined,
  usage: claimUsage,
};

// ---- the registry -------------------------------------------------------------------------------

/** Object counts kept under their legacy names too (`secrets` besides `count/secrets`). */
const LEGACY_ALIASES: Record<string, string> = { configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets' };

/** The evaluators with their own rules, and the legacy object counts: what is always known. */
export const coreEvaluators: readonly Evaluator[] = [podEvaluator, serviceEvaluator, claimEvaluator, ...Object.entries(LEGACY_ALIASES).map(([r, alias]) => objectCountEvaluator('', r, alias))];

/** Resources quota never tracks (upstream's ignored resources). */
const IGNORED = new Set(['/events']);

/** Evaluators by group and resource; any other resource is counted, made on first use. */
export class EvaluatorRegistry {
  private readonly byKey = new Map<string, Evaluator>();

  constructor(evaluators: readonly Evaluator[] = coreEvaluators) {
    for (const e of evaluators) this.byKey.set(`${e.group}/${e.resource}`, e);
  }

  /** Undefined for an ignored resource. An upstream group spelling means its branded group. */
  get(group: string, resource: string): Evaluator | undefined {
    const g = brandSpelling(group) ?? group;
    const key = `${g}/${resource}`;
    if (IGNORED.has(key)) return undefined;
    let e = this.byKey.get(key);
    if (!e) this.byKey.set(key, (e = objectCountEvaluator(g, resource)));
    return e;
  }

  list(): Evaluator[] {
    return [...this.byKey.values()];
  }
}
