// Schemas and validation shared by the four RBAC types: policy rules, subjects, role refs.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject, JsonSchema } from '../../../api/types.js';
import { asArray, asObject, at } from '../common/field-errors.js';
import { labelSelector } from '../common/meta.js';
import { validateLabelSelector } from '../common/selector.js';
import { atomicList, described, obj, str } from '../common/schema.js';
import { invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { validDnsSubdomain, validPathSegmentName } from '../../../api/validation.js';
import { jsonEqual } from '../../../patch/json-value.js';
import { isRbacGroupName, RBAC_GROUP } from '../../../api/groups.js';

export const policyRule: JsonSchema = described(
  obj(
    {
      verbs: atomicList(str),
      apiGroups: atomicList(str),
      resources: atomicList(str),
      resourceNames: atomicList(str),
      nonResourceURLs: atomicList(str),
    },
    ['verbs'],
  ),
  {
    verbs:
      'Actions the rule allows: the request verbs (get, list, watch, create, update, patch, delete, deletecollection) and special ones such as use, bind, escalate, impersonate or approve. `*` allows every verb. At least one is required.',
    apiGroups: 'API groups of the resources: `""` for the core group, `*` for every group. A resource rule needs at least one.',
    resources:
      'Resources by plural name. A subresource is written `<resource>/<subresource>` (`pods/log`); `<resource>/*` covers every subresource of it, `*/<subresource>` that subresource of every resource, and `*` every resource and subresource. A resource rule needs at least one.',
    resourceNames:
      'Names of the objects the rule is limited to; empty means every object. A rule with names allows no request that names no object: create, deletecollection, and list or watch without a `metadata.name` field selector.',
    nonResourceURLs:
      'URL paths that are not resources (`/healthz`, `/version`, `/apis`); a trailing `*` matches every path that starts with what comes before it. Only in ClusterRoles, and a rule has either these or resources, never both.',
  },
  'One grant of permissions: verbs on resources of API groups, or verbs on non-resource URLs. Rules only add permissions; there are no deny rules.',
);

export const subject: JsonSchema = described(
  obj({ kind: str, apiGroup: str, name: str, namespace: str }, ['kind', 'name'], { 'x-kubernetes-map-type': 'atomic' }),
  {
    kind: 'User, Group or ServiceAccount.',
    apiGroup: 'API group of the kind: `rbac.authorization.platform.io` for User and Group, `""` for ServiceAccount. Filled in by the server when omitted; any other value is refused.',
    name: 'Name of the user, group or service account, compared exactly (case-sensitive). A service account name must be a DNS subdomain.',
    namespace: "Namespace of a ServiceAccount: required in a ClusterRoleBinding; in a RoleBinding an empty one is read as the binding's own namespace. Ignored for User and Group.",
  },
  'Who a binding grants its role to: a user, a group, or the service account of a namespace (the user `system:serviceaccount:<namespace>:<name>`).',
);

export const roleRef: JsonSchema = described(
  obj({ apiGroup: str, kind: str, name: str }, ['apiGroup', 'kind', 'name'], { 'x-kubernetes-map-type': 'atomic' }),
  {
    apiGroup: 'API group of the role: `rbac.authorization.platform.io`. Filled in by the server when omitted.',
    kind: 'Role or ClusterRole; a ClusterRoleBinding may only refer to a ClusterRole.',
    name: 'Name of the role. It need not exist yet: the binding grants nothing until it does.',
  },
  'The role a binding grants. It cannot be changed after creation: delete the binding and create it again to grant another role.',
);

export const aggregationRule: JsonSchema = described(
  obj({ clusterRoleSelectors: atomicList(labelSelector) }),
  {
    clusterRoleSelectors:
      'Label selectors over ClusterRoles; the rules of every ClusterRole that matches any of them are gathered into this one. At least one is required when aggregationRule is set.',
  },
  'How a ClusterRole is assembled from other ClusterRoles.',
);

/** Rules of Roles (namespaced: no non-resource URLs) and ClusterRoles. */
export function validateRules(rules: unknown, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  asArray(rules).forEach((r, i) => {
    const rule = asObject(r) ?? {};
    const f = `rules[${i}]`;
    if (!asArray(rule.verbs).length) errs.push(required(`${f}.verbs`, 'verbs must contain at least one value'));
    const urls = asArray(rule.nonResourceURLs);
    if (urls.length) {
      if (namespaced) errs.push(invalidValue(`${f}.nonResourceURLs`, rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
      if (asArray(rule.apiGroups).length || asArray(rule.resources).length || asArray(rule.resourceNames).length) {
        errs.push(invalidValue(`${f}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (!asArray(rule.apiGroups).length) errs.push(required(`${f}.apiGroups`, 'resource rules must supply at least one api group'));
    if (!asArray(rule.resources).length) errs.push(required(`${f}.resources`, 'resource rules must supply at least one resource'));
  });
  return errs;
}

export function validateAggregationRule(rule: unknown): FieldError[] {
  const r = asObject(rule);
  if (!r) return [];
  const selectors = asArray(r.clusterRoleSelectors);
  if (!selectors.length) return [required('aggregationRule.clusterRoleSelectors')];
  return selectors.flatMap((s, i) => validateLabelSelector(s, `aggregationRule.clusterRoleSelectors[${i}]`));
}

const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'];

/** Fills apiGroup of User/Group subjects and of the roleRef, as the API does. */
export function defaultBinding(o: ApiObject): void {
  for (const s of asArray(o.subjects)) {
    const sub = asObject(s);
    if (!sub || sub.apiGroup !== undefined) continue;
    if (sub.kind === 'User' || sub.kind === 'Group') sub.apiGroup = RBAC_GROUP;
    else if (sub.kind === 'ServiceAccount') sub.apiGroup = '';
  }
  const ref = asObject(o.roleRef);
  if (ref && (ref.apiGroup === undefined || ref.apiGroup === '')) ref.apiGroup = RBAC_GROUP;
}

export function validateBinding(o: ApiObject, clusterScoped: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = asObject(o.roleRef);
  if (!ref) errs.push(required('roleRef'));
  else {
    if (!isRbacGroupName(ref.apiGroup)) errs.push(unsupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
    const kinds = clusterScoped ? ['ClusterRole'] : ['Role', 'ClusterRole'];
    if (!kinds.includes(String(ref.kind))) errs.push(unsupported('roleRef.kind', ref.kind ?? '', kinds));
    if (typeof ref.name !== 'string' || !ref.name) errs.push(required('roleRef.name'));
    else if (!validPathSegmentName(ref.name)) errs.push(invalidValue('roleRef.name', ref.name, 'may not contain "/" or "%" and may not be "." or ".."'));
  }
  asArray(o.subjects).forEach((s, i) => {
    const sub = asObject(s) ?? {};
    const f = `subjects[${i}]`;
    const name = typeof sub.name === 'string' ? sub.name : '';
    if (!name) errs.push(required(`${f}.name`));
    switch (sub.kind) {
      case 'ServiceAccount':
        if (name && !validDnsSubdomain(name)) errs.push(invalidValue(`${f}.name`, name, 'a lowercase RFC 1123 subdomain is required for service account names'));
        if (sub.apiGroup !== undefined && sub.apiGroup !== '') errs.push(unsupported(`${f}.apiGroup`, sub.apiGroup, ['']));
        if (clusterScoped && (typeof sub.namespace !== 'string' || !sub.namespace)) errs.push(required(`${f}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (!isRbacGroupName(sub.apiGroup)) errs.push(unsupported(`${f}.apiGroup`, sub.apiGroup ?? '', [RBAC_GROUP]));
        break;
      default:
        errs.push(unsupported(`${f}.kind`, sub.kind ?? '', SUBJECT_KINDS));
    }
  });
  return errs;
}

/** roleRef is fixed at creation: changing what a binding grants needs delete and recreate. */
export function roleRefImmutable(o: ApiObject, old: ApiObject): FieldError[] {
  const ref = at(o, 'roleRef');
  return jsonEqual(ref, at(old, 'roleRef')) ? [] : [invalidValue('roleRef', ref, 'cannot change roleRef')];
}
