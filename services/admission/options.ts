// The admission service's flags. Kept apart from main.ts so a test can parse them as a user's
// start-up would, with no flags at all.

import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { metricsOptionSpecs, metricsServingOptionSpecs } from '../../shared/metrics/options.js';

export const admissionOptionSpecs = {
  ...commonOptions,
  'enable-admission-plugins': { type: 'list', default: [], description: 'admission plugins to enable besides the default ones (order irrelevant)' },
  'disable-admission-plugins': { type: 'list', default: [], description: 'admission plugins to disable, default ones included (order irrelevant)' },
  'admission-control-config-file': { type: 'string', description: "AdmissionConfiguration file with the plugins' configurations (inline or by path)" },
  'default-not-ready-toleration-seconds': { type: 'number', default: 300, description: 'DefaultTolerationSeconds: tolerationSeconds of the not-ready:NoExecute toleration added to pods without one' },
  'default-unreachable-toleration-seconds': {
    type: 'number',
    default: 300,
    description: 'DefaultTolerationSeconds: tolerationSeconds of the unreachable:NoExecute toleration added to pods without one',
  },
  bucket: { type: 'string', default: DEFAULT_BUCKET, description: 'JetStream KV bucket holding the objects' },
  ...metricsServingOptionSpecs,
  ...metricsOptionSpecs,
  'webhook-service-resolver': {
    type: 'list',
    default: [],
    description:
      "admission webhooks named by a Service: where to reach <service>.<namespace>.svc[:<port>] instead of the Service's endpoints, as comma-separated <service>.<namespace>.svc[:<port>]=<host>:<port> (no port: every port of the service), e.g. hook.apps.svc:443=127.0.0.1:8443; for running without a pod network. The serving certificate is still checked for <service>.<namespace>.svc",
  },
} satisfies OptionSpecs;

/** The flags plugins read, as the service hands them over (defaults filled in by createAdmissionService). */
export interface AdmissionServiceOptions {
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  /** `--webhook-service-resolver` entries, `<svc>.<ns>.svc[:<port>]=<host>:<port>` (checked by the webhook plugins). */
  webhookServiceResolver: string[];
}

export const DEFAULT_ADMISSION_SERVICE_OPTIONS: AdmissionServiceOptions = {
  defaultNotReadyTolerationSeconds: 300,
  defaultUnreachableTolerationSeconds: 300,
  webhookServiceResolver: [],
};
