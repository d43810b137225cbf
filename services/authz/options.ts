// The authz service's flags (named as upstream's) and their mapping onto an AuthzConfig. Pure, so
// the mapping is table-tested without starting anything.

import { commonOptions, OptionsError, type Options, type OptionSpecs } from '../../shared/config/options.js';
import { validateAuthzConfig } from './modes.js';
import type { AuthzConfig } from './types.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { metricsOptionSpecs, metricsServingOptionSpecs } from '../../shared/metrics/options.js';

export const authzOptionSpecs = {
  ...commonOptions,
  bucket: { type: 'string', default: DEFAULT_BUCKET, description: 'object bucket watched for RBAC objects and the node graph' },
  'authorization-mode': { type: 'list', default: ['AlwaysAllow'], description: 'ordered authorizers: AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook' },
  'authorization-policy-file': { type: 'string', description: 'ABAC policy file: one JSON Policy object per line (mode ABAC)' },
  'authorization-webhook-config-file': { type: 'string', description: 'client configuration (kubeconfig format) of the authorization webhook (mode Webhook)' },
  'authorization-webhook-version': { type: 'string', default: 'v1beta1', description: 'SubjectAccessReview version sent to the webhook: v1beta1 or v1' },
  'authorization-webhook-cache-authorized-ttl': { type: 'duration', default: '5m', description: 'how long an allowing webhook answer is cached' },
  'authorization-webhook-cache-unauthorized-ttl': { type: 'duration', default: '30s', description: 'how long any other webhook answer is cached' },
  'upstream-group-aliases': {
    type: 'boolean',
    default: false,
    description:
      "read upstream's spelling of a branded group (rbac.authorization.k8s.io) as the group itself (rbac.authorization.platform.io) in requests, reviews, rules, subjects and policies; set it as the gateway's is set",
  },
  ...metricsServingOptionSpecs,
  ...metricsOptionSpecs,
} satisfies OptionSpecs;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String).filter(Boolean) : typeof v === 'string' && v ? [v] : []);

/** Maps the options and checks them as upstream does; throws an OptionsError for a bad set. */
export function authzConfigFromOptions(opts: Options<typeof authzOptionSpecs>): AuthzConfig {
  const modes = list(opts['authorization-mode']);
  const config: AuthzConfig = { modes, bucket: str(opts.bucket) ?? DEFAULT_BUCKET };
  if (opts['upstream-group-aliases']) config.upstreamGroupAliases = true;
  const policyFile = str(opts['authorization-policy-file']);
  // A file for a mode that is not enabled is a mistake the operator should hear about.
  if (policyFile && !modes.includes('ABAC')) throw new OptionsError('cannot specify --authorization-policy-file without mode ABAC');
  if (policyFile) config.policyFile = policyFile;
  const webhookFile = str(opts['authorization-webhook-config-file']);
  if (webhookFile && !modes.includes('Webhook')) throw new OptionsError('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (webhookFile) {
    const version = String(opts['authorization-webhook-version'] ?? 'v1beta1');
    if (version !== 'v1' && version !== 'v1beta1') throw new OptionsError('--authorization-webhook-version must be v1 or v1beta1');
    config.webhook = {
      configFile: webhookFile,
      version,
      authorizedTtlMs: Number(opts['authorization-webhook-cache-authorized-ttl'] ?? 300_000),
      unauthorizedTtlMs: Number(opts['authorization-webhook-cache-unauthorized-ttl'] ?? 30_000),
    };
  }
  validateAuthzConfig(config);
  return config;
}
