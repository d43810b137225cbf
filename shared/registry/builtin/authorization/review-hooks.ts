// The access reviews are answered, never stored: each turns the posted object into a question for
// the authz service and returns it with `status` filled in.

import type { ApiObject, UserInfo } from '../../../api/types.js';
import { badRequest } from '../../../api/status.js';
import type { AuthzAttributes, AuthzPort, RulesReviewRequest } from '../../../contracts/authz.js';
import type { RestHooks, RestResult } from '../../types.js';

interface ResourceAttributesSpec {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributesSpec;
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** The authorization attributes an access review asks about. */
export function reviewAttributes(user: UserInfo, spec: AccessReviewSpec): AuthzAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    const a: AuthzAttributes = { user, verb: r.verb ?? '', isResourceRequest: true, path: '', apiGroup: r.group ?? '', resource: r.resource ?? '' };
    if (r.version) a.apiVersion = r.version;
    if (r.subresource) a.subresource = r.subresource;
    if (r.namespace) a.namespace = r.namespace;
    if (r.name) a.name = r.name;
    return a;
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', isResourceRequest: false, path: n.path ?? '' };
}

/** The user a SubjectAccessReview names (not the caller). */
export function reviewedUser(spec: AccessReviewSpec): UserInfo {
  const u: UserInfo = { username: spec.user ?? '', groups: spec.groups ?? [] };
  if (spec.uid) u.uid = spec.uid;
  if (spec.extra && Object.keys(spec.extra).length) u.extra = spec.extra;
  return u;
}

async function accessReview(obj: ApiObject, attrs: AuthzAttributes, authz: AuthzPort): Promise<RestResult> {
  const reply = await authz.authorize(attrs);
  const status: Record<string, unknown> = { allowed: reply.decision === 'Allow' };
  // `denied` is set only when a module actively denied, not when nobody had an opinion.
  if (reply.decision === 'Deny' && reply.decidedBy !== undefined) status.denied = true;
  if (reply.reason) status.reason = reply.reason;
  if (reply.evaluationError) status.evaluationError = reply.evaluationError;
  return { code: 201, body: { ...obj, status } };
}

/** SubjectAccessReview and LocalSubjectAccessReview: may the named user do this? */
export const subjectAccessReviewHooks: RestHooks = {
  async create(req, cluster) {
    const obj = req.object();
    const spec = (obj.spec ?? {}) as AccessReviewSpec;
    return accessReview(obj, reviewAttributes(reviewedUser(spec), spec), cluster.authz);
  },
};

/** SelfSubjectAccessReview: may I do this? */
export const selfSubjectAccessReviewHooks: RestHooks = {
  async create(req, cluster) {
    const obj = req.object();
    return accessReview(obj, reviewAttributes(req.user, (obj.spec ?? {}) as AccessReviewSpec), cluster.authz);
  },
};

/** SelfSubjectRulesReview: what may I do in this namespace? */
export const selfSubjectRulesReviewHooks: RestHooks = {
  async create(req, cluster) {
    const obj = req.object();
    const namespace = (obj.spec as { namespace?: string } | undefined)?.namespace ?? '';
    if (!namespace) throw badRequest('no namespace on request');
    const ask: RulesReviewRequest = { user: req.user, namespace };
    const reply = await cluster.authz.reviewRules(ask);
    return { code: 201, body: { ...obj, status: reply } };
  },
};
