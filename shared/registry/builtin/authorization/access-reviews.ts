// The access-review kinds of authorization.platform.io/v1: POSTed, answered by the authz
// service's chain, never stored. They share the attribute and status shapes, so they live in
// one file; each is still its own registry entry.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';

import { atomicList, bool, described, docsOf, obj, str } from '../common/schema.js';
import { selfSubjectAccessReviewHooks, selfSubjectRulesReviewHooks, subjectAccessReviewHooks } from './review-hooks.js';
import { forbidden, invalidValue, required } from '../../../api/field-errors.js';
import { AUTHORIZATION_GROUP } from '../../../api/groups.js';

const resourceAttributes = described(
  obj({ namespace: str, verb: str, group: str, version: str, resource: str, subresource: str, name: str }),
  {
    namespace:
      'Namespace of the request. Empty means a cluster-scoped resource, or a namespaced resource in every namespace (as a list across namespaces asks). In a LocalSubjectAccessReview it must equal metadata.namespace.',
    verb: 'The verb: get, list, watch, create, update, patch, delete, deletecollection, or a special one such as use, bind, escalate or impersonate. `*` asks for every verb.',
    group: 'API group of the resource; empty for the core group, `*` for every group.',
    version: 'API version of the resource. Authorization does not depend on it; `*` for every version.',
    resource: 'Resource by plural name, such as `pods`; `*` for every resource.',
    subresource: 'Subresource, such as `log` or `status`; empty for the resource itself.',
    name: 'Name of the object; empty for requests about every object (list, watch, create).',
  },
  'A request on a resource, as authorization sees it.',
);
const nonResourceAttributes = described(
  obj({ path: str, verb: str }),
  { path: 'URL path of the request, such as `/healthz` or `/apis`.', verb: 'HTTP verb in lower case as authorization names it: get, post, put, patch, delete.' },
  'A request on a path that is not a resource.',
);
const extra = { type: 'object', additionalProperties: atomicList(str) };
const status = described(
  obj({ allowed: bool, denied: bool, reason: str, evaluationError: str }),
  {
    allowed: 'True when the request would be allowed.',
    denied: 'True when an authorizer explicitly refused the request, so no later one was asked. With allowed and denied both false, no authorizer had an opinion and the request would be refused too.',
    reason: 'Why the request would be allowed or refused, as the deciding authorizer put it (for RBAC, the binding and role that allow it).',
    evaluationError: 'Trouble met while deciding, such as a role that a binding refers to but that does not exist. The answer may be allowed anyway when another rule granted the request.',
  },
  'The answer, filled in by the server.',
);

const ATTRIBUTE_DOCS = {
  resourceAttributes: 'The request on a resource to check. Exactly one of resourceAttributes and nonResourceAttributes is required.',
  nonResourceAttributes: 'The request on a non-resource path to check. Exactly one of resourceAttributes and nonResourceAttributes is required.',
};

const subjectSpec = described(
  obj({ resourceAttributes, nonResourceAttributes, user: str, groups: atomicList(str), extra, uid: str }),
  {
    ...ATTRIBUTE_DOCS,
    user: 'Name of the user to check for. At least one of user and groups is required.',
    groups: 'Groups of the user; the server does not look them up, only the groups given here count.',
    extra: 'Extra attributes of the user, as an authenticator would have recorded them.',
    uid: 'The uid of the user.',
  },
  'The request and the user to check. The user is taken as given: nothing is looked up.',
);
const localSubjectSpec = described(
  subjectSpec,
  {
    ...docsOf(subjectSpec),
    resourceAttributes: 'The request on a resource to check; its namespace must be the namespace of the review. Required.',
    nonResourceAttributes: 'Not allowed here: a namespace holds no non-resource paths.',
  },
  'The request and the user to check, inside the namespace of the review. The user is taken as given: nothing is looked up.',
);
const selfSpec = described(obj({ resourceAttributes, nonResourceAttributes }), ATTRIBUTE_DOCS, 'The request to check for the caller.');

