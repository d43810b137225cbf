// Entry point of the authz service: reads flags/env/config file, connects to NATS, wires.

import { connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { createLogger } from '../../shared/log.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { createAuthzService } from './service.js';
import { validateModes } from './modes.js';

const specs = {
  ...commonOptions,
  'authorization-mode': { type: 'list', default: ['AlwaysAllow'], description: 'ordered authorizers: AlwaysAllow, AlwaysDeny (ABAC, RBAC, Node, Webhook to come)' },
} satisfies OptionSpecs;

async function main(): Promise<void> {
  const opts = serviceOptions('platform authz service', specs);
  const modes = opts['authorization-mode'] as string[];
  // Fail on a bad mode list before touching the network, so the error is the first thing seen.
  validateModes(modes);
  const log = createLogger('authz', opts['log-level'] as string);
  const creds = opts['nats-creds'] as string | undefined;
  const nc = await connectBus({ url: String(opts['nats-url']), name: ServiceName.authz, ...(creds ? { creds } : {}) });
  const service = await createAuthzService({ nc, log, config: { modes } });
  await serveUntilSignalled(nc, service, log);
}

runMain(ServiceName.authz, main);
