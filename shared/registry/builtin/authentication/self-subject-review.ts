// SelfSubjectReview: "who am I?" — the caller's identity as the server sees it (after
// impersonation), answered by the gateway without storing anything.

import type { ResourceType } from '../../types.js';
import { obj } from '../common/schema.js';
import { userInfo } from './token-review.js';
import { selfSubjectReviewHooks } from './review-hooks.js';
import { AUTHENTICATION_GROUP } from '../../../api/groups.js';

const schema = obj({ status: obj({ userInfo }) });

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
