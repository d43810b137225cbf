// The controllers service's flags, named as upstream's controller manager names them. Pure, so the
// mapping is table-tested without starting anything.

import { OptionsError, type Options, type OptionSpecs } from '../../shared/config/options.js';
import { metricsOptionSpecs } from '../../shared/metrics/options.js';

export const controllersOptionSpecs = {
  'log-level': { type: 'string', default: 'info', description: 'pino log level' },
  kubeconfig: {
    type: 'string',
    description: "client configuration file (kubeconfig format) naming the gateway and this service's credentials; else $PLATFORMCONFIG, ~/.platform/config, or the in-cluster service account",
  },
  master: { type: 'string', description: 'address of the API server (overrides the server of the client configuration)' },
  controllers: { type: 'list', default: ['*'], description: "controllers to run: '*' is every controller on by default, 'foo' adds one, '-foo' removes one" },
  'root-ca-file': { type: 'string', description: 'root CA bundle published as platform-root-ca.crt in every namespace; default: the CA of the client configuration' },
  'cluster-signing-cert-file': { type: 'string', description: 'PEM CA certificate the csrsigning controller issues certificates under (for every built-in signer)' },
  'cluster-signing-key-file': { type: 'string', description: 'PEM private key (ECDSA or RSA) of --cluster-signing-cert-file' },
  'cluster-signing-duration': { type: 'duration', default: '8760h', description: 'longest lifetime of an issued certificate (a request may ask for less with spec.expirationSeconds)' },
  // Upstream 1.24's controller manager still takes the old name, deprecated since 1.19.
  'experimental-cluster-signing-duration': {
    type: 'duration',
    aliasOf: 'cluster-signing-duration',
    deprecated: 'use --cluster-signing-duration',
    description: 'old name of --cluster-signing-duration',
  },
  'service-account-private-key-file': {
    type: 'string',
    description: 'PEM private key the serviceaccount-token controller signs legacy service-account tokens with (the authn service must verify with its public half)',
  },
  'resource-quota-sync-period': {
    type: 'duration',
    default: '5m',
    description: 'how often the resourcequota controller recounts the usage of every quota (it also recounts a quota when its spec.hard changes and when a tracked object is deleted)',
  },
  'concurrent-resource-quota-syncs': { type: 'number', default: 5, description: 'how many quotas the resourcequota controller recounts at once' },
  'leader-elect': { type: 'boolean', default: true, description: 'elect a leader on a Lease so that of several replicas only one acts' },
  'leader-elect-lease-duration': { type: 'duration', default: '15s', description: 'how long a non-leader waits after the last renewal before taking the lease over' },
  'leader-elect-renew-deadline': { type: 'duration', default: '10s', description: 'how long the leader keeps trying to renew before it stops acting' },
  'leader-elect-retry-period': {
    type: 'duration',
    default: '2s',
    description: 'interval between tries to acquire the lease and between failed renewals (a leader renews a third of the way into its lease)',
  },
  'leader-elect-resource-namespace': { type: 'string', default: 'platform-system', description: 'namespace of the Lease' },
  'leader-elect-resource-name': { type: 'string', default: 'platform-controller-manager', description: 'name of the Lease' },
  'use-service-account-credentials': {
    type: 'boolean',
    default: false,
    description:
      "run each controller as its own service account in platform-system (named as upstream's, e.g. namespace-controller, authorized by the bootstrap role system:controller:namespace-controller), with a token this service obtains for it through the TokenRequest API; the election and serviceaccount-token keep this service's own credentials",
  },
  'secure-port': { type: 'number', default: 10257, description: 'port of the HTTPS endpoint serving /healthz, /livez, /readyz and /metrics; 0 disables it' },
  'bind-address': { type: 'string', default: '0.0.0.0', description: 'address --secure-port listens on' },
  'tls-cert-file': { type: 'string', description: 'PEM serving certificate of --secure-port (with intermediates after it); default: a self-signed one made at start' },
  'tls-private-key-file': { type: 'string', description: 'PEM private key of --tls-cert-file' },
  'proxy-client-cert-file': {
    type: 'string',
    description: "client certificate (PEM) apiservice-availability presents to remote APIServices' backends when it checks them (the gateway's --proxy-client-cert-file)",
  },
  'proxy-client-key-file': { type: 'string', description: 'private key (PEM) of --proxy-client-cert-file' },
  'authorization-always-allow-paths': {
    type: 'list',
    default: ['/healthz', '/readyz', '/livez'],
    description: 'paths answered without authentication or authorization (an entry ending in * is a prefix); any other path needs a TokenReview and a SubjectAccessReview through the API',
  },
  ...metricsOptionSpecs,
} satisfies OptionSpecs;

/** Every controller this service has, and whether `*` includes it (upstream's defaults). */
export const KNOWN_CONTROLLERS: Readonly<Record<string, boolean>> = {
  namespace: true,
  garbagecollector: true,
  serviceaccount: true,
  'root-ca-cert-publisher': true,
  'serviceaccount-token': true,
  podgc: true,
  resourcequota: true,
  'pvc-protection': true,
  'pv-protection': true,
  csrsigning: true,
  csrapproving: true,
  csrcleaner: true,
  // Upstream runs it in the API server; here, with the other controllers (definitions become
  // Established where it runs).
  customresourcedefinitions: true,
  // Upstream's AvailableConditionController, also run in the API server there.
  'apiservice-availability': true,
  // Off unless named, as upstream's.
  tokencleaner: false,
  bootstrapsigner: false,
};

/** Upstream's `--controllers` semantics; an unknown name fails start. */
export function selectControllers(list: readonly string[]): string[] {
  const enabled = new Set<string>();
  const disabled = new Set<string>();
  let star = false;
  for (const raw of list) {
    const item = raw.trim();
    if (!item) continue;
    if (item === '*') {
      star = true;
      continue;
    }
    const off = item.startsWith('-');
    const name = off ? item.slice(1) : item;
    if (!(name in KNOWN_CONTROLLERS)) {
      throw new OptionsError(`--controllers: unknown controller "${name}"; known: ${Object.keys(KNOWN_CONTROLLERS).join(', ')}`);
    }
    (off ? disabled : enabled).add(name);
  }
  return Object.keys(KNOWN_CONTROLLERS).filter((n) => !disabled.has(n) && (enabled.has(n) || (star && KNOWN_CONTROLLERS[n])));
}

export type ControllersOptions = Options<typeof controllersOptionSpecs>;
