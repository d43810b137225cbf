// Which admission requests a plugin (or webhook) wants: operations and group/resources, `*`
// matching anything. Shared by the admission service, which applies it, and the gateway, which
// skips a phase nobody is interested in.

export interface ResourceMatch {
  group: string;
  resource: string;
}

export interface AdmissionMatch {
  /** Absent = every operation. */
  operations?: string[];
  /** Absent = every resource. */
  resources?: ResourceMatch[];
  /** Absent = every user; else only requests by a member of one of these groups (NodeRestriction: system:nodes). */
  userGroups?: string[];
  /**
   * The longest a plugin may spend on a matching request calling out (webhooks, an image policy
   * backend), beyond the bus's usual deadline: the caller waits that much longer for the phase.
   */
  timeoutSeconds?: number;
}

/** Upstream's request timeout: no admission phase is waited for longer. */
export const MAX_ADMISSION_SECONDS = 60;

/** `userGroups` undefined: the caller does not know the user, so a user-restricted match still counts. */
export function admissionMatches(match: AdmissionMatch | undefined, operation: string, group: string, resource: string, userGroups?: readonly string[]): boolean {
  if (!match) return true;
  if (match.userGroups && userGroups && !match.userGroups.some((g) => userGroups.includes(g))) return false;
  if (match.operations && !match.operations.includes(operation) && !match.operations.includes('*')) return false;
  if (match.resources) {
    return match.resources.some((m) => (m.group === '*' || m.group === group) && (m.resource === '*' || m.resource === resource));
  }
  return true;
}
