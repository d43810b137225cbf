// Objects the cluster always has: the system namespaces, created once the cache is synced through
// the generic store like any request (strategy, admission, validation), as the API server's own
// loopback identity. Several gateways racing to create them is harmless (AlreadyExists ignored).

import type { Logger } from 'pino';
import { StatusError } from '../../shared/api/status.js';
import { API_SERVER_MANAGER, API_SERVER_USER } from '../../shared/registry/rest/internal-store.js';
import { NODE_LEASE_NAMESPACE } from '../../shared/api/node-identity.js';
import type { GenericStore } from '../../shared/registry/rest/store.js';
import type { Targets } from '../../shared/registry/target.js';

export const SYSTEM_NAMESPACES = ['default', 'platform-system', 'platform-public', NODE_LEASE_NAMESPACE] as const;

const RETRY_MS = 1_000;
const MAX_ATTEMPTS = 60;

/** Creates the missing system namespaces; retries while the services it needs are starting (up to a minute). */
export async function ensureSystemNamespaces(store: GenericStore, targets: Targets, log: Logger, stopped: () => boolean): Promise<void> {
  const target = targets.preferred('', 'namespaces');
  if (!target) throw new Error('namespaces are not served');
  for (const name of SYSTEM_NAMESPACES) {
    for (let attempt = 1; ; attempt++) {
      try {
        if (await store.exists(target, undefined, name)) break;
        await store.create({ target, user: API_SERVER_USER, namespace: undefined, name, dryRun: false, warnings: [], manager: API_SERVER_MANAGER }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        log.info({ namespace: name }, 'created system namespace');
        break;
      } catch (err) {
        if (err instanceof StatusError && err.status.reason === 'AlreadyExists') break;
        if (attempt >= MAX_ATTEMPTS || stopped()) throw err;
        if (attempt === 1) log.warn({ err: (err as Error).message }, 'cannot create system namespaces yet; retrying');
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }
}
