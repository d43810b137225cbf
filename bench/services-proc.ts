// The four non-gateway services (storage, authn, authz, admission) in ONE child process, so the
// benchmark machine runs: nats-server, this process, the gateway, and the load generator. Static
// tokens for authn, AlwaysAllow for authz, default admission plugins. Prints "services ready"
// once every endpoint is registered and stops cleanly on SIGTERM.
//
//   node --import tsx bench/services-proc.ts --nats-url nats://127.0.0.1:4222 --token-auth-file tokens.csv

import { parseArgs } from 'node:util';
import { connectBus } from '../shared/bus/connect.js';
import { createLogger } from '../shared/log.js';
import { createStorageService } from '../services/storage/service.js';
import { createAuthnService } from '../services/authn/service.js';
import { createAuthzService } from '../services/authz/service.js';
import { createAdmissionService } from '../services/admission/service.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'nats-url': { type: 'string' }, 'token-auth-file': { type: 'string' } } });
  const log = createLogger('bench-services', 'warn');
  // One connection per service, as separate deployments would have: their request handling then
  // does not queue behind one another's socket.
  const conn = (name: string) => connectBus({ url: values['nats-url']!, name });
  const storage = await createStorageService({ nc: await conn('bench-storage'), log });
  const authn = await createAuthnService({ nc: await conn('bench-authn'), log, config: { tokenAuthFile: values['token-auth-file']!, anonymousAuth: true } });
  const authz = await createAuthzService({ nc: await conn('bench-authz'), log, config: { modes: ['AlwaysAllow'] } });
  const admission = await createAdmissionService({ nc: await conn('bench-admission'), log, config: {} });
  process.stdout.write('services ready\n');

  const stop = async () => {
    await Promise.allSettled([admission.stop(), authz.stop(), authn.stop(), storage.stop()]);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`bench services: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
