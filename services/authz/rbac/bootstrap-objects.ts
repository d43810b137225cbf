// The shapes of the bootstrap policy's objects: its rules, the roles and bindings that carry them,
// each labelled and annotated as upstream's defaults are (`autoupdate: "true"`: reconciled at every
// start unless an administrator turned that off). Shared by the cluster-wide policy
// (bootstrap-policy.ts) and the namespaced one (bootstrap-namespace-policy.ts).

import type { ApiObject } from '../../../shared/api/types.js';
import type { PolicyRule } from '../../../shared/bus/messages.js';
import { RBAC_GROUP } from '../../../shared/api/groups.js';
import { CONTROLLER_ACCOUNT_NAMESPACE } from '../../../shared/api/controller-accounts.js';
import { RBAC_API_VERSION } from './rules.js';

export const BOOTSTRAP_LABEL = 'platform.io/bootstrapping';
export const BOOTSTRAP_LABEL_VALUE = 'rbac-defaults';
export const AUTOUPDATE_ANNOTATION = `${RBAC_GROUP}/autoupdate`;
export const READ = ['get', 'list', 'watch'];
export const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
export const READ_WRITE = [...READ, ...WRITE];

export function rule(verbs: string[], groups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  const r: PolicyRule = { verbs, apiGroups: groups, resources };
  if (resourceNames) r.resourceNames = resourceNames;
  return r;
}

export function urls(verbs: string[], ...nonResourceURLs: string[]): PolicyRule {
  return { verbs, nonResourceURLs };
}

function meta(name: string, labels: Record<string, string> = {}): ApiObject['metadata'] {
  return { name, labels: { [BOOTSTRAP_LABEL]: BOOTSTRAP_LABEL_VALUE, ...labels }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } };
}

export function clusterRole(name: string, rules: PolicyRule[], labels?: Record<string, string>): ApiObject {
  return { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: meta(name, labels), rules };
}

export function aggregatingRole(name: string, aggregateLabel: string, labels?: Record<string, string>): ApiObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: meta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel]: 'true' } }] },
    // Filled by the aggregation controller.
    rules: [],
  };
}

export type SubjectSpec = { kind: 'User' | 'Group'; name: string } | { kind: 'ServiceAccount'; name: string; namespace: string };

function subjectsOf(subjects: SubjectSpec[]): unknown[] {
  return subjects.map((s) => (s.kind === 'ServiceAccount' ? { kind: s.kind, name: s.name, namespace: s.namespace } : { kind: s.kind, apiGroup: RBAC_GROUP, name: s.name }));
}

export function clusterRoleBinding(name: string, role: string, subjects: SubjectSpec[]): ApiObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: subjectsOf(subjects),
  };
}

export function namespacedRole(namespace: string, name: string, rules: PolicyRule[]): ApiObject {
  return { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: { ...meta(name), namespace }, rules };
}

export function roleBinding(namespace: string, name: string, role: string, subjects: SubjectSpec[]): ApiObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'RoleBinding',
    metadata: { ...meta(name), namespace },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: role },
    subjects: subjectsOf(subjects),
  };
}

export const group = (name: string): SubjectSpec => ({ kind: 'Group', name });
export const user = (name: string): SubjectSpec => ({ kind: 'User', name });
export const controllerAccount = (name: string): SubjectSpec => ({ kind: 'ServiceAccount', name, namespace: CONTROLLER_ACCOUNT_NAMESPACE });
