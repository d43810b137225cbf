// The gateway: the HTTP(S) front of the API. Wiring only: the watch cache and its feed, the
// generic store, the filter chain (filters/chain.ts), the resource handlers (handlers/) and the
// non-resource routes (routes/). ARCHITECTURE.md follows a request through them.

import type { NatsConnection } from '@nats-io/nats-core';
import type { KV } from '@nats-io/kv';
import type { Logger } from 'pino';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_BUCKET, RBAC_GROUP } from '../../shared/api/groups.js';
import { instrumentBus } from '../../shared/bus/client.js';
import { BUS_LOST_GRACE_MS, linkOf } from '../../shared/bus/link.js';
import { serviceUnavailable } from '../../shared/api/status.js';
import { AdmissionInterestCache, AuthnInterestCache, AuthzInterestCache } from '../../shared/bus/service-interest.js';
import type { Registry } from '../../shared/registry/registry.js';
import { Targets } from '../../shared/registry/target.js';
import { GenericStore } from '../../shared/registry/rest/generic-store.js';
import { admissionAdmitter } from '../../shared/registry/rest/admission.js';
import type { ServicePorts } from '../../shared/registry/types.js';
import { natsStorage } from '../../shared/bus/storage-client.js';
import { natsAdmission, natsAuthn, natsAuthz } from '../../shared/bus/service-clients.js';
import { BucketNotFoundError, lastRevision, openObjectBucket } from '../../shared/store/kv-bucket.js';
import { waitForJetStream } from '../../shared/store/wait-for-jetstream.js';
import { escapeToken } from '../../shared/store/key-codec.js';
import { startCacheFeed } from '../../shared/store/kv-feed.js';
import { namespaceFacts, WatchCache } from '../../shared/store/watch-cache.js';
import { readChangeLog } from '../../shared/store/change-log.js';
import { defaultIdentityOptions, Identity, type IdentityOptions } from './identity.js';
import { filterChain, installFilters } from './filters/chain.js';
import { apiState } from './filters/request-info.js';
import { GatewayMetrics } from './metrics.js';
import type { InFlightLimits } from './filters/max-in-flight.js';
import { defaultHandlerOptions, type HandlerDeps, type HandlerOptions } from './handlers/context.js';
import { serveResource } from './handlers/index.js';
import { DecodePool } from './handlers/decode-pool.js';
import { memoryReleased } from '../../shared/idle-reclaim.js';
import { WatchBudget } from './handlers/watch-sink.js';
import { CacheReader } from './reads/reader.js';
import { followCustomResources } from './custom-resources.js';
import { Aggregation } from './aggregation/api-services.js';
import type { ProxyClientCertificate } from './aggregation/backends.js';
import { proxyToApiService } from './aggregation/proxy.js';
import { proxyUpgradeToApiService } from './aggregation/upgrade-proxy.js';
import { routeUpgrades, upgradeOf } from './upgrades.js';
import { ensureLocalApiServices } from './local-api-services.js';
import { CustomResourceApiServices } from './crd-api-services.js';
import { serveNonResource, type NonResourceDeps } from './routes/index.js';
import { Discovery } from './routes/discovery.js';
import { gatewayHealth } from './routes/health.js';
import { createServer, type TlsConfig } from './server.js';
import { ensureSystemNamespaces } from './bootstrap.js';
import { publishAuthenticationInfo, type AuthenticationInfo } from './authentication-info.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, parseServiceNetwork, type ServiceNetwork } from '../../shared/registry/builtin/core/service-network.js';
import { serviceAllocator } from '../../shared/registry/builtin/core/service-allocator.js';
import { services } from '../../shared/registry/builtin/core/service.js';
import { defaultFeatureGates, type FeatureGates } from '../../shared/config/feature-gates.js';
import { dropDisabledFields } from '../../shared/registry/builtin/feature-gated-fields.js';
import { createAuditor, type AuditSetup } from './audit.js';
import type { MetricsOptions } from '../../shared/metrics/registry.js';
import { gitVersionOf, SERVED_RELEASE } from '../../shared/api/version.js';
import { versionInfo } from '../../shared/registry/discovery.js';

