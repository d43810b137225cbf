// The admission service: answers `admission.admit` on the bus by running the enabled plugins for
// the requested phase. No environment access; main.ts reads the plugin flags and the bucket name.

import type { NatsConnection } from '@nats-io/nats-core';
import { silentLogger, type Logger } from '../../shared/log.js';
import { badRequest } from '../../shared/api/status.js';
import { AdmissionOperation, AdmissionPhase, type AdmissionInterest, type AdmissionReply, type AdmissionRequest } from '../../shared/bus/messages.js';
import { jsonEndpoint, startJsonService } from '../../shared/bus/service.js';
import { ServiceName, Subjects } from '../../shared/bus/subjects.js';
import { resolvePlugins, type AdmissionConfig } from './config.js';
import { admissionInterest, runAdmissionChain } from './chain.js';
import { startNamespaceFeed, type NamespaceFeed } from './namespace-feed.js';
import { pluginDefinition } from './plugins.js';
import type { AdmissionPlugin, PluginDeps } from './types.js';
import { DEFAULT_BUCKET } from '../../shared/api/groups.js';
import { instrumentBus } from '../../shared/bus/client.js';
import { BusMetrics } from '../../shared/bus/metrics.js';
import { MetricsRegistry } from '../../shared/metrics/registry.js';
import { AdmissionMetrics } from './metrics.js';
import { loadAdmissionConfiguration } from './admission-configuration.js';
import { ObjectCaches } from './object-cache.js';
import { storageReader } from '../../shared/bus/storage-read.js';
import { storageWriter } from './storage-writer.js';
import { DEFAULT_BUS_TIMEOUT_MS } from '../../shared/bus/client.js';
import { requestAuthorization } from '../../shared/bus/auth-messages.js';
import type { AuthzAttributes } from '../../shared/bus/messages.js';
import { DEFAULT_ADMISSION_SERVICE_OPTIONS, type AdmissionServiceOptions } from './options.js';
import { ServedTypes } from './served-types.js';
import { ServiceResolver } from './plugins/webhooks/service-resolver.js';

export type { AdmissionConfig } from './config.js';

export const ADMISSION_SERVICE_VERSION = '0.1.0';

export interface AdmissionServiceDeps {
  nc: NatsConnection;
  config: AdmissionConfig;
  /** The object bucket (default `objects`); bound, never created. */
  bucket?: string;
  log?: Logger;
  /** Delay between attempts to bind the bucket / restart the namespace watch (default 1s). */
  retryMs?: number;
  /** Where the plugins are timed (main.ts serves it at /metrics); default: a registry of its own. */
  metrics?: MetricsRegistry;
  /** The flags plugins read; defaults as the flags'. */
  options?: Partial<AdmissionServiceOptions>;
  /** How long a plugin's storage or authz request may take (default 5 s). */
  busTimeoutMs?: number;
}

export interface AdmissionService {
  /** The plugins that run, in chain order. */
  readonly plugins: string[];
  /** Resolves once the namespace cache holds the stored namespaces (immediately when no plugin needs it). */
  readonly namespacesWatching: Promise<void>;
  stop(): Promise<void>;
}

const phases = new Set<string>(Object.values(AdmissionPhase));
const operations = new Set<string>(Object.values(AdmissionOperation));

function checkRequest(req: AdmissionRequest): void {
  if (!req || typeof req !== 'object') throw badRequest('admission request must be a JSON object');
  if (!phases.has(req.phase)) throw badRequest(`unknown admission phase ${JSON.stringify(req.phase)}`);
  if (!operations.has(req.operation)) throw badRequest(`unknown admission operation ${JSON.stringify(req.operation)}`);
  if (!req.resource || typeof req.resource.resource !== 'string' || !req.kind) throw badRequest('admission request needs kind and resource');
}

