// The admission service's flags. Kept apart from main.ts so a test can parse them as a user's
// start-up would, with no flags at all.

import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { metricsOptionSpecs, metricsServingOptionSpecs } from '../../shared/metrics/options.js';

export const admissionOptionSpecs = {
  ...commonOptions,
  'enable-admission-plugins': { type: 'list', default: [], description: 'admission plugins to enable besides the default ones (order irrelevant)' },
  'disable-admission-plugins': { type: 'list', default: [], description: 'admission plugins to disable, default ones included (order irrelevant)' },
  'admission-control-config-file': { type: 'string', description: 'AdmissionConfiguration file with the plugins\' configurations (inline or by path)' },
  'default-not-ready-toleration-seconds': { type: 'number', default: 300, description: 'DefaultTolerationSeconds: tolerationSeconds of the not-ready:NoExecute toleration added to pods without one' },
  'default-unreachable-toleration-seconds': { type: 'number', default: 300, description: 'DefaultTolerationSeconds: tolerationSeconds of the unreachable:NoExecute toleration added to pods without one' },
  bucket: { type: 'string', default: DEFAULT_BUCKET, description: 'JetStream KV bucket holding the objects' },
  ...metricsServingOptionSpecs,
  ...metricsOptionSpecs,
} satisfies OptionSpecs;

/** The flags plugins read, as the service hands them over (defaults filled in by createAdmissionService). */
export interface AdmissionServiceOptions {
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
}

export const DEFAULT_ADMISSION_SERVICE_OPTIONS: AdmissionServiceOptions = {
  defaultNotReadyTolerationSeconds: 300,
  defaultUnreachableTolerationSeconds: 300,
};
