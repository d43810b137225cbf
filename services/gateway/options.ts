// The gateway's flags. Kept apart from main.ts so a test can parse them as a user's start-up
// would, with no flags at all.

import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { defaultHandlerOptions } from './handlers/context.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { SERVED_RELEASE } from '../../shared/api/version.js';
import { featureGatesOption } from '../../shared/config/feature-gates.js';
import { auditOptionSpecs } from './audit.js';
import { metricsOptionSpecs } from '../../shared/metrics/options.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE } from '../../shared/registry/builtin/core/service-network.js';

export const gatewayOptionSpecs = {
  ...commonOptions,
  'secure-port': { type: 'number', default: 6443, description: 'HTTPS port' },
  'bind-address': { type: 'string', default: '127.0.0.1', description: 'address to listen on' },
  'tls-cert-file': { type: 'string', description: 'serving certificate (PEM); without it the gateway serves plain HTTP' },
  'tls-private-key-file': { type: 'string', description: 'serving key (PEM)' },
  'client-ca-file': { type: 'string', description: 'CA bundle of client certificates: the TLS handshake asks for one (the authn service verifies it)' },
  'requestheader-client-ca-file': {
    type: 'string',
    description:
      "CA bundle of the authenticating proxy's client certificate (also asked for in the handshake), published with --client-ca-file in the ConfigMap extension-apiserver-authentication of platform-system for aggregated API servers: it should hold the CA of --proxy-client-cert-file",
  },
  'proxy-client-cert-file': {
    type: 'string',
    description:
      'client certificate (PEM) the gateway presents to the backends of remote APIServices, which trust it to name the user in X-Remote-* headers (their --requestheader-client-ca-file must hold its CA)',
  },
  'proxy-client-key-file': { type: 'string', description: 'private key (PEM) of --proxy-client-cert-file' },
  'emulated-version': {
    type: 'string',
    default: SERVED_RELEASE,
    description: `the release <major>.<minor> /version (and OpenAPI's info.version) reports; default the one whose API is served (${SERVED_RELEASE}). It changes only what is reported: the groups, versions and behaviour served stay ${SERVED_RELEASE}'s`,
  },
  bucket: { type: 'string', default: DEFAULT_BUCKET, description: 'KV bucket holding the objects' },
  'runtime-config': { type: 'string', default: '', description: 'enable/disable API versions: <group>/<version>[=true|false],...' },
  'upstream-group-aliases': {
    type: 'boolean',
    default: false,
    description: "also serve every branded group (*.platform.io) under upstream's spelling (*.k8s.io), so stock manifests and kubectl's typed commands work; the authz service needs the same setting",
  },
  'service-cluster-ip-range': {
    type: 'string',
    default: DEFAULT_SERVICE_CLUSTER_IP_RANGE,
    description: 'CIDR range(s) Service cluster IPs are allocated from; two (one IPv4, one IPv6, comma-separated) make the cluster dual-stack, the first is the primary family',
  },
  'service-node-port-range': { type: 'string', default: DEFAULT_SERVICE_NODE_PORT_RANGE, description: 'ports NodePort and LoadBalancer Services are allocated from (<first>-<last>)' },
  'watch-cache-window': { type: 'duration', default: '5m', description: 'how long watch history and continue tokens stay valid' },
  'feature-gates': featureGatesOption,
  'max-requests-inflight': {
    type: 'number',
    default: 400,
    description: 'read requests served at once (watches and other long-running requests not counted); beyond it 429 with Retry-After; 0: no limit',
  },
  'max-mutating-requests-inflight': { type: 'number', default: 200, description: 'write requests served at once; beyond it 429 with Retry-After; 0: no limit' },
  'shutdown-delay-duration': {
    type: 'duration',
    default: '0s',
    description: 'on SIGTERM, how long the gateway keeps serving with /readyz failing (so load balancers take it out) before it stops accepting connections',
  },
  'shutdown-send-retry-after': { type: 'boolean', default: false, description: 'while draining at shutdown, answer new requests 429 with Retry-After and Connection: close instead of serving them' },
  'request-timeout': {
    type: 'duration',
    default: '1m0s',
    description: 'the longest a request other than a watch or another long-running one may take (a ?timeout= may ask for less); past it the answer is 504 Timeout',
  },
  'livez-grace-period': { type: 'duration', default: '0s', description: 'after start, how long /livez reports ok whatever its checks say (a slow start is not a dead process)' },
  'max-watch-buffered-bytes': {
    type: 'number',
    default: defaultHandlerOptions.maxWatchBufferedBytes,
    description: 'bytes all watches together may hold for clients that have not read them; beyond it new watches get 429 and lagging watchers are closed',
  },
  ...auditOptionSpecs,
  ...metricsOptionSpecs,
} satisfies OptionSpecs;
