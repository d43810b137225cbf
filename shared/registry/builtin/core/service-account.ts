// ServiceAccounts: identities for processes in pods; tokens are minted through /token.

import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray } from '../common/field-errors.js';
import { localObjectReference, objectReference } from '../common/meta.js';
import { atomicList, bool, mergeList, obj } from '../common/schema.js';
import { tokenRequestAction } from './service-account-token.js';

const schema = obj({
  secrets: mergeList(objectReference, 'name'),
  imagePullSecrets: atomicList(localObjectReference),
  automountServiceAccountToken: bool,
});

export const serviceaccounts: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  scope: 'Namespaced',
  shortNames: ['sa'],
  generation: false,
  subresources: { others: [{ name: 'token', kind: 'TokenRequest', verbs: ['create'] }] },
  rest: { actions: { token: tokenRequestAction } },
  columns: [{ name: 'Secrets', type: 'integer', description: 'The number of secrets listed by the service account', cell: (o) => asArray(o.secrets).length }, ageColumn],
};
