// Entry point of the authz service: reads flags/env/config file, connects to NATS, wires.

import { busOptionsFrom, connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { createLogger } from '../../shared/log.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { createAuthzService } from './service.js';
import { authzConfigFromOptions, authzOptionSpecs } from './options.js';
import { processRegistry, serveMetrics } from '../../shared/metrics/serve.js';

async function main(): Promise<void> {
  const opts = serviceOptions('platform authz service', authzOptionSpecs);
  // A bad mode list or a missing per-mode setting fails before touching the network, so the
  // error is the first thing seen.
  const config = authzConfigFromOptions(opts);
  const bus = busOptionsFrom(opts);
  const log = createLogger('authz', opts['log-level'] as string);
  const metrics = processRegistry(opts, log);
  const endpoint = await serveMetrics(opts['metrics-bind-address'], metrics, log);
  const nc = await connectBus({ ...bus, name: ServiceName.authz, log });
  // A malformed policy file or webhook configuration fails start-up with its own message.
  const service = await createAuthzService({ nc, log, config, metrics });
  const stop = async () => {
    await service.stop();
    await endpoint.close();
  };
  await serveUntilSignalled(nc, { stop }, log);
}

runMain(ServiceName.authz, main);
