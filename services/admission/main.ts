// Entry point of the admission service: reads flags/env/config file, connects to NATS, wires.

import { busOptionsFrom, connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { admissionOptionSpecs } from './options.js';
import { createLogger } from '../../shared/log.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { resolvePlugins } from './config.js';
import { createAdmissionService } from './service.js';
import { loadAdmissionConfiguration } from './admission-configuration.js';
import { processRegistry, serveMetrics } from '../../shared/metrics/serve.js';
import { parseServiceResolver } from './plugins/webhooks/service-resolver.js';

async function main(): Promise<void> {
  const opts = serviceOptions('platform admission service', admissionOptionSpecs);
  const configFile = opts['admission-control-config-file'];
  const config = { enable: opts['enable-admission-plugins'], disable: opts['disable-admission-plugins'], ...(configFile ? { configFile } : {}) };
  // Fail on a bad plugin list or configuration file before touching the network, so the error is the first thing seen.
  resolvePlugins(config);
  loadAdmissionConfiguration(configFile);
  parseServiceResolver(opts['webhook-service-resolver']);
  const log = createLogger('admission', opts['log-level']);
  const metrics = processRegistry(opts, log);
  const endpoint = await serveMetrics(opts['metrics-bind-address'], metrics, log);
  const nc = await connectBus({ ...busOptionsFrom(opts), name: ServiceName.admission, log });
  const options = {
    defaultNotReadyTolerationSeconds: opts['default-not-ready-toleration-seconds'],
    defaultUnreachableTolerationSeconds: opts['default-unreachable-toleration-seconds'],
    webhookServiceResolver: opts['webhook-service-resolver'],
  };
  const service = await createAdmissionService({ nc, log, config, options, bucket: opts.bucket, metrics });
  const stop = async () => {
    await service.stop();
    await endpoint.close();
  };
  await serveUntilSignalled(nc, { stop }, log);
}

runMain(ServiceName.admission, main);
