// Requests, objects and caches for the unit tests of the small plugins that look at pods, nodes,
// namespaces, services and volumes (plugins/pods, nodes, namespaces, networking, volumes).

import assert from 'node:assert/strict';
import { StatusError } from '../../../shared/api/status.js';
import type { ApiObject } from '../../../shared/api/types.js';
import type { AdmissionOperation, AdmissionRequest } from '../../../shared/bus/messages.js';
import { ObjectCache } from '../object-cache.js';
import type { AdmissionContext } from '../types.js';
import { silentLogger } from '../../../shared/log.js';

export const CTX: AdmissionContext = { log: silentLogger(), warn: () => undefined, annotate: () => undefined };

const KINDS: Record<string, string> = {
  pods: 'Pod',
  nodes: 'Node',
  services: 'Service',
  persistentvolumes: 'PersistentVolume',
  namespaces: 'Namespace',
  configmaps: 'ConfigMap',
};

export interface RequestOptions {
  operation?: AdmissionOperation;
  phase?: AdmissionRequest['phase'];
  group?: string;
  sub?: string;
  name?: string;
  namespace?: string | null;
  object?: ApiObject | null;
  old?: ApiObject | null;
  kind?: string;
  dryRun?: boolean;
}

/** A request for `resource` (namespace `default` unless cluster-scoped or given). */
export function request(resource: string, o: RequestOptions = {}): AdmissionRequest {
  const group = o.group ?? '';
  const object = o.object === undefined ? null : o.object;
  const clusterScoped = ['nodes', 'persistentvolumes', 'namespaces'].includes(resource);
  const r: AdmissionRequest = {
    uid: 'uid-1',
    phase: o.phase ?? 'mutating',
    kind: { group, version: 'v1', kind: o.kind ?? KINDS[resource] ?? 'Thing' },
    resource: { group, version: 'v1', resource },
    name: o.name ?? object?.metadata?.name ?? '',
    operation: o.operation ?? 'CREATE',
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object,
    oldObject: o.old ?? null,
    dryRun: o.dryRun ?? false,
  };
  if (o.sub) r.subResource = o.sub;
  const ns = o.namespace === null ? undefined : (o.namespace ?? (clusterScoped ? undefined : 'default'));
  if (ns) r.namespace = ns;
  return r;
}

export function pod(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): ApiObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', ...meta },
    spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }], ...spec },
  };
}

export function namespace(name: string, annotations?: Record<string, string>): ApiObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, resourceVersion: '1', ...(annotations ? { annotations } : {}) }, status: { phase: 'Active' } };
}

/** A synced namespace cache holding these namespaces, without a live reader (a miss is absent). */
export function namespaceObjects(...namespaces: ApiObject[]): ObjectCache {
  const cache = new ObjectCache('', 'namespaces');
  namespaces.forEach((ns, i) => cache.apply({ key: `ns.${ns.metadata.name}`, ref: { group: '', resource: 'namespaces', name: ns.metadata.name! }, revision: i + 1, object: ns }));
  cache.markSynced();
  return cache;
}

/** Asserts that `run` rejects with this code and (exact) message. */
export async function rejects(run: () => unknown, code: number, message: string | RegExp): Promise<StatusError> {
  try {
    await run();
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    assert.equal(err.status.code, code, err.status.message);
    if (typeof message === 'string') assert.equal(err.status.message, message);
    else assert.match(err.status.message, message);
    return err;
  }
  assert.fail(`expected a ${code} rejection`);
}
