// Roles: namespaced sets of permissions. The default table (Name, Created At) is what kubectl shows.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { atomicList, described, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { policyRule, validateRules } from './rules.js';
import { rbacHooks } from './escalation-guard.js';
import { RBAC_GROUP } from '../../../api/groups.js';

const schema = described(
  obj({ rules: atomicList(policyRule) }),
  { rules: 'The permissions the role grants, inside its namespace. Non-resource URLs cannot be granted here.' },
  'A set of permissions inside one namespace. A RoleBinding in the same namespace grants it to users, groups or service accounts. Creating or changing a role needs every permission it grants, or the escalate verb on it.',
);

function validate(o: ApiObject): FieldError[] {
  return validateRules(o.rules, true);
}

export const roles: ResourceType = {
  group: RBAC_GROUP,
  versions: [{ name: 'v1', schema }],
  kind: 'Role',
  plural: 'roles',
  singular: 'role',
  scope: 'Namespaced',
  createOnUpdate: true,
  rest: rbacHooks,
  nameRule: 'path-segment',
  generation: false,
  strategy: { validate, validateUpdate: updateValidation(validate) },
};
