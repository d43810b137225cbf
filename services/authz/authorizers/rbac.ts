// `--authorization-mode=RBAC`: allows what a Role or ClusterRole bound to the user (or one of its
// groups or its service account) allows, from the RBAC objects the service keeps in memory. Like
// upstream it never denies: no match is NoOpinion, so a later mode may still allow. A binding
// whose role does not exist is reported (it shows in the 403 as upstream's "RBAC: ... not found")
// and the search goes on.

import { Decision, type AuthzAttributes } from '../../../shared/bus/messages.js';
import type { UserInfo } from '../../../shared/api/types.js';
import type { Authorizer, AuthorizerDecision, ModeFactory, RulesOfUser } from '../types.js';
import type { RbacState } from '../rbac/state.js';

const ALLOW: AuthorizerDecision = { decision: Decision.Allow };
const NO_OPINION: AuthorizerDecision = { decision: Decision.NoOpinion };

/** Upstream's aggregate form: one error as is, several in brackets. */
function rbacErrors(errors: string[]): string {
  return `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`;
}

/** Synchronous, and always able to list its rules (in-process callers rely on both). */
export interface RbacAuthorizer extends Authorizer {
  authorize(attrs: AuthzAttributes): AuthorizerDecision;
  rulesFor(user: UserInfo, namespace: string): RulesOfUser;
}

export function createRbacAuthorizer(rbac: RbacState): RbacAuthorizer {
  return {
    name: 'RBAC',
    authorize(attrs: AuthzAttributes): AuthorizerDecision {
      const v = rbac.allows(attrs);
      if (v.allowed) return ALLOW;
      if (v.errors.length === 0) return NO_OPINION;
      const text = rbacErrors(v.errors);
      return { decision: Decision.NoOpinion, reason: text, error: text };
    },
    rulesFor(user: UserInfo, namespace: string): RulesOfUser {
      const held = rbac.rulesFor(user, namespace);
      const out: RulesOfUser = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const r of held.rules) {
        if (r.resources?.length) {
          const rr: RulesOfUser['resourceRules'][number] = { verbs: [...r.verbs] };
          if (r.apiGroups) rr.apiGroups = [...r.apiGroups];
          rr.resources = [...r.resources];
          if (r.resourceNames) rr.resourceNames = [...r.resourceNames];
          out.resourceRules.push(rr);
        }
        if (r.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
      }
      if (held.errors.length) out.evaluationError = rbacErrors(held.errors);
      return out;
    },
  };
}

export const rbacMode: ModeFactory = (ctx) => createRbacAuthorizer(ctx.rbac);
