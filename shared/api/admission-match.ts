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
}

export function admissionMatches(match: AdmissionMatch | undefined, operation: string, group: string, resource: string): boolean {
  if (!match) return true;
  if (match.operations && !match.operations.includes(operation) && !match.operations.includes('*')) return false;
  if (match.resources) {
    return match.resources.some((m) => (m.group === '*' || m.group === group) && (m.resource === '*' || m.resource === resource));
  }
  return true;
}
