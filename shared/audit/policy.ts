// The audit policy (`--audit-policy-file`): which requests are recorded and how much of each. The
// file is read strictly once at start-up (unknown fields, levels and stages fail the start with
// their path), then compiled into sets so that evaluating a request is a walk over the rules with
// no allocation: the first rule that matches gives the level; no match records nothing.

import YAML from 'yaml';
import { validDnsSubdomain } from '../api/validation.js';
import { AUDIT_API_VERSIONS, Level, LEVELS, STAGES, stageSet, type Stage, type StageSet } from './types.js';

export interface GroupResources {
  /** '' is the core group, '*' any group. */
  group: string;
  /** `pods`, `pods/log`, `*`, `*\/status`, `deployments/*`; empty: every resource of the group. */
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: Level;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  /** '' matches cluster-scoped requests. */
  namespaces: string[];
  /** Exact paths, `*`, or a prefix ending in `*`. */
  nonResourceURLs: string[];
  omitStages: Stage[];
  /** Unset: the policy's own setting. */
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** What the policy says about one request. */
export interface RequestAuditConfig {
  readonly level: Level;
  readonly omitStages: StageSet;
  readonly omitManagedFields: boolean;
}

/** The request attributes a rule looks at (a RequestInfo has them all). */
export interface AuditAttributes {
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** The authenticated user; undefined when authentication failed (rules naming users never match then). */
export interface AuditSubject {
  readonly username: string;
  readonly groups?: readonly string[];
}

export class AuditPolicyError extends Error {
  override name = 'AuditPolicyError';
}

// ---- parsing ------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const POLICY_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields']);
const RULE_FIELDS = new Set(['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields']);
const GROUP_RESOURCE_FIELDS = new Set(['group', 'resources', 'resourceNames']);

class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }
  unknownFields(o: Obj, known: Set<string>, path: string): void {
    for (const k of Object.keys(o)) if (!known.has(k)) this.add(path || '<root>', `unknown field ${JSON.stringify(k)}`);
  }
  strings(v: unknown, path: string): string[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.add(path, 'must be a list of strings');
      return [];
    }
    const out: string[] = [];
    v.forEach((s, i) => {
      if (typeof s === 'string') out.push(s);
      else this.add(`${path}[${i}]`, 'must be a string');
    });
    return out;
  }
  stages(v: unknown, path: string): Stage[] {
    const out: Stage[] = [];
    this.strings(v, path).forEach((s, i) => {
      if ((STAGES as readonly string[]).includes(s)) out.push(s as Stage);
      else this.add(`${path}[${i}]`, `unknown stage ${JSON.stringify(s)}: the stages are ${STAGES.join(', ')}`);
    });
    return out;
  }
  bool(v: unknown, path: string): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') {
      this.add(path, 'must be true or false');
      return undefined;
    }
    return v;
  }
}