export interface GatewayConfig {
  bucket: string;
  /** PEM material; without it the gateway serves plain HTTP (tests, or TLS terminated in front). */
  tls?: TlsConfig;
  watchWindowMs: number;
  /** Where Services' cluster IPs and node ports come from. */
  serviceNetwork: ServiceNetwork;
  bookmarkIntervalMs: number;
  servicePingTimeoutMs: number;
  identity: IdentityOptions;
  handlers: HandlerOptions;
  /** `--feature-gates`: what the handlers (list chunking) and the store's writes (gated fields) see. */
  featureGates: FeatureGates;
  /** `--max-requests-inflight` / `--max-mutating-requests-inflight`. */
  inFlight: InFlightLimits;
  /** Graceful shutdown as upstream: keep serving this long with /readyz failing, then drain. */
  shutdownDelayMs: number;
  shutdownSendRetryAfter: boolean;
  livezGracePeriodMs: number;
  /** `--request-timeout`: the longest a non-long-running request may take; `?timeout=` may ask for less. */
  requestTimeoutMs: number;
  /** `--audit-*`: the policy and backends (services/gateway/audit.ts loadAudit); null: no auditing. */
  audit: AuditSetup | null;
  /** `--show-hidden-metrics-for-version`, `--disabled-metrics`. */
  metrics: MetricsOptions;
  /** `--proxy-client-cert-file` / `--proxy-client-key-file`: presented to remote APIServices' backends. */
  proxyClientCertificate?: ProxyClientCertificate;
  /** `--emulated-version`: the release `<major>.<minor>` /version reports (shared/api/version.ts). */
  emulatedVersion: string;
  /** What the gateway publishes in extension-apiserver-authentication for aggregated API servers. */
  authenticationInfo?: AuthenticationInfo;
}

export const defaultGatewayConfig: GatewayConfig = {
  bucket: DEFAULT_BUCKET,
  watchWindowMs: 5 * 60_000,
  serviceNetwork: parseServiceNetwork(DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE),
  // Upstream's watch cache bookmarks about once a minute; more often only costs idle watchers CPU.
  bookmarkIntervalMs: 60_000,
  servicePingTimeoutMs: 1_000,
  identity: defaultIdentityOptions,
  handlers: defaultHandlerOptions,
  featureGates: defaultFeatureGates(),
  inFlight: { readOnly: 400, mutating: 200 },
  shutdownDelayMs: 0,
  shutdownSendRetryAfter: false,
  livezGracePeriodMs: 0,
  requestTimeoutMs: 60_000,
  audit: null,
  metrics: {},
  emulatedVersion: SERVED_RELEASE,
};

export interface GatewayDeps {
  nc: NatsConnection;
  registry: Registry;
  config?: Partial<GatewayConfig>;
  log: Logger;
}

export interface GatewayService {
  app: FastifyInstance;
  cache: WatchCache;
  /** Resolves once the watch cache holds the initial state and the system namespaces exist. */
  ready: Promise<void>;
  close(): Promise<void>;
}

