// Entry point of the storage service: reads flags/env/config, connects to NATS, starts the
// service, and drains the connection on SIGINT/SIGTERM.

import { connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { createLogger } from '../../shared/log.js';
import { BUCKET_DEFAULT } from '../../shared/store/kv-bucket.js';
import { createStorageService } from './service.js';

const options = {
  ...commonOptions,
  bucket: { type: 'string', default: BUCKET_DEFAULT, description: 'JetStream KV bucket holding every object' },
  replicas: { type: 'number', default: 1, description: 'replicas of the bucket when it is created (3 in a clustered NATS)' },
  'delete-marker-ttl': { type: 'duration', default: '5m', description: 'how long delete markers are kept for resuming watchers (the watch window)' },
  'delete-marker-purge-interval': { type: 'duration', default: '60s', description: 'how often expired delete markers are purged' },
} satisfies OptionSpecs;

async function main(): Promise<void> {
  const opts = serviceOptions('platform storage service', options);
  const log = createLogger('storage', String(opts['log-level']));
  const creds = opts['nats-creds'] as string | undefined;
  const nc = await connectBus({ url: String(opts['nats-url']), name: 'platform-storage', ...(creds ? { creds } : {}) });
  log.info({ server: nc.getServer() }, 'connected to NATS');

  const svc = await createStorageService({
    nc,
    bucket: String(opts.bucket),
    replicas: Number(opts.replicas),
    deleteMarkerTtlMs: Number(opts['delete-marker-ttl']),
    purgeIntervalMs: Number(opts['delete-marker-purge-interval']),
    log,
  });

  await serveUntilSignalled(nc, svc, log);
}

runMain('storage', main);