/** Reads a policy file's text (YAML or JSON); throws AuditPolicyError listing every problem. */
export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (err) {
    const pos = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
    throw new AuditPolicyError(`not valid YAML${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new AuditPolicyError('expected a Policy object');
  const p = new Problems();
  p.unknownFields(doc, POLICY_FIELDS, '');
  if (!AUDIT_API_VERSIONS.includes(doc.apiVersion as string)) {
    p.add('apiVersion', `must be one of ${AUDIT_API_VERSIONS.join(', ')}, got ${JSON.stringify(doc.apiVersion ?? '')}`);
  }
  if (doc.kind !== 'Policy') p.add('kind', `must be Policy, got ${JSON.stringify(doc.kind ?? '')}`);
  if (doc.metadata !== undefined && doc.metadata !== null && !isObj(doc.metadata)) p.add('metadata', 'must be an object');
  const policy: Policy = {
    rules: [],
    omitStages: p.stages(doc.omitStages, 'omitStages'),
    omitManagedFields: p.bool(doc.omitManagedFields, 'omitManagedFields') ?? false,
  };
  if (doc.rules !== undefined && doc.rules !== null && !Array.isArray(doc.rules)) p.add('rules', 'must be a list');
  const rules = Array.isArray(doc.rules) ? doc.rules : [];
  rules.forEach((r, i) => {
    const rule = parseRule(r, `rules[${i}]`, p);
    if (rule) policy.rules.push(rule);
  });
  if (p.list.length === 0 && policy.rules.length === 0) p.add('rules', 'a policy needs at least one rule');
  if (p.list.length) throw new AuditPolicyError(p.list.join('; '));
  return policy;
}

function parseRule(r: unknown, path: string, p: Problems): PolicyRule | null {
  if (!isObj(r)) {
    p.add(path, 'must be an object');
    return null;
  }
  p.unknownFields(r, RULE_FIELDS, path);
  let level: Level = Level.None;
  if (r.level === undefined || r.level === null || r.level === '') p.add(`${path}.level`, 'required');
  else if (!(LEVELS as readonly unknown[]).includes(r.level)) p.add(`${path}.level`, `unknown level ${JSON.stringify(r.level)}: the levels are ${LEVELS.join(', ')}`);
  else level = r.level as Level;
  const rule: PolicyRule = {
    level,
    users: p.strings(r.users, `${path}.users`),
    userGroups: p.strings(r.userGroups, `${path}.userGroups`),
    verbs: p.strings(r.verbs, `${path}.verbs`),
    resources: [],
    namespaces: p.strings(r.namespaces, `${path}.namespaces`),
    nonResourceURLs: p.strings(r.nonResourceURLs, `${path}.nonResourceURLs`),
    omitStages: p.stages(r.omitStages, `${path}.omitStages`),
  };
  const omf = p.bool(r.omitManagedFields, `${path}.omitManagedFields`);
  if (omf !== undefined) rule.omitManagedFields = omf;
  if (r.resources !== undefined && r.resources !== null && !Array.isArray(r.resources)) p.add(`${path}.resources`, 'must be a list');
  (Array.isArray(r.resources) ? r.resources : []).forEach((g, i) => {
    const where = `${path}.resources[${i}]`;
    if (!isObj(g)) return p.add(where, 'must be an object');
    p.unknownFields(g, GROUP_RESOURCE_FIELDS, where);
    const group = g.group ?? '';
    if (typeof group !== 'string') return p.add(`${where}.group`, 'must be a string');
    // A group is a DNS subdomain; `rbac.authorization.platform.io/v1` (a version) is a common mistake.
    if (group !== '' && group !== '*' && !validDnsSubdomain(group)) p.add(`${where}.group`, `${JSON.stringify(group)} is not a group name (a DNS subdomain, without a version)`);
    const gr: GroupResources = { group, resources: p.strings(g.resources, `${where}.resources`), resourceNames: p.strings(g.resourceNames, `${where}.resourceNames`) };
    if (gr.resourceNames.length && !gr.resources.length) p.add(`${where}.resourceNames`, 'resourceNames need at least one resource');
    rule.resources.push(gr);
  });
  rule.nonResourceURLs.forEach((u, i) => {
    if (u === '*') return;
    if (!u.startsWith('/')) p.add(`${path}.nonResourceURLs[${i}]`, `${JSON.stringify(u)} must begin with "/"`);
    if (u.slice(0, -1).includes('*')) p.add(`${path}.nonResourceURLs[${i}]`, `${JSON.stringify(u)}: "*" may only be the last character`);
  });
  if (rule.nonResourceURLs.length && (rule.resources.length || rule.namespaces.length)) {
    p.add(`${path}.nonResourceURLs`, 'a rule cannot apply to both resources (resources, namespaces) and non-resource URLs');
  }
  return rule;
}

// ---- evaluation ---------------------------------------------------------------------------------

interface CompiledGroupResources {
  group: string;
  resources: readonly string[];
  names: ReadonlySet<string> | null;
}

interface CompiledRule {
  users: ReadonlySet<string> | null;
  groups: ReadonlySet<string> | null;
  verbs: ReadonlySet<string> | null;
  namespaces: ReadonlySet<string> | null;
  resources: readonly CompiledGroupResources[];
  urls: readonly string[];
  config: RequestAuditConfig;
}

const setOrNull = (l: readonly string[]): ReadonlySet<string> | null => (l.length ? new Set(l) : null);

export class PolicyChecker {
  private readonly rules: readonly CompiledRule[];
  private readonly unmatched: RequestAuditConfig;

  constructor(policy: Policy) {
    this.unmatched = Object.freeze({ level: Level.None, omitStages: stageSet(policy.omitStages), omitManagedFields: policy.omitManagedFields });
    this.rules = policy.rules.map((r) => ({
      users: setOrNull(r.users),
      groups: setOrNull(r.userGroups),
      verbs: setOrNull(r.verbs),
      namespaces: setOrNull(r.namespaces),
      resources: r.resources.map((g) => ({ group: g.group, resources: g.resources, names: setOrNull(g.resourceNames) })),
      urls: r.nonResourceURLs,
      // A stage the policy omits is omitted by every rule, whatever the rule lists.
      config: Object.freeze({
        level: r.level,
        omitStages: stageSet([...policy.omitStages, ...r.omitStages]),
        omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields,
      }),
    }));
  }

  /** The first matching rule's level and options; level None when no rule matches. */
  evaluate(user: AuditSubject | undefined, a: AuditAttributes): RequestAuditConfig {
    for (const r of this.rules) if (matches(r, user, a)) return r.config;
    return this.unmatched;
  }
}

function matches(r: CompiledRule, user: AuditSubject | undefined, a: AuditAttributes): boolean {
  if (r.users && (!user || !r.users.has(user.username))) return false;
  if (r.groups && (!user || !user.groups?.some((g) => r.groups!.has(g)))) return false;
  if (r.verbs && !r.verbs.has(a.verb)) return false;
  if (r.namespaces || r.resources.length) return matchesResource(r, a);
  if (r.urls.length) return !a.isResourceRequest && r.urls.some((u) => pathMatches(a.path, u));
  return true;
}

function matchesResource(r: CompiledRule, a: AuditAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // Cluster-scoped requests have the namespace '', which a rule names as "".
  if (r.namespaces && !r.namespaces.has(a.namespace)) return false;
  if (!r.resources.length) return true;
  const sub = a.subresource;
  const combined = sub ? `${a.resource}/${sub}` : a.resource;
  for (const g of r.resources) {
    if (g.group !== a.apiGroup && g.group !== '*') continue;
    if (!g.resources.length) return true;
    if (g.names && !g.names.has(a.name)) continue;
    for (const res of g.resources) {
      if (res === '*' || res === combined) return true;
      if (sub && res.startsWith('*/') && res.slice(2) === sub) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.slice(0, -1));
}
