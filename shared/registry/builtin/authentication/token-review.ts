// TokenReview: "who does this token belong to?" — POSTed, answered, never stored. v1beta1 is the
// deprecated form of the same shape.

import type { ResourceType } from '../../types.js';
import { atomicList, bool, obj, str } from '../common/schema.js';
import { tokenReviewHooks } from './review-hooks.js';
import { AUTHENTICATION_GROUP } from '../../../api/groups.js';

export const userInfo = obj({ username: str, uid: str, groups: atomicList(str), extra: { type: 'object', additionalProperties: atomicList(str) } });

const schema = obj({
  spec: obj({ token: str, audiences: atomicList(str) }),
  status: obj({ authenticated: bool, user: userInfo, audiences: atomicList(str), error: str }),
});

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
