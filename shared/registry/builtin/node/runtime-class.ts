// RuntimeClasses: named container runtime configurations pods select by `runtimeClassName`.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';

import { toleration } from '../common/pod-spec.js';
import { atomicList, described, obj, quantityMap, str, strMap } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { required } from '../../../api/field-errors.js';
import { dnsLabelError, validDnsLabel } from '../../../api/validation.js';

const overhead = described(
  obj({ podFixed: quantityMap }),
  {
    podFixed:
      'Resources (cpu, memory, ...) a pod of this class uses beyond what its containers request. Admission copies them into spec.overhead of each new pod of the class; the scheduler and resource quotas count them.',
  },
  'Resources that running a pod under this runtime takes on top of its containers.',
);

const scheduling = described(
  obj({ nodeSelector: { ...strMap, 'x-kubernetes-map-type': 'atomic' }, tolerations: atomicList(toleration) }),
  {
    nodeSelector: "Node labels a pod of this class needs. Admission merges them into the pod's nodeSelector; a pod that sets one of these keys to another value is refused.",
    tolerations: 'Tolerations admission adds to each pod of this class, so the pods can run on nodes tainted for this runtime.',
  },
  'Where pods of this class can run, for a runtime that only some nodes have.',
);

const schema = described(
  obj({ handler: str, overhead, scheduling }, ['handler']),
  {
    handler: 'Name of the runtime configuration on the node (the container runtime interface handler) that runs pods of this class. A DNS label; cannot be changed.',
    overhead: 'Resources a pod of this class uses beyond its containers. Unset: none.',
    scheduling: 'Constraints that keep pods of this class on nodes that have the runtime. Unset: every node is assumed to have it.',
  },
  "A container runtime configuration that pods select by spec.runtimeClassName. Admission gives each new pod of the class the class's overhead and scheduling constraints.",
);

function validate(o: ApiObject): FieldError[] {
  const h = o.handler;
  if (typeof h !== 'string' || !h) return [required('handler')];
  return validDnsLabel(h) ? [] : [dnsLabelError('handler', h)];
}

export const runtimeclasses: ResourceType = {
  group: 'node.platform.io',
  versions: [
    { name: 'v1', schema },
    // Upstream names no replacement for this one.
    { name: 'v1beta1', schema, deprecation: { since: '1.22', removedIn: '1.25' } },
  ],
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  singular: 'runtimeclass',
  scope: 'Cluster',
  createOnUpdate: true,
  generation: false,
  columns: [{ name: 'Handler', type: 'string', description: 'Handler is the name of the underlying runtime and configuration.', cell: (o) => o.handler ?? '' }, ageColumn],
  strategy: { validate, validateUpdate: updateValidation(validate, (o, old) => immutableFields(o, old, ['handler'])) },
};
