// ServiceAccounts: identities for processes in pods; tokens are minted through /token.

import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray } from '../common/field-errors.js';
import { localObjectReference, objectReference } from '../common/meta.js';
import { atomicList, bool, described, mergeList, obj } from '../common/schema.js';
import { tokenRequestAction } from './service-account-token.js';

const schema = described(
  obj({
    secrets: mergeList(objectReference, 'name'),
    imagePullSecrets: atomicList(localObjectReference),
    automountServiceAccountToken: bool,
  }),
  {
    secrets:
      'Secrets in the same namespace that hold long-lived tokens of this account (made by the token controller for older clients). Pods get short-lived tokens through the token subresource instead.',
    imagePullSecrets: 'Registry credentials, by Secret name, added to every pod that runs as this account and names none of its own.',
    automountServiceAccountToken: 'Whether pods running as this account get a token of it mounted by default. A pod can decide otherwise with its own setting. Defaults to true.',
  },
  'An identity for processes that run in pods. Pods run as a service account of their namespace and authenticate to the API server with tokens of it.',
);

export const serviceaccounts: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  scope: 'Namespaced',
  returnDeletedObject: true,
  shortNames: ['sa'],
  generation: false,
  subresources: { others: [{ name: 'token', kind: 'TokenRequest', verbs: ['create'] }] },
  rest: { actions: { token: tokenRequestAction } },
  columns: [{ name: 'Secrets', type: 'integer', description: 'The number of secrets listed by the service account', cell: (o) => asArray(o.secrets).length }, ageColumn],
};
