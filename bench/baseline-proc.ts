// The raw limit for a read: a bare fastify HTTPS route with the gateway's TLS material (same
// certificate, key and Node TLS defaults), returning a ConfigMap-shaped object. Everything the
// gateway does beyond this (request parsing, authn/authz cache lookups, the watch cache, metrics)
// is what the GET ratio measures. Prints "listening <port>".
//
//   node --import tsx bench/baseline-proc.ts --cert serving.crt --key serving.key

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { storedConfigMap } from './objects.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cert: { type: 'string' }, key: { type: 'string' } } });
  const app = Fastify({ logger: false, https: { cert: readFileSync(values.cert!, 'utf8'), key: readFileSync(values.key!, 'utf8') } });
  const object = storedConfigMap('bench', 'cm');
  (object.metadata as Record<string, unknown>).resourceVersion = '12345';
  // Serialized per request (fastify's default JSON.stringify), as a typical handler would.
  app.get('/api/v1/namespaces/:namespace/configmaps/:name', async () => object);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench baseline: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
