// The ConfigMaps every measurement uses, built in one place so the gateway, the raw KV writes and
// the bare fastify baseline all move objects of the same shape and size (~350 bytes of JSON).

import { randomUUID } from 'node:crypto';
import { encodeKey } from '../shared/store/key-codec.js';
import type { ObjectRef } from '../shared/api/types.js';

const DATA = { 'app.properties': 'color=blue\nsize=medium\nretries=3\n', 'log-level': 'info' };
const LABELS = { app: 'bench', tier: 'backend' };

/** The body a client POSTs: what `kubectl create configmap` would send. */
export function configMapBody(namespace: string, name: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: LABELS }, data: DATA };
}

/** The object as the storage service stores it: server-owned metadata set, no resourceVersion. */
export function storedConfigMap(namespace: string, name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: LABELS, uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') },
    data: DATA,
  };
}

/** The KV key the storage service would use for a ConfigMap (the project's own key codec). */
export function configMapKey(namespace: string, name: string): string {
  const ref: ObjectRef = { group: '', resource: 'configmaps', namespace, name };
  return encodeKey(ref);
}