const SPEC_DOC = 'The request to check and, unless it is the caller, for whom.';
const STATUS_DOC = 'The answer, filled in by the server.';

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
  versions: [
    {
      name: 'v1',
      schema: described(
        obj({ spec: subjectSpec, status }, ['spec']),
        { spec: SPEC_DOC, status: STATUS_DOC },
        'Asks whether a given user may make a given request, in any namespace. Used by webhook authorization and by servers that delegate authorization here. POSTed and answered at once; nothing is stored.',
      ),
    },
  ],
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  scope: 'Cluster',
  strategy: { validate: validateSubject },
  rest: subjectAccessReviewHooks,
};

export const selfsubjectaccessreviews: ResourceType = {
  ...base,
  versions: [
    {
      name: 'v1',
      schema: described(
        obj({ spec: selfSpec, status }, ['spec']),
        { spec: 'The request to check for the caller.', status: STATUS_DOC },
        'Asks whether the caller may make a given request (`kubectl auth can-i`). Any authenticated user may ask about themselves. POSTed and answered at once; nothing is stored.',
      ),
    },
  ],
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  scope: 'Cluster',
  strategy: { validate: (o) => validateAttributes(specOf(o)) },
  rest: selfSubjectAccessReviewHooks,
};

export const localsubjectaccessreviews: ResourceType = {
  ...base,
  versions: [
    {
      name: 'v1',
      schema: described(
        obj({ spec: localSubjectSpec, status }, ['spec']),
        { spec: SPEC_DOC, status: STATUS_DOC },
        "Asks whether a given user may make a given request inside one namespace: a SubjectAccessReview that the namespace's own administrators may be allowed to create. POSTed and answered at once; nothing is stored.",
      ),
    },
  ],
  kind: 'LocalSubjectAccessReview',
  plural: 'localsubjectaccessreviews',
  singular: 'localsubjectaccessreview',
  scope: 'Namespaced',
  strategy: { validate: validateLocal },
  rest: subjectAccessReviewHooks,
};

const resourceRule = described(
  obj({ verbs: atomicList(str), apiGroups: atomicList(str), resources: atomicList(str), resourceNames: atomicList(str) }),
  {
    verbs: 'Verbs allowed; `*` for every verb.',
    apiGroups: 'API groups of the resources; `""` is the core group, `*` every group.',
    resources: 'Resources by plural name, subresources as `<resource>/<subresource>`; `*` for every resource.',
    resourceNames: 'Names of the objects the rule is limited to; empty means every object.',
  },
  'Verbs the caller may use on resources of the namespace.',
);
const nonResourceRule = described(
  obj({ verbs: atomicList(str), nonResourceURLs: atomicList(str) }),
  { verbs: 'Verbs allowed; `*` for every verb.', nonResourceURLs: 'Paths the verbs are allowed on; a trailing `*` matches every path with that prefix.' },
  'Verbs the caller may use on paths that are not resources.',
);
const rulesReviewSchema = described(
  obj({
    spec: described(obj({ namespace: str }), { namespace: 'Namespace to list the rules for. Required.' }, 'The namespace to ask about.'),
    status: described(
      obj({ resourceRules: atomicList(resourceRule), nonResourceRules: atomicList(nonResourceRule), incomplete: bool, evaluationError: str }),
      {
        resourceRules: 'What the caller may do with resources in the namespace. The list may repeat or overlap; it is meant for display, not for deciding requests.',
        nonResourceRules: 'What the caller may do on non-resource paths.',
        incomplete: 'True when some authorizer cannot list its rules (webhook, Node), so the caller may be allowed more than is shown.',
        evaluationError: 'Trouble met while listing the rules, such as a binding to a role that does not exist.',
      },
      'The answer, filled in by the server.',
    ),
  }),
  { spec: 'The namespace to ask about.', status: 'The answer, filled in by the server.' },
  'Lists what the caller may do in a namespace (`kubectl auth can-i --list`), as far as the authorizers can enumerate it. POSTed and answered at once; nothing is stored.',
);

export const selfsubjectrulesreviews: ResourceType = {
  ...base,
  versions: [
    {
      name: 'v1',
      schema: rulesReviewSchema,
    },
  ],
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  scope: 'Cluster',
  rest: selfSubjectRulesReviewHooks,
};
