// SelfSubjectReview: "who am I?" — the caller's identity as the server sees it (after
// impersonation), answered by the gateway without storing anything.

import type { ResourceType } from '../../types.js';
import { described, obj } from '../common/schema.js';
import { userInfo } from './token-review.js';
import { selfSubjectReviewHooks } from './review-hooks.js';
import { AUTHENTICATION_GROUP } from '../../../api/groups.js';

const schema = described(
  obj({
    status: described(
      obj({ userInfo }),
      { userInfo: 'The user the request was made as: the authenticated identity or, with impersonation, the impersonated one.' },
      'The answer, filled in by the server.',
    ),
  }),
  { status: 'The answer, filled in by the server: who the caller is.' },
  'Asks the server who the caller is, as authentication (and impersonation) found it: `kubectl auth whoami`. POSTed with no spec and answered at once; nothing is stored.',
);

export const selfsubjectreviews: ResourceType = {
  group: AUTHENTICATION_GROUP,
  versions: [{ name: 'v1', schema }],
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  scope: 'Cluster',
  virtual: true,
  rest: selfSubjectReviewHooks,
  verbs: ['create'],
};
