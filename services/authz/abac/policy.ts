// ABAC policies (`--authorization-policy-file`): parsing the one-JSON-object-per-line file and
// matching a request against it. Pure: the mode factory reads the file, this module never does
// I/O, so the semantics are table-tested without a service.
//
// Semantics follow upstream's ABAC mode:
// - a versioned line (`abac.authorization.platform.io/v1beta1`, kind Policy) carries its fields
//   under `spec`; an unset field is the empty string, which matches only an empty attribute
//   (namespace "" = cluster-scoped, apiGroup "" = core); `*` matches anything;
// - `user: "*"` or `group: "*"` means every *authenticated* subject (group system:authenticated),
//   not anonymous requests: that is how upstream converts them, so that an old "everyone" policy
//   did not silently open the API to anonymous callers once anonymous auth became the default.
//   Anonymous callers are granted with `group: "system:unauthenticated"`;
// - the legacy unversioned line (fields at the top level, upstream's v0) treats unset fields as
//   wildcards, as it did upstream;
// - every policy allows read-only verbs when it matches; `readonly` forbids the others.

import { OptionsError } from '../../../shared/config/options.js';
import type { UserInfo } from '../../../shared/api/types.js';
import type { AuthzAttributes, RulesReviewReply } from '../../../shared/bus/messages.js';

export const ABAC_API_VERSION = 'abac.authorization.platform.io/v1beta1';
export const ABAC_LEGACY_API_VERSION = 'abac.authorization.platform.io/v0';
export const ALL_AUTHENTICATED = 'system:authenticated';

/** One policy after conversion to the matching form (v1beta1 semantics). */
export interface AbacPolicy {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
  /** 1-based line in the policy file, for logs and errors. */
  line: number;
}

/** A policy file that cannot be used; carries the file and line so the operator can fix it. */
export class AbacPolicyError extends OptionsError {
  override name = 'AbacPolicyError';
}

