// The last resort of the chain (`--anonymous-auth`): a request that carried no credential any
// authenticator recognised is `system:anonymous` in `system:unauthenticated`. The chain never
// reaches it when a credential was presented and rejected.

import type { AuthnResult, RequestAuthenticator } from '../types.js';

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

export function createAnonymousAuthenticator(): RequestAuthenticator {
  return {
    name: 'anonymous',
    authenticate(): AuthnResult {
      return { kind: 'ok', user: { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] } };
    },
  };
}
