// The admission service's flags. Kept apart from main.ts so a test can parse them as a user's
// start-up would, with no flags at all.

import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { metricsOptionSpecs, metricsServingOptionSpecs } from '../../shared/metrics/options.js';

export const admissionOptionSpecs = {
  ...commonOptions,
  'enable-admission-plugins': { type: 'list', default: [], description: 'admission plugins to enable besides the default ones (order irrelevant)' },
  'disable-admission-plugins': { type: 'list', default: [], description: 'admission plugins to disable, default ones included (order irrelevant)' },
  bucket: { type: 'string', default: DEFAULT_BUCKET, description: 'JetStream KV bucket holding the objects' },
  ...metricsServingOptionSpecs,
  ...metricsOptionSpecs,
} satisfies OptionSpecs;