type SpecKey = 'user' | 'group' | 'readonly' | 'apiGroup' | 'resource' | 'namespace' | 'nonResourcePath';
const SPEC_KEYS: readonly SpecKey[] = ['user', 'group', 'readonly', 'apiGroup', 'resource', 'namespace', 'nonResourcePath'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads the spec fields, refusing unknown keys and wrong types: a typo must not widen a grant. */
function readSpec(raw: Record<string, unknown>, ignore: readonly string[]): Omit<AbacPolicy, 'line'> & { set: Set<SpecKey> } {
  const set = new Set<SpecKey>();
  const out = { user: '', group: '', readonly: false, apiGroup: '', resource: '', namespace: '', nonResourcePath: '', set };
  for (const [k, v] of Object.entries(raw)) {
    if (ignore.includes(k)) continue;
    if (!(SPEC_KEYS as readonly string[]).includes(k)) throw new Error(`unknown field ${JSON.stringify(k)}`);
    const key = k as SpecKey;
    if (key === 'readonly') {
      if (typeof v !== 'boolean') throw new Error('field "readonly" must be a boolean');
      out.readonly = v;
    } else {
      if (typeof v !== 'string') throw new Error(`field ${JSON.stringify(key)} must be a string`);
      out[key] = v;
    }
    set.add(key);
  }
  return out;
}

/** Upstream v1beta1 conversion: a `*` subject means every authenticated subject. */
function fromVersioned(spec: Record<string, unknown>, line: number): AbacPolicy {
  const { set: _set, ...p } = readSpec(spec, []);
  if (p.user === '*' || p.group === '*') {
    p.group = ALL_AUTHENTICATED;
    p.user = '';
  }
  return { ...p, line };
}

/** Upstream v0 conversion: unset subject = all authenticated, unset scope = everything. */
function fromLegacy(raw: Record<string, unknown>, line: number): AbacPolicy {
  const { set, ...p } = readSpec(raw, ['apiVersion', 'kind']);
  if ((!p.user && !p.group) || p.user === '*' || p.group === '*') {
    p.group = ALL_AUTHENTICATED;
    p.user = '';
  }
  const scopeUnset = !p.namespace && !p.resource;
  if (!p.namespace) p.namespace = '*';
  if (!p.resource) p.resource = '*';
  // v0 had no API groups: its rules spanned all of them. An explicit field still wins.
  if (!set.has('apiGroup')) p.apiGroup = '*';
  if (!set.has('nonResourcePath') && scopeUnset) p.nonResourcePath = '*';
  return { ...p, line };
}

function parseLine(text: string, line: number): AbacPolicy {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`not a JSON object (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!isRecord(raw)) throw new Error('not a JSON object');
  const { apiVersion, kind } = raw;
  if (apiVersion === undefined && kind === undefined) return fromLegacy(raw, line);
  if (kind !== 'Policy') throw new Error(`kind must be "Policy", got ${JSON.stringify(kind)}`);
  if (apiVersion === ABAC_LEGACY_API_VERSION) return fromLegacy(raw, line);
  if (apiVersion !== ABAC_API_VERSION) throw new Error(`unsupported apiVersion ${JSON.stringify(apiVersion)} (expected ${ABAC_API_VERSION})`);
  for (const k of Object.keys(raw)) {
    if (k !== 'apiVersion' && k !== 'kind' && k !== 'spec') throw new Error(`unknown field ${JSON.stringify(k)} (policy fields belong under "spec")`);
  }
  if (!isRecord(raw.spec)) throw new Error('"spec" must be an object');
  return fromVersioned(raw.spec, line);
}

/** Parses a policy file's text; any bad line fails the whole file, naming the line. */
export function parseAbacPolicies(text: string, file = 'policy file'): AbacPolicy[] {
  const out: AbacPolicy[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i]!.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      out.push(parseLine(trimmed, i + 1));
    } catch (err) {
      throw new AbacPolicyError(`${file}, line ${i + 1}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return out;
}

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

/** Read-only requests; a HEAD of a non-resource path is a read like its GET. */
export function isReadOnly(attrs: AuthzAttributes): boolean {
  return READ_ONLY_VERBS.has(attrs.verb) || (!attrs.isResourceRequest && attrs.verb === 'head');
}

export function subjectMatches(p: AbacPolicy, user: UserInfo): boolean {
  // A policy naming neither a user nor a group matches nobody (there is no implicit "everyone").
  let matched = false;
  if (p.user) {
    if (p.user !== '*' && p.user !== user.username) return false;
    matched = true;
  }
  if (p.group) {
    if (p.group !== '*' && !(user.groups ?? []).includes(p.group)) return false;
    matched = true;
  }
  return matched;
}

const wild = (pattern: string, value: string) => pattern === '*' || pattern === value;

/** `*`, an exact path, or a prefix ending in `*` (`/apis/*`, `/healthz*`). */
export function nonResourcePathMatches(pattern: string, path: string): boolean {
  if (!pattern) return false;
  if (pattern === '*' || pattern === path) return true;
  return pattern.endsWith('*') && path.startsWith(pattern.replace(/\*+$/, ''));
}

export function policyMatches(p: AbacPolicy, attrs: AuthzAttributes): boolean {
  if (!subjectMatches(p, attrs.user)) return false;
  if (p.readonly && !isReadOnly(attrs)) return false;
  if (!attrs.isResourceRequest) return nonResourcePathMatches(p.nonResourcePath, attrs.path);
  return wild(p.namespace, attrs.namespace ?? '') && wild(p.resource, attrs.resource ?? '') && wild(p.apiGroup, attrs.apiGroup ?? '');
}

const verbsOf = (p: AbacPolicy) => (p.readonly ? ['get', 'list', 'watch'] : ['*']);

/** The policies that apply to `user` in `namespace`, as rules (SelfSubjectRulesReview). */
export function abacRulesFor(policies: readonly AbacPolicy[], user: UserInfo, namespace: string): Pick<RulesReviewReply, 'resourceRules' | 'nonResourceRules'> {
  const out: Pick<RulesReviewReply, 'resourceRules' | 'nonResourceRules'> = { resourceRules: [], nonResourceRules: [] };
  for (const p of policies) {
    if (!subjectMatches(p, user)) continue;
    if (p.resource && wild(p.namespace, namespace)) out.resourceRules.push({ verbs: verbsOf(p), apiGroups: [p.apiGroup], resources: [p.resource] });
    // Unlike upstream, a non-resource grant is listed whatever the namespace asked about: paths
    // have no namespace, and hiding `/healthz` from a review in "default" would misstate access.
    if (p.nonResourcePath) out.nonResourceRules.push({ verbs: verbsOf(p), nonResourceURLs: [p.nonResourcePath] });
  }
  return out;
}
