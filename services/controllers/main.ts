// Controllers service entry point: reads flags/env/config, builds an API client of the gateway,
// runs the controllers while it leads.

import { readFile } from 'node:fs/promises';
import { runMain, serviceOptions, stopOnSignals } from '../../shared/service-main.js';
import { createLogger } from '../../shared/log.js';
import { ClientConfigError, inClusterConfig, loadClientConfig, loadClientConfigFiles, resolveClientConfig, type ClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { OptionsError } from '../../shared/config/options.js';
import { controllersOptionSpecs, selectControllers } from './options.js';
import { loadSigningCA } from './certificates/signers.js';
import { parseSigningKey } from '../../shared/serviceaccount/keys.js';
import { createControllersService } from './service.js';

async function clientConfig(file: string | undefined): Promise<ClientConfig> {
  if (file) return resolveClientConfig(await loadClientConfigFiles([file], { requireFirst: true }));
  if (process.env.PLATFORM_SERVICE_HOST) return inClusterConfig();
  return loadClientConfig();
}

async function main(): Promise<void> {
  const o = serviceOptions('platform controllers service', controllersOptionSpecs);
  const log = createLogger('controllers', o['log-level']);
  let controllers = selectControllers(o.controllers);
  const certFile = o['cluster-signing-cert-file'];
  const keyFile = o['cluster-signing-key-file'];
  if (Boolean(certFile) !== Boolean(keyFile)) throw new OptionsError('--cluster-signing-cert-file and --cluster-signing-key-file go together');
  const signingCA = certFile && keyFile ? await loadSigningCA(await readFile(certFile, 'utf8'), await readFile(keyFile, 'utf8')) : undefined;
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
  const client = new ApiClient(cfg, { userAgent: 'platform-controller-manager' });
  const service = createControllersService({
    client,
    log,
    config: {
      controllers,
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
  stopOnSignals(() => service.stop(), log);
}

runMain('controllers', main);
