// TokenReview: "who does this token belong to?" — POSTed, answered, never stored. v1beta1 is the
// deprecated form of the same shape.

import type { ResourceType } from '../../types.js';
import { atomicList, bool, described, obj, str } from '../common/schema.js';
import { tokenReviewHooks } from './review-hooks.js';
import { AUTHENTICATION_GROUP } from '../../../api/groups.js';

export const userInfo = described(
  obj({ username: str, uid: str, groups: atomicList(str), extra: { type: 'object', additionalProperties: atomicList(str) } }),
  {
    username: 'The name that identifies the user to authorization, for example `jane`, `system:node:n1` or `system:serviceaccount:<namespace>:<name>`.',
    uid: 'An identifier of the user that stays the same when a user of the same name is removed and added again, when the authenticator knows one.',
    groups: 'Groups the user belongs to, such as `system:authenticated` or `system:serviceaccounts:<namespace>`.',
    extra: 'Further facts the authenticator recorded about the user, each a list of strings (scopes, the pod a service-account token was bound to). Authorizers may use them.',
  },
  'A user as the authenticators identified them: name, uid, groups and extra attributes.',
);

const schema = described(
  obj({
    spec: described(
      obj({ token: str, audiences: atomicList(str) }),
      {
        token: 'The bearer token to check. Required. It is not echoed back: the answer carries an empty token.',
        audiences:
          "Audiences the caller accepts the token for. The answer says which of them the token is valid for; a token valid for none of them is not authenticated. Empty means the API server's own audiences (`--api-audiences`).",
      },
      'The token to check.',
    ),
    status: described(
      obj({ authenticated: bool, user: userInfo, audiences: atomicList(str), error: str }),
      {
        authenticated: "True when one of the server's authenticators accepted the token.",
        user: 'The user the token belongs to; empty when it was not authenticated.',
        audiences:
          'Those of spec.audiences the token is valid for; omitted when none were asked for, which means valid for the API server itself. A client asking for audiences must check that one of its own is listed.',
        error: 'Why the token was not accepted, when an authenticator said so. Only informative: authenticated is the answer.',
      },
      'The answer, filled in by the server.',
    ),
  }),
  {
    spec: 'The token to check and the audiences it should be valid for.',
    status: 'The answer, filled in by the server: whether the token is valid and whose it is.',
  },
  'Asks the server who a bearer token belongs to, for webhook token authentication and for servers that delegate authentication here. POSTed and answered at once; nothing is stored, so it cannot be read, listed or watched.',
);

export const tokenreviews: ResourceType = {
  group: AUTHENTICATION_GROUP,
  versions: [
    { name: 'v1', schema },
    { name: 'v1beta1', schema, deprecation: { since: '1.19', removedIn: '1.22', replacement: 'v1' } },
  ],
  kind: 'TokenReview',
  plural: 'tokenreviews',
  singular: 'tokenreview',
  scope: 'Cluster',
  virtual: true,
  rest: tokenReviewHooks,
  verbs: ['create'],
};