/** The API's types for the webhook plugins; a conversion webhook named by a Service is reached through its Endpoints, as the gateway reaches it. */
function startServedTypes(caches: ObjectCaches, log: Logger): ServedTypes {
  const resolver = new ServiceResolver({ mappings: new Map(), services: () => caches.get('', 'services'), endpoints: () => caches.get('', 'endpoints') });
  return new ServedTypes({ objects: (group, resource) => caches.get(group, resource), resolver, log });
}

export async function createAdmissionService(deps: AdmissionServiceDeps): Promise<AdmissionService> {
  const log = deps.log ?? silentLogger();
  const bucket = deps.bucket ?? DEFAULT_BUCKET;
  const { enabled } = resolvePlugins(deps.config);
  const configuration = loadAdmissionConfiguration(deps.config.configFile);
  const registry = deps.metrics ?? new MetricsRegistry();
  const busTimeoutMs = deps.busTimeoutMs ?? DEFAULT_BUS_TIMEOUT_MS;
  const retry = deps.retryMs !== undefined ? { retryMs: deps.retryMs } : {};
  const read = storageReader(deps.nc, busTimeoutMs);
  const caches = new ObjectCaches({ nc: deps.nc, bucket, log, reader: read, ...retry });

  let feed: NamespaceFeed | null = null;
  let servedTypes: ServedTypes | null = null;
  const shared: Omit<PluginDeps, 'config'> = {
    nc: deps.nc,
    bucket,
    log,
    namespaces: () => (feed ??= startNamespaceFeed({ nc: deps.nc, bucket, log, ...retry })).cache,
    servedTypes: () => (servedTypes ??= startServedTypes(caches, log)),
    objects: (group, resource) => caches.get(group, resource),
    read,
    write: storageWriter(deps.nc, busTimeoutMs),
    authorize: (attrs: AuthzAttributes) => requestAuthorization(deps.nc, attrs, busTimeoutMs),
    options: { ...DEFAULT_ADMISSION_SERVICE_OPTIONS, ...deps.options },
    metrics: registry,
  };
  const plugins: AdmissionPlugin[] = [];
  try {
    for (const name of enabled) {
      const config = configuration.get(name);
      plugins.push(await pluginDefinition(name)!.create({ ...shared, ...(config ? { config } : {}) }));
    }
  } catch (err) {
    for (const p of plugins) await p.stop?.();
    (servedTypes as ServedTypes | null)?.stop();
    await caches.stop();
    await (feed as NamespaceFeed | null)?.stop();
    throw err;
  }
  for (const name of configuration.keys()) {
    if (!enabled.includes(name)) log.info({ plugin: name }, 'admission plugin is configured but not enabled; its configuration is unused');
  }

  const metrics = new AdmissionMetrics(registry);
  instrumentBus(deps.nc, new BusMetrics(registry));
  const service = await startJsonService(deps.nc, {
    name: ServiceName.admission,
    version: ADMISSION_SERVICE_VERSION,
    description: 'admission plugin chain',
    endpoints: [
      jsonEndpoint<AdmissionRequest, AdmissionReply>(Subjects.admissionAdmit, async (req) => {
        checkRequest(req);
        const start = performance.now();
        const reply = await runAdmissionChain(plugins, req, log, metrics);
        metrics.step(req, !reply.allowed, (performance.now() - start) / 1000);
        return reply;
      }),
      // Read per request: a webhook plugin's match follows its configurations.
      jsonEndpoint<Record<string, never>, AdmissionInterest>(Subjects.admissionInterest, () => admissionInterest(plugins)),
    ],
    log,
  });
  log.info({ plugins: enabled, bucket }, 'admission service started');

  const startedFeed = feed as NamespaceFeed | null;
  return {
    plugins: enabled,
    namespacesWatching: startedFeed ? startedFeed.watching : Promise.resolve(),
    stop: async () => {
      await service.stop();
      for (const p of plugins) await p.stop?.();
      servedTypes?.stop();
      await caches.stop();
      await feed?.stop();
    },
  };
}
