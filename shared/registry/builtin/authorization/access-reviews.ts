// The access-review kinds of authorization.platform.io/v1: POSTed, answered by the authz
// service's chain, never stored. They share the attribute and status shapes, so they live in
// one file; each is still its own registry entry.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';

import { atomicList, bool, obj, str } from '../common/schema.js';
import { selfSubjectAccessReviewHooks, selfSubjectRulesReviewHooks, subjectAccessReviewHooks } from './review-hooks.js';
import { forbidden, invalidValue, required } from '../../../api/field-errors.js';
import { AUTHORIZATION_GROUP } from '../../../api/groups.js';

const resourceAttributes = obj({ namespace: str, verb: str, group: str, version: str, resource: str, subresource: str, name: str });
const nonResourceAttributes = obj({ path: str, verb: str });
const extra = { type: 'object', additionalProperties: atomicList(str) };
const status = obj({ allowed: bool, denied: bool, reason: str, evaluationError: str });

const subjectSpec = obj({ resourceAttributes, nonResourceAttributes, user: str, groups: atomicList(str), extra, uid: str });
const selfSpec = obj({ resourceAttributes, nonResourceAttributes });

interface ReviewSpec {
  resourceAttributes?: { namespace?: string };
  nonResourceAttributes?: unknown;
  user?: string;
  groups?: string[];
}

function specOf(o: ApiObject): ReviewSpec {
  return (o.spec ?? {}) as ReviewSpec;
}

/** Exactly one of resourceAttributes and nonResourceAttributes. */
function validateAttributes(spec: ReviewSpec): FieldError[] {
  const hasRes = spec.resourceAttributes !== undefined;
  const hasNonRes = spec.nonResourceAttributes !== undefined;
  if (hasRes && hasNonRes) return [invalidValue('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  if (!hasRes && !hasNonRes) return [required('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

function validateSubject(o: ApiObject): FieldError[] {
  const spec = specOf(o);
  const errs = validateAttributes(spec);
  if (!spec.user && !spec.groups?.length) errs.push(required('spec.user', 'at least one of user or group must be specified'));
  return errs;
}

function validateLocal(o: ApiObject): FieldError[] {
  const spec = specOf(o);
  const errs = validateSubject(o);
  if (spec.nonResourceAttributes !== undefined) errs.push(forbidden('spec.nonResourceAttributes', 'disallowed on this kind of request'));
  const ns = spec.resourceAttributes?.namespace;
  if (spec.resourceAttributes && ns !== o.metadata.namespace) errs.push(invalidValue('spec.resourceAttributes.namespace', ns ?? '', 'must match metadata.namespace'));
  return errs;
}

const base = { group: AUTHORIZATION_GROUP, virtual: true, verbs: ['create'] };

export const subjectaccessreviews: ResourceType = {
  ...base,
  versions: [{ name: 'v1', schema: obj({ spec: subjectSpec, status }, ['spec']) }],
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  scope: 'Cluster',
  strategy: { validate: validateSubject },
  rest: subjectAccessReviewHooks,
};

export const selfsubjectaccessreviews: ResourceType = {
  ...base,
  versions: [{ name: 'v1', schema: obj({ spec: selfSpec, status }, ['spec']) }],
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  scope: 'Cluster',
  strategy: { validate: (o) => validateAttributes(specOf(o)) },
  rest: selfSubjectAccessReviewHooks,
};

export const localsubjectaccessreviews: ResourceType = {
  ...base,
  versions: [{ name: 'v1', schema: obj({ spec: subjectSpec, status }, ['spec']) }],
  kind: 'LocalSubjectAccessReview',
  plural: 'localsubjectaccessreviews',
  singular: 'localsubjectaccessreview',
  scope: 'Namespaced',
  strategy: { validate: validateLocal },
  rest: subjectAccessReviewHooks,
};

const resourceRule = obj({ verbs: atomicList(str), apiGroups: atomicList(str), resources: atomicList(str), resourceNames: atomicList(str) });
const nonResourceRule = obj({ verbs: atomicList(str), nonResourceURLs: atomicList(str) });

export const selfsubjectrulesreviews: ResourceType = {
  ...base,
  versions: [
    {
      name: 'v1',
      schema: obj({
        spec: obj({ namespace: str }),
        status: obj({ resourceRules: atomicList(resourceRule), nonResourceRules: atomicList(nonResourceRule), incomplete: bool, evaluationError: str }),
      }),
    },
  ],
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  scope: 'Cluster',
  rest: selfSubjectRulesReviewHooks,
};
