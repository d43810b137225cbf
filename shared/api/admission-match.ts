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
  /**
   * When a request for an object inside a namespace (not a namespace itself) needs the plugin at
   * all, as far as the caller's view of the cluster tells: `inactive`, only when the namespace is
   * missing or being terminated (NamespaceLifecycle); `{ holds }`, only when the namespace holds an
   * object of that resource (ResourceQuota). The admission service runs a matching plugin
   * regardless (the plugin decides); the gateway skips a phase when its watch cache rules out
   * every matching plugin, as it skips one nobody matches.
   */
  namespace?: NamespaceCondition;
}

export type NamespaceCondition = 'inactive' | { holds: ResourceMatch };

/** What the caller knows of a namespace, to evaluate `AdmissionMatch.namespace`. */
export interface NamespaceFacts {
  /** The namespace exists and is not being terminated. */
  active(namespace: string): boolean;
  /** The namespace holds at least one object of the resource (storage group, '' for core). */
  holds(namespace: string, group: string, resource: string): boolean;
}

/** Whether a plugin matching the request is ruled out by its namespace condition. */
export function ruledOutByNamespace(match: AdmissionMatch, namespace: string | undefined, group: string, resource: string, facts: NamespaceFacts | undefined): boolean {
  const condition = match.namespace;
  if (!condition || !namespace || !facts || (group === '' && resource === 'namespaces')) return false;
  if (condition === 'inactive') return facts.active(namespace);
  return !facts.holds(namespace, condition.holds.group, condition.holds.resource);
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
