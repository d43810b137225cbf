// PodTemplates: stored pod templates that controllers may reference.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, templateContainers } from '../common/columns.js';
import { asObject } from '../common/field-errors.js';
import { defaultPodTemplate, podTemplateSpec, validatePodTemplate } from '../common/pod-spec.js';
import { described, obj } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';

const schema = described(
  obj({ template: podTemplateSpec }),
  { template: 'The pods to make: their metadata and spec. The server fills in the same defaults as for a pod, and checks the spec as it checks a pod.' },
  'A stored pod template, for tools and controllers that make pods from a named template. Nothing acts on it by itself.',
);

function validate(o: ApiObject): FieldError[] {
  return validatePodTemplate(o.template, 'template');
}

export const podtemplates: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'PodTemplate',
  plural: 'podtemplates',
  singular: 'podtemplate',
  scope: 'Namespaced',
  columns: [
    { name: 'Containers', type: 'string', description: 'Container names', cell: (o) => templateContainers(o.template).names },
    { name: 'Images', type: 'string', description: 'Container images', cell: (o) => templateContainers(o.template).images },
    {
      name: 'Pod Labels',
      type: 'string',
      description: 'Labels of the pods created from the template',
      cell: (o) => {
        const labels = asObject(asObject(asObject(o.template)?.metadata)?.labels) ?? {};
        const parts = Object.entries(labels).map(([k, v]) => `${k}=${String(v)}`);
        return parts.length ? parts.join(',') : '<none>';
      },
    },
    ageColumn,
  ],
  strategy: {
    defaults(o) {
      defaultPodTemplate(o.template);
    },
    validate,
    validateUpdate: updateValidation(validate),
  },
};
