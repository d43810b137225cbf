// Entry point of the admission service: reads flags/env/config file, connects to NATS, wires.

import { connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { createLogger } from '../../shared/log.js';
import { ServiceName } from '../../shared/bus/subjects.js';
import { resolvePlugins } from './config.js';
import { createAdmissionService, DEFAULT_BUCKET } from './service.js';

const specs = {
  ...commonOptions,
  'enable-admission-plugins': { type: 'list', default: [], description: 'admission plugins to enable besides the default ones (order irrelevant)' },
  'disable-admission-plugins': { type: 'list', default: [], description: 'admission plugins to disable, default ones included (order irrelevant)' },
  bucket: { type: 'string', default: DEFAULT_BUCKET, description: 'JetStream KV bucket holding the objects' },
} satisfies OptionSpecs;

async function main(): Promise<void> {
  const opts = serviceOptions('platform admission service', specs);
  const config = { enable: opts['enable-admission-plugins'] as string[], disable: opts['disable-admission-plugins'] as string[] };
  // Fail on a bad plugin list before touching the network, so the error is the first thing seen.
  resolvePlugins(config);
  const log = createLogger('admission', opts['log-level'] as string);
  const creds = opts['nats-creds'] as string | undefined;
  const nc = await connectBus({ url: String(opts['nats-url']), name: ServiceName.admission, ...(creds ? { creds } : {}) });
  const service = await createAdmissionService({ nc, log, config, bucket: opts.bucket as string });
  await serveUntilSignalled(nc, service, log);
}

runMain(ServiceName.admission, main);