// eslint-disable-next-line max-lines-per-function -- the gateway's composition root: each statement wires one part (cache, feed, write path, filters, routes, readiness), read top to bottom
export async function createGatewayService(deps: GatewayDeps): Promise<GatewayService> {
  const config: GatewayConfig = { ...defaultGatewayConfig, ...deps.config };
  const { nc, registry, log } = deps;
  const opts = config.handlers;
  const kv: KV = await openBucketWhenProvisioned(nc, config.bucket, log);
  const cache = new WatchCache({ windowMs: config.watchWindowMs, onCompacted: memoryReleased });
  const identity = new Identity(nc, config.identity);
  // Any change to an RBAC object invalidates every cached authorization decision.
  const rbacKeys = `${escapeToken(RBAC_GROUP)}.`;
  // Definitions of custom resources: their types follow the cache (custom-resources.ts).
  const customResources = followCustomResources({ cache, registry, log, features: config.featureGates });
  // Remote APIServices: proxied to, and merged into discovery (aggregation/).
  const aggregation = new Aggregation({ cache, registry, log, ...(config.proxyClientCertificate ? { proxyClientCertificate: config.proxyClientCertificate } : {}) });
  // A Local APIService per custom resource group/version, kept in step once the gateway is ready (crd-api-services.ts).
  let crdApiServices: CustomResourceApiServices | undefined;
  const feed = startCacheFeed(kv, cache, {
    log,
    history: (through, since) => readChangeLog(nc, { bucket: config.bucket, through, log, ...(since ? { since } : {}) }),
    onChange: (key, revision) => {
      if (key.startsWith(rbacKeys)) identity.rbacChanged(revision);
      else if (customResources.isDefinitionKey(key)) customResources.changed();
      else if (aggregation.isApiServiceKey(key)) {
        aggregation.changed();
        crdApiServices?.sync();
      }
    },
  });
  const admissionInterest = new AdmissionInterestCache(nc, log);
  const authnInterest = new AuthnInterestCache(nc, log);
  const authzInterest = new AuthzInterestCache(nc, log);
  void admissionInterest.start();
  void authnInterest.start();
  void authzInterest.start();

  const reader = new CacheReader(cache, () => lastRevision(nc, config.bucket, config.handlers.busTimeoutMs), opts);
  const { store, ports } = writePath(nc, registry, config, reader, cache, admissionInterest);
  const targets = new Targets(registry);
  crdApiServices = new CustomResourceApiServices({ store, targets, registry, log, list: (t) => reader.lookupAll(t.storage.group, t.storage.resource) });
  const metrics = new GatewayMetrics({ ...config.metrics, log });
  metrics.observeCache(cache);
  instrumentBus(nc, metrics.bus);
  const auditor = config.audit ? await createAuditor(config.audit, metrics.audit, log) : null;
  const decoder = new DecodePool();
  const handlerDeps: HandlerDeps = {
    registry,
    store,
    reader,
    services: ports,
    metrics,
    watchBudget: new WatchBudget(opts.maxWatchBufferedBytes),
    options: opts,
    features: config.featureGates,
    authorize: (attrs) => identity.authorize(attrs),
  };
  let shuttingDown = false;
  let draining = false;
  // A gateway cut off from NATS (a partition: its pings go unanswered) cannot follow the store:
  // its watches end with an error once the connection has been down for the grace period, rather
  // than stay open and silent, and /readyz fails so balancers send its clients elsewhere.
  const link = linkOf(nc);
  const stopFollowing = link.listen({
    onLost: () => {
      log.warn({ graceMs: BUS_LOST_GRACE_MS }, 'NATS connection lost; ending every watch');
      cache.failWatches(serviceUnavailable('the gateway lost its connection to NATS and cannot follow changes; watch again').status);
    },
    onBack: () => {
      log.info('NATS connection back; serving watches again');
      cache.followingAgain();
    },
  });
  const routes: NonResourceDeps = {
    discovery: new Discovery(registry, aggregation, versionInfo({ gitVersion: gitVersionOf(config.emulatedVersion) })),
    metrics,
    health: gatewayHealth({
      nc,
      busUp: () => link.up(),
      cacheReady: () => cache.synced && feed.healthy(),
      shuttingDown: () => shuttingDown,
      pingTimeoutMs: config.servicePingTimeoutMs,
      livezGraceUntil: Date.now() + config.livezGracePeriodMs,
    }),
  };

  const app = createServer(config.tls, log);
  installFilters(
    app,
    filterChain({
      identity,
      authnInterest,
      authzInterest,
      clientCertificates: Boolean(config.tls?.clientCA),
      targets,
      metrics,
      log,
      inFlight: config.inFlight,
      refuseNewRequests: () => draining && config.shutdownSendRetryAfter,
      auditor,
      requestTimeoutMs: config.requestTimeoutMs,
    }),
  );
  const handler = (req: FastifyRequest, reply: FastifyReply) => {
    const api = apiState(req);
    const remote = aggregation.remoteFor(api.info, api.path);
    if (remote) {
      const upgrade = upgradeOf(req.raw);
      return upgrade ? proxyUpgradeToApiService(req, reply, api, remote, aggregation.backends, upgrade, log) : proxyToApiService(req, reply, api, remote, aggregation.backends, log);
    }
    return api.info.isResourceRequest ? serveResource(req, reply, api, handlerDeps, targets, decoder) : serveNonResource(req, reply, api, routes);
  };
  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/*', handler });
  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/', handler });
  // Upgrade requests (exec, attach, port-forward) take the same filters and handler (upgrades.ts).
  const upgrades = routeUpgrades(app, log);

  const timers = [setInterval(() => cache.sendBookmarks(), config.bookmarkIntervalMs), setInterval(() => cache.compact(), Math.min(10_000, config.watchWindowMs))];
  for (const t of timers) t.unref();

  const ready = (async () => {
    await feed.synced;
    customResources.refresh();
    aggregation.refresh();
    await ensureSystemNamespaces(store, targets, log, () => shuttingDown);
    if (config.authenticationInfo) await publishAuthenticationInfo(store, targets, config.authenticationInfo, log, () => shuttingDown);
    await ensureLocalApiServices(
      store,
      targets,
      log,
      () => shuttingDown,
      (t) => reader.lookupAll(t.storage.group, t.storage.resource),
    );
    if (!shuttingDown) crdApiServices?.start();
  })();
  ready.catch(() => undefined);

  return {
    app,
    cache,
    ready,
    close: async () => {
      // Upstream's order: /readyz fails first so load balancers stop sending; requests are still
      // served for the delay; then no new connections, watches end with a last bookmark so their
      // clients resume elsewhere, and the requests in flight finish before anything they need stops.
      shuttingDown = true;
      if (config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
      draining = true;
      for (const t of timers) clearInterval(t);
      cache.closeAll({ finalBookmark: true });
      upgrades.closeAll();
      await app.close();
      // Every request has ended: what the audit backends still hold is written before they close.
      await auditor?.shutdown();
      admissionInterest.stop();
      authnInterest.stop();
      authzInterest.stop();
      stopFollowing();
      await decoder.close();
      crdApiServices?.stop();
      aggregation.close();
      customResources.close();
      await feed.stop();
    },
  };
}

/**
 * The generic store over the watch cache's reads, with storage, admission and the other services
 * through their NATS clients, each request given the bus deadline.
 */
function writePath(
  nc: NatsConnection,
  registry: Registry,
  config: GatewayConfig,
  reader: CacheReader,
  cache: WatchCache,
  admissionInterest: AdmissionInterestCache,
): { store: GenericStore; ports: ServicePorts } {
  const timeoutMs = config.handlers.busTimeoutMs;
  const storage = natsStorage(nc, timeoutMs);
  const ports: ServicePorts = { authn: natsAuthn(nc, timeoutMs), authz: natsAuthz(nc, timeoutMs) };
  const store = new GenericStore({
    registry,
    source: reader,
    admit: admissionAdmitter(natsAdmission(nc, admissionInterest, timeoutMs, namespaceFacts(cache)), registry.names),
    storage,
    services: ports,
    updateRetryMs: config.handlers.updateRetryMs,
    allocators: new Map([[services, serviceAllocator(config.serviceNetwork, storage)]]),
    dropDisabledFields: (type, obj, old) => dropDisabledFields(type, obj, old, config.featureGates),
  });
  return { store, ports };
}

/**
 * The storage service provisions the bucket; a gateway started first, or before JetStream has a
 * leader, waits for it (up to a minute, a log line per attempt), then exits for its supervisor.
 */
function openBucketWhenProvisioned(nc: NatsConnection, bucket: string, log: Logger): Promise<KV> {
  return waitForJetStream(nc, () => openObjectBucket(nc, { bucket, create: false }), {
    what: `open bucket ${bucket} (the storage service provisions it)`,
    log,
    alsoWaitFor: (err) => err instanceof BucketNotFoundError,
  });
}
