// Gateway entry point: reads flags/env/config, connects to NATS, serves HTTPS.

import { readFileSync } from 'node:fs';
import { connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { commonOptions, type OptionSpecs } from '../../shared/config/options.js';
import { createLogger } from '../../shared/log.js';
import { createBuiltinRegistry } from '../../shared/registry/builtin-registry.js';
import { createGatewayService, defaultGatewayConfig } from './service.js';

const specs = {
  ...commonOptions,
  'secure-port': { type: 'number', default: 6443, description: 'HTTPS port' },
  'bind-address': { type: 'string', default: '127.0.0.1', description: 'address to listen on' },
  'tls-cert-file': { type: 'string', description: 'serving certificate (PEM); without it the gateway serves plain HTTP' },
  'tls-private-key-file': { type: 'string', description: 'serving key (PEM)' },
  'client-ca-file': { type: 'string', description: 'CA bundle of client certificates: the TLS handshake asks for one (the authn service verifies it)' },
  'requestheader-client-ca-file': { type: 'string', description: 'CA bundle of the authenticating proxy\'s client certificate (also asked for in the handshake)' },
  bucket: { type: 'string', default: 'objects', description: 'KV bucket holding the objects' },
  'runtime-config': { type: 'string', default: '', description: 'enable/disable API versions: <group>/<version>[=true|false],...' },
  'watch-cache-window': { type: 'duration', default: 5 * 60_000, description: 'how long watch history and continue tokens stay valid' },
} satisfies OptionSpecs;

async function main(): Promise<void> {
  const o = serviceOptions('platform gateway', specs);
  const log = createLogger('gateway', o['log-level'] as string);
  const read = (f: unknown) => (f ? readFileSync(f as string, 'utf8') : undefined);
  const cert = read(o['tls-cert-file']);
  const key = read(o['tls-private-key-file']);
  if (Boolean(cert) !== Boolean(key)) throw new Error('--tls-cert-file and --tls-private-key-file go together');
  const registry = createBuiltinRegistry({ runtimeConfig: o['runtime-config'] as string });
  const creds = o['nats-creds'] as string | undefined;
  const nc = await connectBus({ url: o['nats-url'] as string, name: 'platform-gateway', ...(creds ? { creds } : {}) });
  // The handshake advertises and accepts both bundles; which CA a certificate must chain to is
  // decided by the authn service (client user vs authenticating proxy).
  const clientCA = [read(o['client-ca-file']), read(o['requestheader-client-ca-file'])].filter(Boolean).join('\n') || undefined;
  const gw = await createGatewayService({
    nc,
    registry,
    log,
    config: {
      bucket: o.bucket as string,
      watchWindowMs: o['watch-cache-window'] as number,
      ...(cert && key ? { tls: { cert, key, ...(clientCA ? { clientCA } : {}) } } : {}),
      identity: defaultGatewayConfig.identity,
    },
  });
  await gw.ready;
  const address = await gw.app.listen({ port: o['secure-port'] as number, host: o['bind-address'] as string });
  log.info({ address }, 'gateway serving');
  await serveUntilSignalled(nc, { stop: () => gw.close() }, log);
}

runMain('gateway', main);
