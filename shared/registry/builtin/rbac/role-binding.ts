// RoleBindings: grant a Role or ClusterRole to subjects within one namespace.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { atomicList, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { bindingColumns } from './binding-columns.js';
import { defaultBinding, roleRef, roleRefImmutable, subject, validateBinding } from './rules.js';
import { rbacHooks } from './escalation-guard.js';
import { RBAC_GROUP } from '../../../api/groups.js';

const schema = obj({ subjects: atomicList(subject), roleRef }, ['roleRef']);

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
