// Authorization of the request's attributes as the (possibly impersonated) user, through the
// authz service's decision cache. An audited request records the decision and its reason
// (upstream's authorization.k8s.io/decision and /reason annotations), allowed or not.

import { AuditAnnotation } from '../../../shared/audit/types.js';
import type { Identity } from '../identity.js';
import { attributesFor, denial } from '../identity.js';
import type { Filter } from './filter.js';
import { apiState } from './request-info.js';

export function authorizationFilter(identity: Identity): Filter {
  return {
    name: 'authorization',
    async onRequest(req) {
      const api = apiState(req);
      const attrs = attributesFor(api.user, api.info);
      const audit = api.audit;
      if (!audit) return identity.authorize(attrs, api.deadline);
      const reply = await identity.decide(attrs, api.deadline);
      const allowed = reply.decision === 'Allow';
      audit.annotate(AuditAnnotation.Decision, allowed ? 'allow' : 'forbid');
      audit.annotate(AuditAnnotation.Reason, reply.reason ?? '');
      if (!allowed) throw denial(attrs, reply.reason);
    },
  };
}
