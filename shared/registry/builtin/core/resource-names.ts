// The resource name and quantity rules ResourceQuota and LimitRange validation share, after
// upstream's pkg/apis/core/validation and helper: which names are standard for quota, for
// containers and in general, which must be whole numbers, and that none may be negative.

import type { FieldError } from '../../../api/status.js';
import { invalidValue } from '../../../api/field-errors.js';
import { qualifiedNameProblems } from '../../../api/validation.js';
import { parseQuantity } from '../../../api/quantity.js';
import { isExtendedResourceName } from '../../../quota/evaluators.js';

const STANDARD_RESOURCES = new Set([
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
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

const isQuotaHugePages = (n: string) => n.startsWith('hugepages-') || n.startsWith('requests.hugepages-');

export function isStandardQuotaResourceName(name: string): boolean {
  return STANDARD_QUOTA_RESOURCES.has(name) || isQuotaHugePages(name);
}

function isIntegerResourceName(name: string): boolean {
  return INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
}

/** A qualified name; without a `/`, one of the standard names. */
export function validateResourceName(name: string, field: string): FieldError[] {
  const problems = qualifiedNameProblems(name);
  if (problems.length) return problems.map((p) => invalidValue(field, name, p));
  if (!name.includes('/') && !STANDARD_RESOURCES.has(name) && !isQuotaHugePages(name)) return [invalidValue(field, name, 'must be a standard resource type or fully qualified')];
  return [];
}

export function validateQuotaResourceName(name: string, field: string): FieldError[] {
  const errs = validateResourceName(name, field);
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) errs.push(invalidValue(field, name, 'must be a standard resource for quota'));
  return errs;
}

const NATIVE_PREFIXES = ['platform.io/', 'kubernetes.io/'];

export function validateContainerResourceName(name: string, field: string): FieldError[] {
  const errs = validateResourceName(name, field);
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !name.startsWith('hugepages-')) errs.push(invalidValue(field, name, 'must be a standard resource for containers'));
  } else if (!NATIVE_PREFIXES.some((p) => name.includes(p)) && !isExtendedResourceName(name)) {
    errs.push(invalidValue(field, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** Not negative; a whole number for the counted resources. */
export function validateResourceQuantity(name: string, raw: unknown, field: string): FieldError[] {
  const q = parseQuantity(raw);
  if (!q) return [invalidValue(field, raw, 'must be a valid quantity')];
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(invalidValue(field, q.toString(), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && q.milliValue() % 1000n !== 0n) errs.push(invalidValue(field, q.toString(), 'must be an integer'));
  return errs;
}

/** A resource map's entries in key order (upstream's field paths: `spec.hard[pods]`). */
export function sortedResourceEntries(raw: unknown): Array<[string, unknown]> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [];
  return Object.entries(raw as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
