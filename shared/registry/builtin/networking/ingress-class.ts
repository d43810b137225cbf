// IngressClasses: which controller implements an ingress class, and its parameters.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { at } from '../common/field-errors.js';
import { described, obj, str, strEnum } from '../common/schema.js';
import { immutableFields, updateValidation } from '../common/strategy.js';
import { forbidden, invalidValue, required } from '../../../api/field-errors.js';

const parameters = described(
  obj({ apiGroup: str, kind: str, name: str, scope: strEnum('Cluster', 'Namespace'), namespace: str }, ['kind', 'name']),
  {
    apiGroup: 'API group of the object; empty for the core group.',
    kind: 'Kind of the object.',
    name: 'Name of the object.',
    scope: 'Whether the object is cluster-scoped (Cluster, the default) or namespaced (Namespace).',
    namespace: 'Namespace of the object; required when scope is Namespace and forbidden otherwise.',
  },
  'A reference to an object holding settings of the controller.',
);

const ingressClassSpec = described(
  obj({ controller: str, parameters }),
  {
    controller: 'Name of the controller that serves ingresses of this class, such as `example.com/ingress-controller`; at most 250 characters. Cannot be changed.',
    parameters: 'Further settings for the controller, in an object of its own kind. Unset: none.',
  },
  'Which controller implements the class, and its settings.',
);

const schema = described(
  obj({ spec: ingressClassSpec }),
  { spec: 'Which controller implements the class, and its settings.' },
  'A class of ingresses served by one ingress controller. Ingresses name it in spec.ingressClassName; the class annotated `ingressclass.platform.io/is-default-class: "true"` is given to new ingresses that name none.',
);

function validate(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const c = at(o, 'spec.controller');
  if (typeof c === 'string' && c.length > 250) errs.push(invalidValue('spec.controller', c, 'must be no more than 250 characters'));
  const scope = at(o, 'spec.parameters.scope');
  const ns = at(o, 'spec.parameters.namespace');
  if (scope === 'Namespace' && !ns) errs.push(required('spec.parameters.namespace', '`parameters.scope` is set to "Namespace"'));
  if (scope !== 'Namespace' && ns) errs.push(forbidden('spec.parameters.namespace', '`parameters.scope` is set to "Cluster"'));
  return errs;
}

export const ingressclasses: ResourceType = {
  group: 'networking.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'IngressClass',
  listKind: 'IngressClassList',
  plural: 'ingressclasses',
  singular: 'ingressclass',
  scope: 'Cluster',
  columns: [
    { name: 'Controller', type: 'string', cell: (o) => at(o, 'spec.controller') ?? '' },
    {
      name: 'Parameters',
      type: 'string',
      cell: (o) => {
        const p = at(o, 'spec.parameters') as Record<string, unknown> | undefined;
        return p ? `${String(p.kind)}.${String(p.apiGroup ?? '')}/${String(p.name)}`.replace('./', '/') : '<none>';
      },
    },
    ageColumn,
  ],
  strategy: { validate, validateUpdate: updateValidation(validate, (o, old) => immutableFields(o, old, ['spec.controller'])) },
};
