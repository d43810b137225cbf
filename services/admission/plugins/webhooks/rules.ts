// Whether one rule of a webhook matches a request, as upstream's rule matcher decides it:
// operation, API group, version, resource with its subresource (`*` alone excludes
// subresources, `*/*` includes them, `pods/*` every subresource of pods, `*/status` the status
// of anything) and scope. Pure; the resource tested may be an equivalent of the request's
// (matchPolicy Equivalent), so it is passed apart from the request.

import type { GroupVersionResource } from '../../../../shared/api/types.js';

export interface WebhookRule {
  operations: readonly string[];
  apiGroups: readonly string[];
  apiVersions: readonly string[];
  resources: readonly string[];
  /** Cluster, Namespaced or `*` (the default). */
  scope: string;
}

/** What of a request the rules look at. */
export interface RuleSubject {
  operation: string;
  resource: GroupVersionResource;
  subResource: string;
  /** The request's namespace ('' for cluster-scoped objects; a namespace's own name for its requests after creation). */
  namespace: string;
}

const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.platform.io';
const WEBHOOK_CONFIGURATION_RESOURCES = new Set(['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']);

/**
 * Webhook configurations are never sent to webhooks: a webhook that failed or refused every write
 * could otherwise never be removed (upstream's IsWebhookConfigurationResource).
 */
export function isWebhookConfigurationResource(resource: GroupVersionResource): boolean {
  return resource.group === ADMISSION_REGISTRATION_GROUP && WEBHOOK_CONFIGURATION_RESOURCES.has(resource.resource);
}

const exactOrWildcard = (items: readonly string[], value: string): boolean => items.includes('*') || items.includes(value);

function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === '' && r.version === 'v1' && r.resource === 'namespaces';
}

function scopeMatches(scope: string, s: RuleSubject): boolean {
  switch (scope) {
    case '*':
    case '':
      return true;
    // A Namespace is cluster-scoped, though its requests after creation carry its name as namespace.
    case 'Namespaced':
      return !isNamespaceResource(s.resource) && s.namespace !== '';
    case 'Cluster':
      return isNamespaceResource(s.resource) || s.namespace === '';
    default:
      return false;
  }
}

function resourceMatches(resources: readonly string[], resource: string, subResource: string): boolean {
  for (const entry of resources) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === resource) && (sub === '*' || sub === subResource)) return true;
  }
  return false;
}

export function ruleMatches(rule: WebhookRule, s: RuleSubject): boolean {
  return (
    scopeMatches(rule.scope, s) &&
    exactOrWildcard(rule.operations, s.operation) &&
    exactOrWildcard(rule.apiGroups, s.resource.group) &&
    exactOrWildcard(rule.apiVersions, s.resource.version) &&
    resourceMatches(rule.resources, s.resource.resource, s.subResource)
  );
}
