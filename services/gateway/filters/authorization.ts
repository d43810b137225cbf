// Authorization of the request's attributes as the (possibly impersonated) user, through the
// authz service's decision cache.

import type { Identity } from '../identity.js';
import { attributesFor } from '../identity.js';
import type { Filter } from './chain.js';
import { apiState } from './request-info.js';

export function authorizationFilter(identity: Identity): Filter {
  return {
    name: 'authorization',
    async onRequest(req) {
      const api = apiState(req);
      await identity.authorize(attributesFor(api.user, api.info));
    },
  };
}
