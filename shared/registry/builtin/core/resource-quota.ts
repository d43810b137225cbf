// ResourceQuotas: per-namespace totals; `status.used` is maintained by the quota controller.

import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asObject } from '../common/field-errors.js';
import { atomicList, obj, quantityMap, str, strEnum } from '../common/schema.js';

const scopeSelector = obj(
  {
    matchExpressions: atomicList(
      obj({ scopeName: str, operator: strEnum('In', 'NotIn', 'Exists', 'DoesNotExist'), values: atomicList(str) }, ['scopeName', 'operator']),
    ),
  },
  undefined,
  { 'x-kubernetes-map-type': 'atomic' },
);

const schema = obj({
  spec: obj({ hard: quantityMap, scopes: atomicList(str), scopeSelector }),
  status: obj({ hard: quantityMap, used: quantityMap }),
});

/** `cpu: 100m/1, pods: 2/10`: used against hard, split into request and limit columns. */
function usage(o: ApiObject, limits: boolean): string {
  const hard = asObject(asObject(o.status)?.hard) ?? asObject(asObject(o.spec)?.hard) ?? {};
  const used = asObject(asObject(o.status)?.used) ?? {};
  return Object.keys(hard)
    .sort()
    .filter((k) => k.startsWith('limits.') === limits)
    .map((k) => `${k}: ${String(used[k] ?? 0)}/${String(hard[k])}`)
    .join(', ');
}

export const resourcequotas: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  singular: 'resourcequota',
  scope: 'Namespaced',
  shortNames: ['quota'],
  subresources: { status: true },
  columns: [
    ageColumn,
    { name: 'Request', type: 'string', description: 'Request represents a minimum amount of cpu/memory that a container may consume.', cell: (o) => usage(o, false) },
    { name: 'Limit', type: 'string', description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', cell: (o) => usage(o, true) },
  ],
};
