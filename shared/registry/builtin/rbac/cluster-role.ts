// ClusterRoles: cluster-wide permissions, optionally aggregated from other ClusterRoles by label.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { atomicList, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { aggregationRule, policyRule, validateAggregationRule, validateRules } from './rules.js';
import { rbacHooks } from './escalation-guard.js';
import { RBAC_GROUP } from '../../../api/groups.js';

const schema = obj({ rules: atomicList(policyRule), aggregationRule });

function validate(o: ApiObject): FieldError[] {
  // An aggregated role's rules are written by the aggregation controller; they still must be valid.
  return [...validateRules(o.rules, false), ...validateAggregationRule(o.aggregationRule)];
}

export const clusterroles: ResourceType = {
  group: RBAC_GROUP,
  versions: [{ name: 'v1', schema }],
  kind: 'ClusterRole',
  plural: 'clusterroles',
  singular: 'clusterrole',
  scope: 'Cluster',
  createOnUpdate: true,
  rest: rbacHooks,
  nameRule: 'path-segment',
  generation: false,
  strategy: { validate, validateUpdate: updateValidation(validate) },
};
