// Per-namespace objects every active namespace gets, as upstream's controllers make them: the
// `default` service account (serviceaccount controller) and the `platform-root-ca.crt` config map
// holding the cluster's root CA (root-ca-cert-publisher). Each is created when missing, re-created
// when deleted, and (the config map) put back when its content is changed.

import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isAlreadyExists, isConflict, isNotFound, type ResourceRef } from '../../../shared/client/rest.js';
import { WorkQueue } from '../queue.js';
import { queueController, type Controller } from '../types.js';
import { clusterInfoKubeconfig, clusterInfoPublisher, serverOf } from '../bootstrap/cluster-info.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../../shared/api/well-known-names.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const ROOT_CA_CONFIG_MAP = 'platform-root-ca.crt';
/** Annotation upstream's publisher puts on the config map. */
export const ROOT_CA_DESCRIPTION = 'Contains a CA bundle that can be used to verify the platform API server. Only the platform API server can verify the certificates issued by it.';

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

interface EnsureSpec {
  name: string;
  resource: Omit<ResourceRef, 'namespace' | 'name'>;
  objectName: string;
  /** The object as it should be in `namespace`. */
  desired(namespace: string): ApiObject;
  /** Whether an existing object must be put back to its desired content. */
  drifted?(existing: ApiObject): boolean;
}

/** A controller that keeps one named object in every active namespace. */
function perNamespaceObject(client: ApiClient, log: Logger, spec: EnsureSpec): Controller {
  const namespaces = new Informer(client, NAMESPACES, { onError: (err) => log.warn({ err, controller: spec.name }, 'namespace watch failed; retrying') });
  const objects = new Informer(client, spec.resource, { fieldSelector: `metadata.name=${spec.objectName}`, onError: (err) => log.warn({ err, controller: spec.name }, 'watch failed; retrying') });

  async function reconcile(namespace: string): Promise<void> {
    const ns = namespaces.get(namespace);
    // Terminating namespaces refuse new objects; deleted ones need nothing.
    if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') return;
    const ref = { ...spec.resource, namespace };
    const existing = objects.get(`${namespace}/${spec.objectName}`);
    if (existing && !spec.drifted?.(existing)) return;
    try {
      if (existing) await client.update({ ...ref, name: spec.objectName }, { ...spec.desired(namespace), metadata: { ...existing.metadata, ...spec.desired(namespace).metadata } });
      else await client.create(ref, spec.desired(namespace));
    } catch (err) {
      // Someone else made it, or it changed under us: the watch brings the new state back here.
      if (isAlreadyExists(err) || isConflict(err) || isNotFound(err)) return;
      throw err;
    }
  }

  const queue = new WorkQueue(reconcile, { onError: (key, err) => log.warn({ err, namespace: key, controller: spec.name }, 'sync failed; retrying') });
  namespaces.addHandlers({ onAdd: (o) => queue.add(o.metadata.name!), onUpdate: (_o, n) => queue.add(n.metadata.name!) });
  const byNamespace = (o: ApiObject) => {
    if (o.metadata.namespace) queue.add(o.metadata.namespace);
  };
  objects.addHandlers({ onDelete: byNamespace, onUpdate: (_o, n) => byNamespace(n) });
  // The objects first: a namespace seen before them would look like it lacks its object.
  return queueController(spec.name, [objects, namespaces], queue);
}

export function serviceAccountController(client: ApiClient, log: Logger): Controller {
  return perNamespaceObject(client, log, {
    name: 'serviceaccount',
    resource: { group: '', version: 'v1', resource: 'serviceaccounts' },
    objectName: DEFAULT_SERVICE_ACCOUNT,
    desired: (namespace) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } }),
  });
}

/**
 * Publishes the root CA in every namespace, and `cluster-info` (the CA and this service's server)
 * in the public namespaces `names` has (bootstrap/cluster-info.ts): both are the cluster's CA made public.
 */
export function rootCACertPublisher(client: ApiClient, log: Logger, rootCA: string, names: WellKnownNames = PLATFORM_NAMES): Controller {
  const clusterInfo = clusterInfoPublisher(client, log, clusterInfoKubeconfig(serverOf(client), rootCA), names.publicNamespaces);
  return allOf('root-ca-cert-publisher', [perNamespaceRootCA(client, log, rootCA), clusterInfo]);
}

/** Several controllers started, stopped and waited for as one. */
function allOf(name: string, parts: Controller[]): Controller {
  return {
    name,
    start: async () => void (await Promise.all(parts.map((p) => p.start()))),
    stop: async () => void (await Promise.all(parts.map((p) => p.stop()))),
    idle: async () => void (await Promise.all(parts.map(async (p) => p.idle?.()))),
  };
}

function perNamespaceRootCA(client: ApiClient, log: Logger, rootCA: string): Controller {
  const desiredData = { 'ca.crt': rootCA };
  return perNamespaceObject(client, log, {
    name: 'root-ca-cert-publisher',
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    objectName: ROOT_CA_CONFIG_MAP,
    desired: (namespace) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: ROOT_CA_CONFIG_MAP, namespace, annotations: { 'platform.io/description': ROOT_CA_DESCRIPTION } },
      data: desiredData,
    }),
    drifted: (existing) => JSON.stringify((existing as { data?: unknown }).data ?? {}) !== JSON.stringify(desiredData),
  });
}
