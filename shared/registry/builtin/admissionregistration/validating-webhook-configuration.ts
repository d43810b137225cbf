// ValidatingWebhookConfigurations: webhooks called in parallel to accept or reject objects.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray } from '../common/field-errors.js';
import { ADMISSION_GROUP, commonDefaults, mutatingOnlyCheck, validateConfiguration, validateConfigurationUpdate, versionDef } from './webhook.js';

function validate(o: ApiObject): FieldError[] {
  return [...validateConfiguration(o), ...mutatingOnlyCheck(o)];
}

export const validatingwebhookconfigurations: ResourceType = {
  group: ADMISSION_GROUP,
  versions: [versionDef('validating', 'v1'), versionDef('validating', 'v1beta1')],
  storageVersion: 'v1',
  kind: 'ValidatingWebhookConfiguration',
  plural: 'validatingwebhookconfigurations',
  singular: 'validatingwebhookconfiguration',
  scope: 'Cluster',
  columns: [{ name: 'Webhooks', type: 'integer', description: 'Webhooks is the number of webhooks in the configuration', cell: (o) => asArray(o.webhooks).length }, ageColumn],
  strategy: {
    defaults: commonDefaults('validating'),
    validate,
    validateUpdate: (o, old) => [...validateConfigurationUpdate(o, old), ...mutatingOnlyCheck(o)],
  },
};
