// RoleBindings: grant a Role or ClusterRole to subjects within one namespace.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { atomicList, described, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { bindingColumns } from './binding-columns.js';
import { defaultBinding, roleRef, roleRefImmutable, subject, validateBinding } from './rules.js';
import { rbacHooks } from './escalation-guard.js';
import { RBAC_GROUP } from '../../../api/groups.js';

const schema = described(
  obj({ subjects: atomicList(subject), roleRef }, ['roleRef']),
  {
    subjects: 'Users, groups and service accounts that receive the role. May be empty.',
    roleRef: 'The role to grant: a Role of the same namespace, or a ClusterRole whose permissions then apply inside this namespace only. Cannot be changed after creation.',
  },
  'Grants the permissions of a Role or ClusterRole to subjects, inside the namespace of the binding. Creating one needs the permissions of the role, or the bind verb on it.',
);

function validate(o: ApiObject): FieldError[] {
  return validateBinding(o, false);
}

export const rolebindings: ResourceType = {
  group: RBAC_GROUP,
  versions: [{ name: 'v1', schema }],
  kind: 'RoleBinding',
  plural: 'rolebindings',
  singular: 'rolebinding',
  scope: 'Namespaced',
  createOnUpdate: true,
  groupNameFields: ['roleRef.apiGroup', 'subjects[].apiGroup'],
  rest: rbacHooks,
  nameRule: 'path-segment',
  generation: false,
  columns: [bindingColumns.role, ageColumn, bindingColumns.users, bindingColumns.groups, bindingColumns.serviceAccounts],
  strategy: { defaults: defaultBinding, validate, validateUpdate: updateValidation(validate, roleRefImmutable) },
};
