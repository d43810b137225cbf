// Escalation prevention for RBAC writes, checked whatever the authorization modes (upstream does
// it in the RBAC storage itself): nobody can hand out a permission they do not hold.
// - A Role/ClusterRole write needs `escalate` on it, or every rule it grants must already be held
//   at its scope. An aggregationRule can gather anything, so it needs `escalate` or full authority.
// - A binding write needs `bind` on the referenced role, or the role's rules must be held at the
//   binding's scope.
// Members of system:masters may do anything. "Held" means granted through RBAC bindings.

import type { ApiObject, UserInfo } from '../../../shared/api/types.js';
import { badRequest } from '../../../shared/api/status.js';
import { Decision, type AuthzAttributes, type AuthzReply, type EscalationCheckReply, type EscalationCheckRequest, type PolicyRule } from '../../../shared/bus/messages.js';
import { SYSTEM_MASTERS } from '../../../shared/api/groups.js';
import { compactRules, compactString, covers, quoteList } from './covers.js';
import { readRule, type RoleRef } from './rules.js';
import type { RbacState } from './state.js';
import { exactGroupNames, RBAC_GROUP, type CanonicalGroup } from '../../../shared/api/groups.js';

export interface EscalationDeps {
  rbac: RbacState;
  /** The service's whole authorizer chain. */
  authorize(attrs: AuthzAttributes): Promise<AuthzReply>;
}

/** What granting everything means: `*` on every resource of every group, and every URL. */
export const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export const AGGREGATION_NEEDS_ADMIN = 'must have cluster-admin privileges to use the aggregationRule';

interface ParsedRole {
  kind: 'Role' | 'ClusterRole';
  name: string;
  /** '' for cluster-scoped kinds. */
  namespace: string;
  rules: PolicyRule[];
  aggregation: boolean;
}

interface ParsedBinding {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  name: string;
  namespace: string;
  roleRef: RoleRef;
}

type Parsed = ParsedRole | ParsedBinding;

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Checks the request's shape; a 400 StatusError names the first problem. */
export function parseEscalationRequest(req: EscalationCheckRequest, canonicalGroup: CanonicalGroup = exactGroupNames): Parsed {
  if (!isObject(req)) throw badRequest('an escalation check needs a JSON object body');
  const user = req.user as UserInfo | undefined;
  if (!isObject(user) || typeof user.username !== 'string' || !Array.isArray(user.groups) || !user.groups.every((g) => typeof g === 'string')) {
    throw badRequest('an escalation check needs a user with groups');
  }
  const o = req.object as ApiObject | undefined;
  if (!isObject(o) || !isObject(o.metadata)) throw badRequest('an escalation check needs the object being written');
  const name = o.metadata.name;
  if (typeof name !== 'string' || !name) throw badRequest('the object being written needs metadata.name');
  if (req.namespace !== undefined && typeof req.namespace !== 'string') throw badRequest('namespace must be a string');
  const kind = o.kind;
  const namespaced = kind === 'Role' || kind === 'RoleBinding';
  const namespace = namespaced ? req.namespace || (typeof o.metadata.namespace === 'string' ? o.metadata.namespace : '') : '';
  if (namespaced && !namespace) throw badRequest(`a ${kind} needs a namespace`);
  switch (kind) {
    case 'Role':
    case 'ClusterRole': {
      if (o.rules !== undefined && o.rules !== null && !Array.isArray(o.rules)) throw badRequest('rules must be a list');
      const rules: PolicyRule[] = [];
      for (const [i, raw] of ((o.rules as unknown[] | null | undefined) ?? []).entries()) {
        const rule = readRule(raw, canonicalGroup);
        if (!rule) throw badRequest(`rules[${i}] is not a policy rule`);
        rules.push(rule);
      }
      return { kind, name, namespace, rules, aggregation: kind === 'ClusterRole' && isObject(o.aggregationRule) };
    }
    case 'RoleBinding':
    case 'ClusterRoleBinding': {
      const ref = o.roleRef;
      if (!isObject(ref) || typeof ref.name !== 'string' || !ref.name) throw badRequest('a binding needs roleRef.name');
      const kinds = kind === 'RoleBinding' ? ['Role', 'ClusterRole'] : ['ClusterRole'];
      if (typeof ref.kind !== 'string' || !kinds.includes(ref.kind)) throw badRequest(`roleRef.kind of a ${kind} must be ${kinds.join(' or ')}`);
      return { kind, name, namespace, roleRef: { kind: ref.kind, name: ref.name, apiGroup: RBAC_GROUP } };
    }
    default:
      throw badRequest(`escalation checks apply to Role, ClusterRole, RoleBinding and ClusterRoleBinding, not ${JSON.stringify(kind ?? '')}`);
  }
}

