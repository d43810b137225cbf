// ClusterRoles: cluster-wide permissions, optionally aggregated from other ClusterRoles by label.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { atomicList, described, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { aggregationRule, policyRule, validateAggregationRule, validateRules } from './rules.js';
import { rbacHooks } from './escalation-guard.js';
import { RBAC_GROUP } from '../../../api/groups.js';

const schema = described(
  obj({ rules: atomicList(policyRule), aggregationRule }),
  {
    rules:
      'The permissions the role grants: on resources of every namespace or, through a RoleBinding, of one namespace, and on non-resource URLs. With aggregationRule set the server writes this list itself and overwrites changes made to it.',
    aggregationRule:
      'Makes the role the union of other ClusterRoles: the server keeps rules equal to the rules of every ClusterRole the selectors match, as those roles come and go. Setting it needs the escalate verb on the role or full authority over the cluster.',
  },
  'A set of permissions over the whole cluster: cluster-scoped resources, resources of every namespace and non-resource URLs. A ClusterRoleBinding grants it everywhere, a RoleBinding inside one namespace. Creating or changing a role needs every permission it grants, or the escalate verb on it.',
);

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
