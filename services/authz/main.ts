// Entry point of the authz service: reads flags/env/config file, connects to NATS, wires.

import { connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { createLogger } from '../../shared/log.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { createAuthzService } from './service.js';
import { authzConfigFromOptions, authzOptionSpecs } from './options.js';

async function main(): Promise<void> {
  const opts = serviceOptions('platform authz service', authzOptionSpecs);
  // A bad mode list or a missing per-mode setting fails before touching the network, so the
  // error is the first thing seen.
  const config = authzConfigFromOptions(opts);
  const log = createLogger('authz', opts['log-level'] as string);
  const creds = opts['nats-creds'] as string | undefined;
  const nc = await connectBus({ url: String(opts['nats-url']), name: ServiceName.authz, ...(creds ? { creds } : {}) });
  // A malformed policy file or webhook configuration fails start-up with its own message.
  const service = await createAuthzService({ nc, log, config });
  await serveUntilSignalled(nc, service, log);
}

runMain(ServiceName.authz, main);
