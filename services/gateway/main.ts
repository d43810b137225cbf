// Gateway entry point: reads flags/env/config, connects to NATS, serves HTTPS.

import { readFileSync } from 'node:fs';
import { busOptionsFrom, connectBus } from '../../shared/bus/connect.js';
import { runMain, serveUntilSignalled, serviceOptions } from '../../shared/service-main.js';
import { gatewayOptionSpecs } from './options.js';
import { createLogger } from '../../shared/log.js';
import { createBuiltinRegistry } from '../../shared/registry/builtin-registry.js';
import { createGatewayService, defaultGatewayConfig } from './service.js';
import { parseServiceNetwork } from '../../shared/registry/builtin/core/service-network.js';
import { featureGatesFromFlag } from '../../shared/config/feature-gates.js';
import { auditOptionsFrom, loadAudit } from './audit.js';
import { metricsOptionsFrom } from '../../shared/metrics/options.js';
import { gitVersionOf, parseEmulatedVersion, SERVED_RELEASE } from '../../shared/api/version.js';
import { requestTimeoutOption } from './filters/request-deadline.js';

async function main(): Promise<void> {
  const o = serviceOptions('platform gateway', gatewayOptionSpecs);
  const log = createLogger('gateway', o['log-level']);
  const { gates: featureGates, warnings } = featureGatesFromFlag(o['feature-gates']);
  for (const w of warnings) log.warn(w);
  const read = (f: string | undefined) => (f ? readFileSync(f, 'utf8') : undefined);
  const cert = read(o['tls-cert-file']);
  const key = read(o['tls-private-key-file']);
  if (Boolean(cert) !== Boolean(key)) throw new Error('--tls-cert-file and --tls-private-key-file go together');
  const proxyCert = read(o['proxy-client-cert-file']);
  const proxyKey = read(o['proxy-client-key-file']);
  if (Boolean(proxyCert) !== Boolean(proxyKey)) throw new Error('--proxy-client-cert-file and --proxy-client-key-file go together');
  const metrics = metricsOptionsFrom(o);
  const requestTimeoutMs = requestTimeoutOption(o['request-timeout']);
  const emulatedVersion = parseEmulatedVersion(o['emulated-version']);
  if (emulatedVersion !== SERVED_RELEASE) log.info(`--emulated-version=${emulatedVersion}: /version reports ${gitVersionOf(emulatedVersion)}; the API served is still ${SERVED_RELEASE}'s`);
  const registry = createBuiltinRegistry({ runtimeConfig: o['runtime-config'], upstreamGroupAliases: o['upstream-group-aliases'] });
  // The audit policy and backends are checked before anything connects: a mistake stops the start.
  const audit = await loadAudit(auditOptionsFrom(o), log);
  const nc = await connectBus({ ...busOptionsFrom(o), name: 'platform-gateway', log });
  // The handshake advertises and accepts both bundles; which CA a certificate must chain to is
  // decided by the authn service (client user vs authenticating proxy).
  const clientCA = [read(o['client-ca-file']), read(o['requestheader-client-ca-file'])].filter(Boolean).join('\n') || undefined;
  const gw = await createGatewayService({
    nc,
    registry,
    log,
    config: {
      bucket: o.bucket,
      watchWindowMs: o['watch-cache-window'],
      serviceNetwork: parseServiceNetwork(o['service-cluster-ip-range'], o['service-node-port-range']),
      ...(cert && key ? { tls: { cert, key, ...(clientCA ? { clientCA } : {}) } } : {}),
      identity: defaultGatewayConfig.identity,
      handlers: { ...defaultGatewayConfig.handlers, maxWatchBufferedBytes: o['max-watch-buffered-bytes'] },
      featureGates,
      inFlight: { readOnly: o['max-requests-inflight'], mutating: o['max-mutating-requests-inflight'] },
      shutdownDelayMs: o['shutdown-delay-duration'],
      shutdownSendRetryAfter: o['shutdown-send-retry-after'],
      livezGracePeriodMs: o['livez-grace-period'],
      requestTimeoutMs,
      audit,
      metrics,
      emulatedVersion,
      ...(proxyCert && proxyKey ? { proxyClientCertificate: { cert: proxyCert, key: proxyKey } } : {}),
      authenticationInfo: { clientCA: read(o['client-ca-file']), requestHeaderCA: read(o['requestheader-client-ca-file']), proxyClientCert: proxyCert },
    },
  });
  await gw.ready;
  const address = await gw.app.listen({ port: o['secure-port'], host: o['bind-address'] });
  log.info({ address }, 'gateway serving');
  await serveUntilSignalled(nc, { stop: () => gw.close() }, log);
}

runMain('gateway', main);
