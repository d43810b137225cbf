// Table columns of RoleBindings and ClusterRoleBindings (Role, then subjects with -o wide).

import type { ApiObject } from '../../../api/types.js';
import type { TableColumn } from '../../../api/table-column.js';
import { asArray, asObject } from '../common/field-errors.js';

function subjects(o: ApiObject, kind: string): string {
  return asArray(o.subjects)
    .map((s) => asObject(s) ?? {})
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${String(s.namespace ?? '')}/${String(s.name)}` : String(s.name)))
    .join(', ');
}

export const bindingColumns: Record<'role' | 'users' | 'groups' | 'serviceAccounts', TableColumn> = {
  role: {
    name: 'Role',
    type: 'string',
    description: 'Role referenced by the binding',
    cell: (o) => {
      const ref = asObject(o.roleRef) ?? {};
      return `${String(ref.kind ?? '')}/${String(ref.name ?? '')}`;
    },
  },
  users: { name: 'Users', type: 'string', priority: 1, description: 'Users in the binding', cell: (o) => subjects(o, 'User') },
  groups: { name: 'Groups', type: 'string', priority: 1, description: 'Groups in the binding', cell: (o) => subjects(o, 'Group') },
  serviceAccounts: { name: 'ServiceAccounts', type: 'string', priority: 1, description: 'ServiceAccounts in the binding', cell: (o) => subjects(o, 'ServiceAccount') },
};
