// The public `cluster-info` ConfigMap that bootstrap-token discovery reads (spec, Authentication
// 4): key `kubeconfig` holds a client configuration with the cluster's CA and server and no user,
// as kubeadm writes it upstream. Kept in every public namespace (`platform-public`, and
// `kube-public` when the gateway serves upstream's names) by the root-ca-cert-publisher, which
// holds the root CA: created when missing, its `kubeconfig` put back when it differs. Other keys
// (the bootstrap signer's `jws-kubeconfig-<id>` signatures) are left alone.

import YAML from 'yaml';
import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isAlreadyExists, isConflict, isNotFound } from '../../../shared/client/rest.js';
import { WorkQueue } from '../queue.js';
import { queueController, type Controller } from '../types.js';
import { CLUSTER_INFO } from './controllers.js';

interface ConfigMap extends ApiObject {
  data?: Record<string, string>;
}

/** The `kubeconfig` of cluster-info: one unnamed cluster (CA data and server), nothing else, as kubeadm's. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return YAML.stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem, 'utf8').toString('base64'), server }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  });
}

/** The server address to publish: the one this service reaches the API at. */
export function serverOf(client: ApiClient): string {
  const url = client.config.server;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export function clusterInfoPublisher(client: ApiClient, log: Logger, kubeconfig: string, namespaces: readonly string[]): Controller {
  const informers = new Map(
    namespaces.map((namespace) => [
      namespace,
      new Informer<ConfigMap>(
        client,
        { group: '', version: 'v1', resource: 'configmaps', namespace },
        { fieldSelector: `metadata.name=${CLUSTER_INFO}`, onError: (err) => log.warn({ err, namespace }, 'cluster-info watch failed; retrying') },
      ),
    ]),
  );

  async function reconcile(namespace: string): Promise<void | { requeueAfterMs: number }> {
    const ref = { group: '', version: 'v1', resource: 'configmaps', namespace };
    const existing = informers.get(namespace)?.get(`${namespace}/${CLUSTER_INFO}`);
    if (existing?.data?.kubeconfig === kubeconfig) return;
    try {
      if (existing) await client.update({ ...ref, name: CLUSTER_INFO }, { ...existing, data: { ...(existing.data ?? {}), kubeconfig } });
      else await client.create(ref, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO, namespace }, data: { kubeconfig } });
      log.info({ namespace }, 'cluster-info published');
    } catch (err) {
      // The namespace is not there yet, or someone else wrote first: the watch brings us back.
      if (isAlreadyExists(err) || isConflict(err)) return;
      if (isNotFound(err)) return { requeueAfterMs: 1_000 };
      throw err;
    }
  }

  const queue = new WorkQueue(reconcile, { onError: (key, err) => log.warn({ err, namespace: key }, 'cluster-info sync failed; retrying') });
  for (const [namespace, informer] of informers) informer.addHandlers({ onAdd: () => queue.add(namespace), onUpdate: () => queue.add(namespace), onDelete: () => queue.add(namespace) });
  return queueController('cluster-info', [...informers.values()], queue, () => {
    for (const namespace of namespaces) queue.add(namespace);
  });
}
