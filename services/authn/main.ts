// Entry point of the authn service: reads flags/env/config file, connects to NATS, wires.

import { connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { createLogger } from '../../shared/log.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { createAuthnService } from './service.js';
import { authnConfigFromOptions, authnOptionSpecs } from './options.js';

async function main(): Promise<void> {
  const opts = serviceOptions('platform authn service', authnOptionSpecs);
  const config = authnConfigFromOptions(opts);
  const log = createLogger('authn', opts['log-level'] as string);
  const creds = opts['nats-creds'] as string | undefined;
  const nc = await connectBus({ url: String(opts['nats-url']), name: ServiceName.authn, ...(creds ? { creds } : {}) });
  // A bad file (token CSV, CA, key, webhook config) fails start-up with its own message.
  const service = await createAuthnService({ nc, log, config });
  await serveUntilSignalled(nc, service, log);
}

runMain(ServiceName.authn, main);
