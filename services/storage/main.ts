// Entry point of the storage service: reads flags/env/config, connects to NATS, starts the
// service, and drains the connection on SIGINT/SIGTERM.

import { busOptionsFrom, connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { createLogger } from '../../shared/log.js';
import { storageOptionSpecs } from './options.js';
import { createStorageService } from './service.js';
import { processRegistry, serveMetrics } from '../../shared/metrics/serve.js';

async function main(): Promise<void> {
  const opts = serviceOptions('platform storage service', storageOptionSpecs);
  const log = createLogger('storage', opts['log-level']);
  const metrics = processRegistry(opts, log);
  const endpoint = await serveMetrics(opts['metrics-bind-address'], metrics, log);
  const nc = await connectBus({ ...busOptionsFrom(opts), name: 'platform-storage', log });
  log.info({ server: nc.getServer() }, 'connected to NATS');

  const svc = await createStorageService({
    nc,
    bucket: opts.bucket,
    replicas: opts.replicas,
    watchWindowMs: opts['watch-window'],
    deleteMarkerTtlMs: opts['delete-marker-ttl'],
    purgeIntervalMs: opts['delete-marker-purge-interval'],
    log,
    metrics,
  });

  const stop = async () => {
    await svc.stop();
    await endpoint.close();
  };
  await serveUntilSignalled(nc, { stop }, log);
}

runMain('storage', main);
