// Pure RBAC matching: does one policy rule allow one request, does one binding subject name one
// user. Everything here is exact, case-sensitive string comparison plus the documented
// wildcards; there are no deny rules, so "no match" is the only negative answer.
//
// Stored objects are read tolerantly (`readRules`, `readSubjects`, `readRoleRef`): a malformed
// entry grants nothing instead of breaking every decision.

import type { AuthzAttributes, PolicyRule } from '../../../shared/bus/messages.js';
import type { UserInfo } from '../../../shared/api/types.js';
import { exactGroupNames, isRbacGroupName, RBAC_GROUP, type CanonicalGroup } from '../../../shared/api/groups.js';

export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;
export const ALL = '*';
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

export interface Subject {
  kind: string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface RoleRef {
  kind: string;
  name: string;
  apiGroup?: string;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

// ---- one rule against one request ----

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs) if (v === ALL || v === verb) return true;
  return false;
}

/** `""` is the core group; `*` any group. */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === ALL || g === group) return true;
  return false;
}

/**
 * `*` matches every resource and sub-resource; `pods` only the resource itself; `pods/log` one
 * sub-resource; `*\/scale` that sub-resource of any resource; `pods/*` any sub-resource of pods
 * (never pods itself).
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL) return true;
    if (!subresource) {
      if (r === resource) return true;
      continue;
    }
    const slash = r.indexOf('/');
    if (slash < 0) continue;
    const rr = r.slice(0, slash);
    const rs = r.slice(slash + 1);
    if ((rr === ALL || rr === resource) && (rs === ALL || rs === subresource)) return true;
  }
  return false;
}

/** A rule naming objects allows only requests for one of those names: never a list, watch or
 *  create without a name. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  if (!name) return false;
  return names.includes(name);
}

/** Exact path, `*`, or a `prefix*` covering every path that starts with the prefix. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

export function ruleAllows(rule: PolicyRule, attrs: AuthzAttributes): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.isResourceRequest) return nonResourceURLMatches(rule, attrs.path);
  return apiGroupMatches(rule, attrs.apiGroup ?? '') && resourceMatches(rule, attrs.resource ?? '', attrs.subresource ?? '') && resourceNameMatches(rule, attrs.name ?? '');
}

// ---- subjects ----

/** User and Group subjects live in the RBAC group, in either spelling (the API defaults an absent one). */
function rbacApiGroup(s: Subject): boolean {
  return s.apiGroup === undefined || isRbacGroupName(s.apiGroup);
}

/**
 * The user name or group a subject stands for, as an index key (`U:<user>` / `G:<group>`), or null
 * when it can name nobody. A ServiceAccount is the user `system:serviceaccount:<ns>:<name>`; in a
 * RoleBinding its namespace defaults to the binding's, in a ClusterRoleBinding it must be given.
 */
export function subjectKey(s: Subject, bindingNamespace: string): string | null {
  switch (s.kind) {
    case 'User':
      return rbacApiGroup(s) ? userKey(s.name) : null;
    case 'Group':
      return rbacApiGroup(s) ? groupKey(s.name) : null;
    case 'ServiceAccount': {
      if (s.apiGroup !== undefined && s.apiGroup !== '') return null;
      const ns = s.namespace || bindingNamespace;
      return ns ? userKey(serviceAccountUsername(ns, s.name)) : null;
    }
    default:
      return null;
  }
}

export function userKey(username: string): string {
  return `U:${username}`;
}

export function groupKey(group: string): string {
  return `G:${group}`;
}

export function subjectMatches(s: Subject, user: UserInfo, bindingNamespace: string): boolean {
  const key = subjectKey(s, bindingNamespace);
  if (key === null) return false;
  if (key === userKey(user.username)) return true;
  return key.startsWith('G:') && (user.groups ?? []).includes(key.slice(2));
}

// ---- reading stored objects ----

function strings(v: unknown): string[] | null {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return null;
  return v as string[];
}

/**
 * One rule as stored, or null when it is malformed. Empty lists are dropped; each group is read as
 * the group it names (`canonicalGroup`: an upstream spelling is its branded group when aliases are served).
 */
export function readRule(raw: unknown, canonicalGroup: CanonicalGroup = exactGroupNames): PolicyRule | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  const verbs = strings(r.verbs);
  const apiGroups = strings(r.apiGroups);
  const resources = strings(r.resources);
  const resourceNames = strings(r.resourceNames);
  const nonResourceURLs = strings(r.nonResourceURLs);
  if (!verbs || !apiGroups || !resources || !resourceNames || !nonResourceURLs) return null;
  const rule: PolicyRule = { verbs };
  if (apiGroups.length) rule.apiGroups = canonicalGroup === exactGroupNames ? apiGroups : [...new Set(apiGroups.map(canonicalGroup))];
  if (resources.length) rule.resources = resources;
  if (resourceNames.length) rule.resourceNames = resourceNames;
  if (nonResourceURLs.length) rule.nonResourceURLs = nonResourceURLs;
  return rule;
}

/** The well-formed rules of a stored `rules` field; malformed ones are skipped (they grant nothing). */
export function readRules(raw: unknown, canonicalGroup: CanonicalGroup = exactGroupNames): PolicyRule[] {
  if (!Array.isArray(raw)) return [];
  const out: PolicyRule[] = [];
  for (const r of raw) {
    const rule = readRule(r, canonicalGroup);
    if (rule) out.push(rule);
  }
  return out;
}

export function readSubjects(raw: unknown, canonicalGroup: CanonicalGroup = exactGroupNames): Subject[] {
  if (!Array.isArray(raw)) return [];
  const out: Subject[] = [];
  for (const s of raw) {
    if (!s || typeof s !== 'object') continue;
    const o = s as Record<string, unknown>;
    if (typeof o.kind !== 'string' || typeof o.name !== 'string' || !o.name) continue;
    const sub: Subject = { kind: o.kind, name: o.name };
    if (typeof o.apiGroup === 'string') sub.apiGroup = canonicalGroup(o.apiGroup);
    if (typeof o.namespace === 'string') sub.namespace = o.namespace;
    out.push(sub);
  }
  return out;
}

export function readRoleRef(raw: unknown): RoleRef | null {
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as Record<string, unknown>;
  if (typeof o.kind !== 'string' || typeof o.name !== 'string' || !o.name) return null;
  const ref: RoleRef = { kind: o.kind, name: o.name };
  if (typeof o.apiGroup === 'string') ref.apiGroup = o.apiGroup;
  return ref;
}

/** A canonical string of a rule, for equality and de-duplication (field order fixed). */
export function ruleKey(r: PolicyRule): string {
  return JSON.stringify([r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
}
