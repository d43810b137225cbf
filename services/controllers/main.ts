// Controllers service entry point: reads flags/env/config, builds an API client of the gateway,
// runs the controllers while it leads, and serves its health endpoints on --secure-port.

import { readFile } from 'node:fs/promises';
import { reportToSupervisor, runMain, serviceOptions, stopOnSignals } from '../../shared/service-main.js';
import { createLogger, type Logger } from '../../shared/log.js';
import { metricsOptionsFrom } from '../../shared/metrics/options.js';
import type { MetricsOptions } from '../../shared/metrics/registry.js';
import { ClientConfigError, inClusterConfig, loadClientConfig, loadClientConfigFiles, resolveClientConfig, type ClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { OptionsError } from '../../shared/config/options.js';
import { controllersOptionSpecs, selectControllers, type ControllersOptions } from './options.js';
import { loadSigningCA, type SigningCA } from './certificates/signers.js';
import { parseSigningKey } from '../../shared/serviceaccount/keys.js';
import { createControllersService, type ControllersConfig, type ControllersService } from './service.js';
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

/** The cluster signing CA (`--cluster-signing-cert-file`/`--cluster-signing-key-file`), if given. */
async function readSigningCA(o: ControllersOptions): Promise<SigningCA | undefined> {
  const certFile = o['cluster-signing-cert-file'];
  const keyFile = o['cluster-signing-key-file'];
  if (Boolean(certFile) !== Boolean(keyFile)) throw new OptionsError('--cluster-signing-cert-file and --cluster-signing-key-file go together');
  return certFile && keyFile ? await loadSigningCA(await readFile(certFile, 'utf8'), await readFile(keyFile, 'utf8')) : undefined;
}

function checkQuotaAndPort(o: ControllersOptions): { quotaWorkers: number; port: number } {
  const quotaWorkers = o['concurrent-resource-quota-syncs'];
  if (!Number.isInteger(quotaWorkers) || quotaWorkers < 1) throw new OptionsError(`--concurrent-resource-quota-syncs must be a positive integer, got ${quotaWorkers}`);
  if (!(o['resource-quota-sync-period'] > 0)) throw new OptionsError('--resource-quota-sync-period must be longer than 0');
  const port = o['secure-port'];
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new OptionsError(`--secure-port must be a port number (0 disables serving), got ${port}`);
  return { quotaWorkers, port };
}

/** The serving certificate (`--tls-cert-file`/`--tls-private-key-file`), if given. */
async function readServingCert(o: ControllersOptions): Promise<{ certPem: string; keyPem: string } | undefined> {
  const tlsCertFile = o['tls-cert-file'];
  const tlsKeyFile = o['tls-private-key-file'];
  if (Boolean(tlsCertFile) !== Boolean(tlsKeyFile)) throw new OptionsError('--tls-cert-file and --tls-private-key-file go together');
  return tlsCertFile && tlsKeyFile ? { certPem: await readFile(tlsCertFile, 'utf8'), keyPem: await readFile(tlsKeyFile, 'utf8') } : undefined;
}

/** The front-proxy client certificate (`--proxy-client-cert-file`/`--proxy-client-key-file`), if given. */
async function readProxyClientCert(o: ControllersOptions): Promise<{ cert: string; key: string } | undefined> {
  const certFile = o['proxy-client-cert-file'];
  const keyFile = o['proxy-client-key-file'];
  if (Boolean(certFile) !== Boolean(keyFile)) throw new OptionsError('--proxy-client-cert-file and --proxy-client-key-file go together');
  return certFile && keyFile ? { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') } : undefined;
}

/** Upstream skips a controller whose key or CA is not given, unless it was asked for by name. */
function withoutUnequipped(o: ControllersOptions, selected: string[], have: { signingCA: boolean; serviceAccountKey: boolean }, log: Logger): string[] {
  let controllers = selected;
  const needs: Array<[string, boolean, string]> = [
    ['csrsigning', have.signingCA, '--cluster-signing-cert-file and --cluster-signing-key-file'],
    ['serviceaccount-token', have.serviceAccountKey, '--service-account-private-key-file'],
  ];
  for (const [name, ok, flags] of needs) {
    if (ok || !controllers.includes(name)) continue;
    if (o.controllers.includes(name)) throw new OptionsError(`--controllers names ${name}, which needs ${flags}`);
    controllers = controllers.filter((c) => c !== name);
    log.info(`${name} not started: no ${flags}`);
  }
  return controllers;
}

/** How to reach the gateway: `--kubeconfig` (or in-cluster, or the default), with `--master` in place of its server. */
async function gatewayConfig(o: ControllersOptions): Promise<ClientConfig> {
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
  return cfg;
}

function leaderElectionConfig(o: ControllersOptions): Pick<ControllersConfig, 'leaderElection'> {
  if (!o['leader-elect']) return {};
  return {
    leaderElection: {
      namespace: o['leader-elect-resource-namespace'],
      name: o['leader-elect-resource-name'],
      leaseDurationMs: o['leader-elect-lease-duration'],
      renewDeadlineMs: o['leader-elect-renew-deadline'],
      retryPeriodMs: o['leader-elect-retry-period'],
    },
  };
}

/** The health, delegated auth and metrics endpoints on `--secure-port`, reported to `npm start`'s supervisor. */
async function serve(
  o: ControllersOptions,
  port: number,
  servingCert: { certPem: string; keyPem: string } | undefined,
  client: ApiClient,
  service: ControllersService,
  metricsOptions: MetricsOptions,
  log: Logger,
): Promise<SecureServer> {
  let server: SecureServer;
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
  return server;
}

async function main(): Promise<void> {
  const o = serviceOptions('platform controllers service', controllersOptionSpecs);
  const log = createLogger('controllers', o['log-level']);
  const metricsOptions = metricsOptionsFrom(o, log);
  const selected = selectControllers(o.controllers);
  const signingCA = await readSigningCA(o);
  const { quotaWorkers, port } = checkQuotaAndPort(o);
  const servingCert = await readServingCert(o);
  const proxyClientCertificate = await readProxyClientCert(o);
  const saKeyFile = o['service-account-private-key-file'];
  const serviceAccountKey = saKeyFile ? parseSigningKey(await readFile(saKeyFile, 'utf8'), saKeyFile) : undefined;
  const controllers = withoutUnequipped(o, selected, { signingCA: Boolean(signingCA), serviceAccountKey: Boolean(serviceAccountKey) }, log);
  const cfg = await gatewayConfig(o);
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
      ...(proxyClientCertificate ? { proxyClientCertificate } : {}),
      ...leaderElectionConfig(o),
    },
  });
  log.info({ server: cfg.server.origin, controllers }, 'controllers service started');
  const server = port !== 0 ? await serve(o, port, servingCert, client, service, metricsOptions, log) : undefined;
  void service.leading.then(() => reportToSupervisor({ type: 'ready' }));
  stopOnSignals(async () => {
    await service.stop();
    await server?.close();
  }, log);
}

runMain('controllers', main);
