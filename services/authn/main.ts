// Entry point of the authn service: reads flags/env/config file, connects to NATS, wires.

import { connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { createLogger } from '../../shared/log.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { createAuthnService } from './service.js';
import { buildAuthnChain } from './config.js';

const specs = {
  ...commonOptions,
  'token-auth-file': { type: 'string', description: 'CSV of static bearer tokens: token,user,uid[,"group1,group2"]' },
  'anonymous-auth': { type: 'boolean', default: true, description: 'treat requests without credentials as system:anonymous' },
} satisfies OptionSpecs;

async function main(): Promise<void> {
  const opts = serviceOptions('platform authn service', specs);
  const tokenAuthFile = opts['token-auth-file'] as string | undefined;
  const config = { ...(tokenAuthFile ? { tokenAuthFile } : {}), anonymousAuth: opts['anonymous-auth'] as boolean };
  // Fail on a bad token file before touching the network, so the error is the first thing seen.
  await buildAuthnChain(config);
  const log = createLogger('authn', opts['log-level'] as string);
  const creds = opts['nats-creds'] as string | undefined;
  const nc = await connectBus({ url: String(opts['nats-url']), name: ServiceName.authn, ...(creds ? { creds } : {}) });
  const service = await createAuthnService({ nc, log, config });
  await serveUntilSignalled(nc, service, log);
}

runMain(ServiceName.authn, main);
