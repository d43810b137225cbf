// Controllers service entry point: reads flags/env/config, builds an API client of the gateway,
// runs the controllers while it leads, and serves its health endpoints on --secure-port.

import { readFile } from 'node:fs/promises';
import { reportToSupervisor, runMain, serviceOptions, stopOnSignals } from '../../shared/service-main.js';
import { createLogger } from '../../shared/log.js';
import { metricsOptionsFrom } from '../../shared/metrics/options.js';
import { ClientConfigError, inClusterConfig, loadClientConfig, loadClientConfigFiles, resolveClientConfig, type ClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { OptionsError } from '../../shared/config/options.js';
import { controllersOptionSpecs, selectControllers } from './options.js';
import { loadSigningCA } from './certificates/signers.js';
import { parseSigningKey } from '../../shared/serviceaccount/keys.js';
import { createControllersService } from './service.js';
import { controllersHealth } from './health.js';
import { controllersMetrics } from './metrics.js';
import { delegatedAuth } from './delegated-auth.js';
import { startSecureServing, type SecureServer } from './secure-serving.js';

const USER_AGENT = 'platform-controller-manager';

async function clientConfig(file: string | undefined): Promise<ClientConfig> {
  if (file) return resolveClientConfig(await loadClientConfigFiles([file], { requireFirst: true }));
  if (process.env.PLATFORM_SERVICE_HOST) return inClusterConfig();
  return loadClientConfig();
}

async function main(): Promise<void> {
  const o = serviceOptions('platform controllers service', controllersOptionSpecs);
  const log = createLogger('controllers', o['log-level']);
  const metricsOptions = metricsOptionsFrom(o, log);
  let controllers = selectControllers(o.controllers);
  const certFile = o['cluster-signing-cert-file'];
  const keyFile = o['cluster-signing-key-file'];
  if (Boolean(certFile) !== Boolean(keyFile)) throw new OptionsError('--cluster-signing-cert-file and --cluster-signing-key-file go together');
  const signingCA = certFile && keyFile ? await loadSigningCA(await readFile(certFile, 'utf8'), await readFile(keyFile, 'utf8')) : undefined;
  const quotaWorkers = o['concurrent-resource-quota-syncs'];
  if (!Number.isInteger(quotaWorkers) || quotaWorkers < 1) throw new OptionsError(`--concurrent-resource-quota-syncs must be a positive integer, got ${quotaWorkers}`);
  if (!(o['resource-quota-sync-period'] > 0)) throw new OptionsError('--resource-quota-sync-period must be longer than 0');
  const port = o['secure-port'];
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new OptionsError(`--secure-port must be a port number (0 disables serving), got ${port}`);
  const tlsCertFile = o['tls-cert-file'];
  const tlsKeyFile = o['tls-private-key-file'];
  if (Boolean(tlsCertFile) !== Boolean(tlsKeyFile)) throw new OptionsError('--tls-cert-file and --tls-private-key-file go together');
  const servingCert = tlsCertFile && tlsKeyFile ? { certPem: await readFile(tlsCertFile, 'utf8'), keyPem: await readFile(tlsKeyFile, 'utf8') } : undefined;
  const saKeyFile = o['service-account-private-key-file'];
  const serviceAccountKey = saKeyFile ? parseSigningKey(await readFile(saKeyFile, 'utf8'), saKeyFile) : undefined;
  // Upstream skips a controller whose key or CA is not given, unless it was asked for by name.
  const needs: Array<[string, boolean, string]> = [
    ['csrsigning', Boolean(signingCA), '--cluster-signing-cert-file and --cluster-signing-key-file'],
    ['serviceaccount-token', Boolean(serviceAccountKey), '--service-account-private-key-file'],
  ];
  for (const [name, ok, flags] of needs) {
    if (ok || !controllers.includes(name)) continue;
    if (o.controllers.includes(name)) throw new OptionsError(`--controllers names ${name}, which needs ${flags}`);
    controllers = controllers.filter((c) => c !== name);
    log.info(`${name} not started: no ${flags}`);
  }
  let cfg: ClientConfig;
  try {
    cfg = await clientConfig(o.kubeconfig);
  } catch (err) {
    if (err instanceof ClientConfigError) throw new OptionsError(err.message);
    throw err;
  }
  if (o.master) {
    try {
      cfg = { ...cfg, server: new URL(o.master) };
    } catch {
      throw new OptionsError(`--master: not a URL: ${o.master}`);
    }
  }
  const rootCA = o['root-ca-file'] ? await readFile(o['root-ca-file'], 'utf8') : cfg.caPem;
  const client = new ApiClient(cfg, { userAgent: USER_AGENT });
  const service = createControllersService({
    client,
    log,
    config: {
      controllers,
      useServiceAccountCredentials: o['use-service-account-credentials'],
      resourceQuota: { resyncMs: o['resource-quota-sync-period'], workers: quotaWorkers },
      userAgent: USER_AGENT,
      ...(rootCA ? { rootCA } : {}),
      ...(signingCA ? { signingCA, signingDurationMs: o['cluster-signing-duration'] } : {}),
      ...(serviceAccountKey ? { serviceAccountKey } : {}),
      ...(o['leader-elect']
        ? {
            leaderElection: {
              namespace: o['leader-elect-resource-namespace'],
              name: o['leader-elect-resource-name'],
              leaseDurationMs: o['leader-elect-lease-duration'],
              renewDeadlineMs: o['leader-elect-renew-deadline'],
              retryPeriodMs: o['leader-elect-retry-period'],
            },
          }
        : {}),
    },
  });
  log.info({ server: cfg.server.origin, controllers }, 'controllers service started');
  let server: SecureServer | undefined;
  if (port !== 0) {
    try {
      server = await startSecureServing(
        { port, bindAddress: o['bind-address'], alwaysAllowPaths: o['authorization-always-allow-paths'], ...(servingCert ? { cert: servingCert } : {}) },
        {
          health: controllersHealth({ client, election: () => service.election(), controllerStates: () => service.controllerStates(), stopping: () => service.stopping() }),
          auth: delegatedAuth(client),
          metrics: controllersMetrics({ election: () => service.election(), leaseName: o['leader-elect-resource-name'], options: metricsOptions }).text,
          log,
        },
      );
    } catch (err) {
      // `npm start` chose this port and starts us again on another one if something took it meanwhile.
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') await reportToSupervisor({ type: 'address-in-use', listener: 'secure-port', port });
      throw err;
    }
    await reportToSupervisor({ type: 'listening', listener: 'secure-port', port: server.port });
  }
  void service.leading.then(() => reportToSupervisor({ type: 'ready' }));
  stopOnSignals(async () => {
    await service.stop();
    await server?.close();
  }, log);
}

runMain('controllers', main);
