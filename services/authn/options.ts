// The authn service's flags (named as upstream's) and their mapping onto an AuthnConfig. Pure, so
// the mapping is table-tested without starting anything.

import { commonOptions, OptionsError, type Options, type OptionSpecs } from '../../shared/config/options.js';
import type { AuthnConfig } from './config.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { metricsOptionSpecs, metricsServingOptionSpecs } from '../../shared/metrics/options.js';

export const authnOptionSpecs = {
  ...commonOptions,
  bucket: { type: 'string', default: DEFAULT_BUCKET, description: 'object bucket watched for bootstrap tokens and service-account lookups' },
  'token-auth-file': { type: 'string', description: 'CSV of static bearer tokens: token,user,uid[,"group1,group2"]' },
  'anonymous-auth': { type: 'boolean', default: true, description: 'treat requests without credentials as system:anonymous' },
  'client-ca-file': { type: 'string', description: 'PEM bundle of CAs that sign client certificates (CN = user, O = groups)' },
  'requestheader-client-ca-file': { type: 'string', description: "PEM bundle of CAs that sign the authenticating proxy's client certificate" },
  'requestheader-username-headers': { type: 'list', description: 'headers holding the user name, first non-empty wins (e.g. X-Remote-User)' },
  'requestheader-group-headers': { type: 'list', description: 'headers holding groups (e.g. X-Remote-Group)' },
  'requestheader-extra-headers-prefix': { type: 'list', description: 'header prefixes of extra attributes (e.g. X-Remote-Extra-)' },
  'requestheader-allowed-names': { type: 'list', description: "common names the proxy's certificate may carry; empty = any" },
  'enable-bootstrap-token-auth': { type: 'boolean', default: false, description: 'accept bootstrap tokens (secrets bootstrap-token-<id> in platform-system)' },
  'service-account-key-file': {
    type: 'list',
    repeatable: true,
    description: 'PEM keys (public, private or certificates) that verify service-account tokens; default --tls-private-key-file when that is an RSA or ECDSA key',
  },
  'tls-private-key-file': {
    type: 'string',
    description: "the API server's serving key (the gateway's --tls-private-key-file): verifies service-account tokens when no --service-account-key-file is given",
  },
  'service-account-signing-key-file': { type: 'string', description: 'PEM private key that signs service-account tokens (TokenRequest)' },
  'service-account-issuer': { type: 'list', repeatable: true, description: 'issuer of service-account tokens; the first signs, all are accepted' },
  'service-account-lookup': { type: 'boolean', default: true, description: 'reject tokens of deleted service accounts, secrets and pods' },
  'service-account-max-token-expiration': { type: 'duration', description: 'cap on the lifetime of issued tokens' },
  'api-audiences': { type: 'list', description: 'audiences of the API server; default the first service-account issuer' },
  'oidc-issuer-url': { type: 'string', description: 'https URL of the OpenID Connect issuer' },
  'oidc-client-id': { type: 'string', description: 'audience ID tokens must be issued to' },
  'oidc-username-claim': { type: 'string', default: 'sub', description: 'claim used as the user name' },
  'oidc-username-prefix': { type: 'string', description: 'prefix of user names; default "<issuer>#" unless the claim is email; "-" disables' },
  'oidc-groups-claim': { type: 'string', description: 'claim holding the groups (string array)' },
  'oidc-groups-prefix': { type: 'string', description: 'prefix of group names' },
  'oidc-required-claim': { type: 'list', repeatable: true, description: 'key=value a token must carry; repeatable' },
  'oidc-ca-file': { type: 'string', description: "CA of the provider's serving certificate; default the host roots" },
  'oidc-signing-algs': { type: 'list', default: ['RS256'], description: 'accepted signing algorithms' },
  'authentication-token-webhook-config-file': { type: 'string', description: 'client configuration (kubeconfig format) of the token webhook' },
  'authentication-token-webhook-cache-ttl': { type: 'duration', default: '2m', description: 'how long webhook answers are cached' },
  'authentication-token-webhook-version': { type: 'string', default: 'v1beta1', description: 'TokenReview version sent to the webhook: v1beta1 or v1' },
  ...metricsServingOptionSpecs,
  ...metricsOptionSpecs,
} satisfies OptionSpecs;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String).filter(Boolean) : typeof v === 'string' && v ? [v] : []);

