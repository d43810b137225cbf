// Members of `system:masters` are allowed everything whatever the configured modes, as upstream
// puts this check in front of every chain: a cluster cannot lock its break-glass admin out by
// a policy mistake.

import { Decision, type AuthzAttributes } from '../../../shared/bus/messages.js';
import type { UserInfo } from '../../../shared/api/types.js';
import type { Authorizer, RulesOfUser } from '../types.js';

import { SYSTEM_MASTERS } from '../../../shared/api/groups.js';

export function createPrivilegedGroupsAuthorizer(groups: string[] = [SYSTEM_MASTERS]): Authorizer {
  const privileged = new Set(groups);
  const isPrivileged = (user: UserInfo) => user.groups?.some((g) => privileged.has(g)) ?? false;
  return {
    name: 'privileged-groups',
    authorize: (attrs: AuthzAttributes) => (isPrivileged(attrs.user) ? { decision: Decision.Allow } : { decision: Decision.NoOpinion }),
    // What the authorize above grants, so a SelfSubjectRulesReview of an admin says so (and is not
    // marked incomplete because this authorizer could not list its rules).
    rulesFor: (user: UserInfo): RulesOfUser =>
      isPrivileged(user)
        ? { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false }
        : { resourceRules: [], nonResourceRules: [], incomplete: false },
  };
}
