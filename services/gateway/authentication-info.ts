// The `extension-apiserver-authentication` ConfigMap in the system namespace (upstream's
// kube-system one, written by kube-apiserver's cluster-authentication-trust controller): how an
// aggregated API server learns whom to trust. `client-ca-file` is the gateway's --client-ca-file;
// `requestheader-client-ca-file` its --requestheader-client-ca-file, the CA of the front-proxy
// client certificate it presents (--proxy-client-cert-file), with the headers its proxy fills in
// and, as allowed name, that certificate's CN — so a backend configured from this ConfigMap (as
// metrics-server and sample-apiserver are) accepts the gateway and nothing else holding that CA.
// Written through the generic store as the server's own identity once the system namespaces
// exist, created when missing and brought back to the gateway's values when they differ. With
// upstream's names served, `kube-system` gets the same ConfigMap: stock aggregated servers read it there.

import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { StatusError } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import { CONTROLLER_ACCOUNT_NAMESPACE } from '../../shared/api/controller-accounts.js';
import { jsonEqual } from '../../shared/patch/json-value.js';
import { API_SERVER_MANAGER, API_SERVER_USER } from '../../shared/registry/rest/internal-store.js';
import type { GenericStore } from '../../shared/registry/rest/generic-store.js';
import type { WriteRequest } from '../../shared/registry/rest/store-types.js';
import type { Targets } from '../../shared/registry/target.js';
import { FRONT_PROXY_EXTRA_PREFIX, FRONT_PROXY_GROUP_HEADER, FRONT_PROXY_USER_HEADER } from './aggregation/backends.js';

export const AUTHENTICATION_INFO_NAME = 'extension-apiserver-authentication';
/** The spec's system namespace (upstream's kube-system, which gets a copy too when upstream names are served). */
export const AUTHENTICATION_INFO_NAMESPACE = CONTROLLER_ACCOUNT_NAMESPACE;

export interface AuthenticationInfo {
  /** `--client-ca-file`'s PEM bundle. */
  clientCA?: string;
  /** `--requestheader-client-ca-file`'s PEM bundle: the CA of the front-proxy client certificate. */
  requestHeaderCA?: string;
  /** `--proxy-client-cert-file`'s PEM: its CN is the one name backends should allow. */
  proxyClientCert?: string;
}

/** The CN of a PEM certificate; undefined when it has none or cannot be read. */
function commonName(pem: string): string | undefined {
  try {
    return /^CN=(.*)$/m.exec(new X509Certificate(pem).subject)?.[1];
  } catch {
    return undefined;
  }
}

/** The ConfigMap's data, keys as upstream writes them (lists as JSON arrays); undefined when there is nothing to publish. */
export function authenticationInfoData(info: AuthenticationInfo): Record<string, string> | undefined {
  const data: Record<string, string> = {};
  if (info.clientCA) data['client-ca-file'] = info.clientCA;
  if (info.requestHeaderCA) {
    const cn = info.proxyClientCert ? commonName(info.proxyClientCert) : undefined;
    data['requestheader-client-ca-file'] = info.requestHeaderCA;
    data['requestheader-username-headers'] = JSON.stringify([FRONT_PROXY_USER_HEADER]);
    data['requestheader-group-headers'] = JSON.stringify([FRONT_PROXY_GROUP_HEADER]);
    data['requestheader-extra-headers-prefix'] = JSON.stringify([FRONT_PROXY_EXTRA_PREFIX]);
    data['requestheader-allowed-names'] = JSON.stringify(cn ? [cn] : []);
  }
  return Object.keys(data).length ? data : undefined;
}

const RETRY_MS = 1_000;
const MAX_ATTEMPTS = 60;

/** Thrown by an update's compute that finds the ConfigMap as it should be: nothing is written. */
class Unchanged extends Error {}

async function publishOnce(store: GenericStore, req: WriteRequest, data: Record<string, string>): Promise<'created' | 'updated' | 'kept'> {
  if (!(await store.exists(req.target, req.namespace, req.name))) {
    try {
      await store.create(req, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: req.name, namespace: req.namespace! }, data });
      return 'created';
    } catch (err) {
      if (!(err instanceof StatusError && err.status.reason === 'AlreadyExists')) throw err;
    }
  }
  try {
    await store.update(req, (current) => {
      if (jsonEqual(current.data, data)) throw new Unchanged();
      return { ...current, data: { ...data } } as ApiObject;
    });
    return 'updated';
  } catch (err) {
    if (err instanceof Unchanged) return 'kept';
    throw err;
  }
}

/**
 * Publishes the ConfigMap in every namespace of the served names' `authenticationInfoNamespaces`
 * (nothing when neither CA is configured); retries while the services it needs start.
 */
export async function publishAuthenticationInfo(store: GenericStore, targets: Targets, info: AuthenticationInfo, log: Logger, stopped: () => boolean): Promise<void> {
  const data = authenticationInfoData(info);
  const target = targets.preferred('', 'configmaps');
  if (!data || !target) return;
  for (const namespace of targets.registry.names.authenticationInfoNamespaces) {
    const req: WriteRequest = { target, user: API_SERVER_USER, namespace, name: AUTHENTICATION_INFO_NAME, dryRun: false, warnings: [], manager: API_SERVER_MANAGER };
    await publishWithRetries(store, req, data, log, stopped);
  }
}

async function publishWithRetries(store: GenericStore, req: WriteRequest, data: Record<string, string>, log: Logger, stopped: () => boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await publishOnce(store, req, data);
      if (outcome !== 'kept') log.info({ configMap: `${req.namespace}/${AUTHENTICATION_INFO_NAME}` }, `${outcome} the authentication information of aggregated API servers`);
      return;
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || stopped()) throw err;
      if (attempt === 1) log.warn({ err: (err as Error).message }, 'cannot publish extension-apiserver-authentication yet; retrying');
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}