export function authnConfigFromOptions(opts: Options<typeof authnOptionSpecs>): AuthnConfig {
  const config: AuthnConfig = { anonymousAuth: opts['anonymous-auth'] !== false, bucket: str(opts.bucket) ?? DEFAULT_BUCKET };
  const tokenAuthFile = str(opts['token-auth-file']);
  if (tokenAuthFile) config.tokenAuthFile = tokenAuthFile;
  const clientCAFile = str(opts['client-ca-file']);
  if (clientCAFile) config.clientCAFile = clientCAFile;

  const rhCA = str(opts['requestheader-client-ca-file']);
  const usernameHeaders = list(opts['requestheader-username-headers']);
  if (rhCA || usernameHeaders.length) {
    if (!rhCA) throw new OptionsError('--requestheader-username-headers needs --requestheader-client-ca-file');
    if (!usernameHeaders.length) throw new OptionsError('--requestheader-client-ca-file needs --requestheader-username-headers');
    config.requestHeader = {
      clientCAFile: rhCA,
      usernameHeaders,
      groupHeaders: list(opts['requestheader-group-headers']),
      extraHeadersPrefixes: list(opts['requestheader-extra-headers-prefix']),
      allowedNames: list(opts['requestheader-allowed-names']),
    };
  }
  if (opts['enable-bootstrap-token-auth'] === true) config.enableBootstrapTokenAuth = true;

  const keyFiles = list(opts['service-account-key-file']);
  const signingKeyFile = str(opts['service-account-signing-key-file']);
  const issuers = list(opts['service-account-issuer']);
  const servingKeyFile = str(opts['tls-private-key-file']);
  if (keyFiles.length || signingKeyFile || issuers.length || servingKeyFile) {
    if (signingKeyFile && !issuers.length) throw new OptionsError('--service-account-signing-key-file needs --service-account-issuer');
    config.serviceAccount = { keyFiles, issuers, lookup: opts['service-account-lookup'] !== false };
    if (servingKeyFile && !keyFiles.length) config.serviceAccount.servingKeyFile = servingKeyFile;
    if (signingKeyFile) config.serviceAccount.signingKeyFile = signingKeyFile;
    const audiences = list(opts['api-audiences']);
    if (audiences.length) config.serviceAccount.apiAudiences = audiences;
    const max = opts['service-account-max-token-expiration'];
    if (typeof max === 'number') config.serviceAccount.maxExpirationSeconds = Math.floor(max / 1000);
  }

  const issuerUrl = str(opts['oidc-issuer-url']);
  const clientId = str(opts['oidc-client-id']);
  if (issuerUrl || clientId) {
    if (!issuerUrl || !clientId) throw new OptionsError('--oidc-issuer-url and --oidc-client-id must be given together');
    if (!issuerUrl.startsWith('https://')) throw new OptionsError('--oidc-issuer-url must be an https URL');
    const requiredClaims: Record<string, string> = {};
    for (const kv of list(opts['oidc-required-claim'])) {
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new OptionsError(`--oidc-required-claim expects key=value, got ${JSON.stringify(kv)}`);
      requiredClaims[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    config.oidc = { issuerUrl, clientId, usernameClaim: str(opts['oidc-username-claim']) ?? 'sub', requiredClaims, signingAlgs: list(opts['oidc-signing-algs']) };
    const optional = { usernamePrefix: 'oidc-username-prefix', groupsClaim: 'oidc-groups-claim', groupsPrefix: 'oidc-groups-prefix', caFile: 'oidc-ca-file' } as const;
    for (const [field, flag] of Object.entries(optional)) {
      const v = str(opts[flag]);
      if (v !== undefined) config.oidc[field as keyof typeof optional] = v;
    }
  }

  const webhookFile = str(opts['authentication-token-webhook-config-file']);
  if (webhookFile) {
    const version = String(opts['authentication-token-webhook-version'] ?? 'v1beta1');
    if (version !== 'v1' && version !== 'v1beta1') throw new OptionsError('--authentication-token-webhook-version must be v1 or v1beta1');
    config.webhook = { configFile: webhookFile, cacheTtlMs: Number(opts['authentication-token-webhook-cache-ttl'] ?? 120_000), version };
  }
  return config;
}