function rbacAttrs(user: UserInfo, verb: string, resource: 'roles' | 'clusterroles', name: string, namespace: string): AuthzAttributes {
  const base = `/apis/${RBAC_GROUP}/v1`;
  const attrs: AuthzAttributes = {
    user,
    verb,
    isResourceRequest: true,
    path: namespace ? `${base}/namespaces/${namespace}/${resource}/${name}` : `${base}/${resource}/${name}`,
    apiGroup: RBAC_GROUP,
    apiVersion: 'v1',
    resource,
    name,
  };
  if (namespace) attrs.namespace = namespace;
  return attrs;
}

/** Upstream's refusal text, listing the missing rules compacted and sorted. */
export function escalationMessage(user: UserInfo, missing: PolicyRule[], resolutionErrors: string[] = []): string {
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${quoteList(user.groups ?? [])}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (resolutionErrors.length) msg += `; resolution errors: [${resolutionErrors.join(' ')}]`;
  return msg;
}

const ALLOWED: EscalationCheckReply = { allowed: true };

export async function checkEscalation(req: EscalationCheckRequest, deps: EscalationDeps): Promise<EscalationCheckReply> {
  const p = parseEscalationRequest(req, deps.rbac.canonicalGroup);
  const user = req.user;
  if (user.groups.includes(SYSTEM_MASTERS)) return ALLOWED;
  const { rbac } = deps;

  if ('rules' in p) {
    const resource = p.kind === 'Role' ? 'roles' : 'clusterroles';
    const escalate = await deps.authorize(rbacAttrs(user, 'escalate', resource, p.name, p.namespace));
    if (escalate.decision === Decision.Allow) return ALLOWED;
    const held = rbac.rulesFor(user, p.namespace);
    const c = covers(held.rules, p.rules);
    if (!c.covered) return { allowed: false, message: escalationMessage(user, c.missing, held.errors) };
    // Setting an aggregationRule, or editing a role that has one (which could drop the rule),
    // gathers or keeps whatever matching roles grant: only someone holding everything may.
    const aggregating = p.aggregation || (p.kind === 'ClusterRole' && rbac.clusterRole(p.name)?.aggregationRule != null);
    if (aggregating && !covers(held.rules, FULL_AUTHORITY).covered) return { allowed: false, message: AGGREGATION_NEEDS_ADMIN };
    return ALLOWED;
  }

  const ref = p.roleRef;
  const bind = await deps.authorize(rbacAttrs(user, 'bind', ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles', ref.name, p.namespace));
  if (bind.decision === Decision.Allow) return ALLOWED;
  const role = ref.kind === 'ClusterRole' ? rbac.clusterRole(ref.name) : rbac.role(p.namespace, ref.name);
  if (!role) {
    const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
    return { allowed: false, message: `${resource}.${RBAC_GROUP} "${ref.name}" not found` };
  }
  // Inside a RoleBinding, non-resource rules grant nothing, so binding them grants nothing either.
  const granted = p.kind === 'RoleBinding' ? role.rules.filter((r) => !r.nonResourceURLs?.length) : role.rules;
  const held = rbac.rulesFor(user, p.namespace);
  const c = covers(held.rules, granted);
  if (!c.covered) return { allowed: false, message: escalationMessage(user, c.missing, held.errors) };
  return ALLOWED;
}
