// The controller that establishes CustomResourceDefinitions, run for an e2e suite as the
// controller manager runs it: its own client certificate, service-account credentials under RBAC.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { TestCluster } from './cluster.js';
import { issueClientCert } from '../../shared/local/pki.js';
import { writeKubeconfig } from '../../shared/local/kubeconfig.js';
import { loadClientConfig } from '../../shared/client/config.js';
import { ApiClient } from '../../shared/client/rest.js';
import { createControllersService } from '../../services/controllers/service.js';
import { assertOk, eventually } from '../e2e/helpers.js';

export interface CrdControllers {
  stop(): Promise<void>;
}

/** Starts `controllers` (default: the definitions' own) once the default policy they run under is written. */
export async function startCrdControllers(c: TestCluster, dirPrefix: string, controllers: string[] = ['customresourcedefinitions']): Promise<CrdControllers> {
  await eventually(
    'the default policy is written',
    async () => assertOk(await c.request('GET', '/apis/rbac.authorization.platform.io/v1/clusterrolebindings/system:controller:customresourcedefinition-controller')),
    { timeoutMs: 15_000, intervalMs: 100 },
  );
  const dir = await mkdtemp(path.join(os.tmpdir(), dirPrefix));
  const user = 'system:platform-controller-manager';
  const cert = await issueClientCert(c.ca, { commonName: user });
  const kubeconfig = path.join(dir, 'controllers.kubeconfig');
  await writeKubeconfig(kubeconfig, { server: c.url, caPem: c.caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, certUserName: user });
  const client = new ApiClient(await loadClientConfig({ env: { PLATFORMCONFIG: kubeconfig } }));
  const service = createControllersService({ client, log: pino({ level: 'warn' }), config: { controllers, useServiceAccountCredentials: true } });
  await service.leading;
  return {
    async stop() {
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until every path in `paths` (a custom resource's collection in each of its versions) is served. */
export async function servedIn(c: TestCluster, what: string, paths: string[]): Promise<void> {
  await eventually(
    `${what} served`,
    async () => {
      for (const p of paths) assertOk(await c.request('GET', p));
    },
    { timeoutMs: 15_000, intervalMs: 100 },
  );
}
