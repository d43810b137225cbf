// TokenReview and SelfSubjectReview are answered, never stored: the first asks the authn service
// about a token, the second returns the caller's own identity.

import { badRequest } from '../../../api/status.js';
import type { AuthnRequest } from '../../../contracts/authn.js';
import type { RestHooks } from '../../types.js';

export const tokenReviewHooks: RestHooks = {
  async create(req, cluster) {
    const obj = req.object();
    const spec = (obj.spec ?? {}) as { token?: string; audiences?: string[] };
    if (!spec.token) throw badRequest('token is required for TokenReview in authentication');
    const ask: AuthnRequest = { token: spec.token };
    if (spec.audiences?.length) ask.audiences = spec.audiences;
    const reply = await cluster.authn.authenticate(ask);
    const status: Record<string, unknown> = { authenticated: reply.authenticated };
    if (reply.authenticated && reply.user) {
      status.user = reply.user;
      const audiences = reply.audiences ?? spec.audiences;
      if (audiences?.length) status.audiences = audiences;
    } else {
      status.user = {};
      if (reply.error) status.error = reply.error;
    }
    // The token is the caller's secret: it is not echoed back.
    return { code: 201, body: { ...obj, spec: { ...spec, token: '' }, status } };
  },
};

export const selfSubjectReviewHooks: RestHooks = {
  async create(req) {
    return { code: 201, body: { ...req.object(), status: { userInfo: req.user } } };
  },
};
