// Schemas and validation shared by the four RBAC types: policy rules, subjects, role refs.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject, JsonSchema } from '../../../api/types.js';
import { asArray, asObject, at } from '../common/field-errors.js';
import { labelSelector } from '../common/meta.js';
import { validateLabelSelector } from '../common/selector.js';
import { atomicList, obj, str } from '../common/schema.js';
import { invalidValue, required, unsupported } from '../../../api/field-errors.js';
import { validDnsSubdomain, validPathSegmentName } from '../../../api/validation.js';
import { jsonEqual } from '../../../patch/json-value.js';
import { isRbacGroupName, RBAC_GROUP } from '../../../api/groups.js';

export const policyRule: JsonSchema = obj(
  {
    verbs: atomicList(str),
    apiGroups: atomicList(str),
    resources: atomicList(str),
    resourceNames: atomicList(str),
    nonResourceURLs: atomicList(str),
  },
  ['verbs'],
);

export const subject: JsonSchema = obj({ kind: str, apiGroup: str, name: str, namespace: str }, ['kind', 'name'], { 'x-kubernetes-map-type': 'atomic' });

export const roleRef: JsonSchema = obj({ apiGroup: str, kind: str, name: str }, ['apiGroup', 'kind', 'name'], { 'x-kubernetes-map-type': 'atomic' });

export const aggregationRule: JsonSchema = obj({ clusterRoleSelectors: atomicList(labelSelector) });

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
