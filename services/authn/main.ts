// Entry point of the authn service: reads flags/env/config file, connects to NATS, wires.

import { busOptionsFrom, connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { createLogger } from '../../shared/log.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { createAuthnService } from './service.js';
import { authnConfigFromOptions, authnOptionSpecs } from './options.js';
import { processRegistry, serveMetrics } from '../../shared/metrics/serve.js';

async function main(): Promise<void> {
  const opts = serviceOptions('platform authn service', authnOptionSpecs);
  const config = authnConfigFromOptions(opts);
  const bus = busOptionsFrom(opts);
  const log = createLogger('authn', opts['log-level'] as string);
  const metrics = processRegistry(opts, log);
  const endpoint = await serveMetrics(opts['metrics-bind-address'], metrics, log);
  const nc = await connectBus({ ...bus, name: ServiceName.authn, log });
  // A bad file (token CSV, CA, key, webhook config) fails start-up with its own message.
  const service = await createAuthnService({ nc, log, config, metrics });
  const stop = async () => {
    await service.stop();
    await endpoint.close();
  };
  await serveUntilSignalled(nc, { stop }, log);
}

runMain(ServiceName.authn, main);
