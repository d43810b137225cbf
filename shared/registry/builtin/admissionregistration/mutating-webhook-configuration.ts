// MutatingWebhookConfigurations: webhooks called in order to patch objects under admission.

import type { ResourceType } from '../../types.js';
import { ageColumn } from '../common/columns.js';
import { asArray } from '../common/field-errors.js';
import { ADMISSION_GROUP, commonDefaults, validateConfiguration, validateConfigurationUpdate, versionDef } from './webhook.js';

export const mutatingwebhookconfigurations: ResourceType = {
  group: ADMISSION_GROUP,
  versions: [versionDef('mutating', 'v1'), versionDef('mutating', 'v1beta1')],
  storageVersion: 'v1',
  kind: 'MutatingWebhookConfiguration',
  plural: 'mutatingwebhookconfigurations',
  singular: 'mutatingwebhookconfiguration',
  scope: 'Cluster',
  columns: [{ name: 'Webhooks', type: 'integer', description: 'Webhooks is the number of webhooks in the configuration', cell: (o) => asArray(o.webhooks).length }, ageColumn],
  strategy: {
    defaults: commonDefaults('mutating'),
    validate: (o) => validateConfiguration(o),
    validateUpdate: validateConfigurationUpdate,
  },
};
