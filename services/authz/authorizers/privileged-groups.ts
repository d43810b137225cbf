// Members of `system:masters` are allowed everything whatever the configured modes, as upstream
// puts this check in front of every chain: a cluster cannot lock its break-glass admin out by
// a policy mistake.

import { Decision, type AuthzAttributes } from '../../../shared/bus/messages.js';
import type { Authorizer } from '../types.js';

export const SYSTEM_MASTERS = 'system:masters';

export function createPrivilegedGroupsAuthorizer(groups: string[] = [SYSTEM_MASTERS]): Authorizer {
  const privileged = new Set(groups);
  return {
    name: 'privileged-groups',
    authorize: (attrs: AuthzAttributes) => (attrs.user.groups?.some((g) => privileged.has(g)) ? { decision: Decision.Allow } : { decision: Decision.NoOpinion }),
  };
}
