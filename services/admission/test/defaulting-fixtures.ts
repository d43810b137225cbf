// Shared by the unit tests of the defaulting plugins: caches fed by hand, requests, and running
// one hook to an outcome a table can state.

import assert from 'node:assert/strict';
import { StatusError } from '../../../shared/api/status.js';
import type { ApiObject, ObjectRef } from '../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import { ObjectCache } from '../object-cache.js';
import type { AdmissionContext, AdmissionPlugin } from '../types.js';

/** A synced cache holding `objects`; `live` are found only by a store read (the cache lags). */
export function cacheOf(group: string, resource: string, objects: ApiObject[], live: ApiObject[] = []): ObjectCache & { reads: string[] } {
  const reads: string[] = [];
  const reader = async (ref: ObjectRef): Promise<ApiObject | null> => {
    reads.push(`${ref.namespace ?? ''}/${ref.name}`);
    const hit = live.find((o) => o.metadata.name === ref.name && (o.metadata.namespace ?? '') === (ref.namespace ?? ''));
    return hit ? structuredClone(hit) : null;
  };
  const cache = new ObjectCache(group, resource, reader);
  objects.forEach((o, i) => {
    const ref = { group, resource, name: o.metadata.name!, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) };
    cache.apply({ key: `${resource}.${i}`, ref, revision: i + 1, object: { ...o, metadata: { ...o.metadata, resourceVersion: String(i + 1) } } });
  });
  cache.markSynced();
  return Object.assign(cache, { reads });
}

export interface RequestInit {
  operation?: AdmissionRequest['operation'];
  phase?: AdmissionRequest['phase'];
  group?: string;
  resource?: string;
  kind?: string;
  sub?: string;
  namespace?: string;
  object?: ApiObject | null;
  old?: ApiObject | null;
  dryRun?: boolean;
}

export function request(o: RequestInit): AdmissionRequest {
  const group = o.group ?? '';
  const object = o.object ?? null;
  const r: AdmissionRequest = {
    uid: 'u',
    phase: o.phase ?? 'mutating',
    kind: { group, version: 'v1', kind: o.kind ?? 'Any' },
    resource: { group, version: 'v1', resource: o.resource ?? 'pods' },
    name: object?.metadata.name ?? '',
    operation: o.operation ?? 'CREATE',
    userInfo: { username: 'jane', groups: ['system:authenticated'] },
    object,
    oldObject: o.old ?? null,
    dryRun: o.dryRun ?? false,
  };
  if (o.sub) r.subResource = o.sub;
  if (o.namespace !== undefined) r.namespace = o.namespace;
  return r;
}

export type Outcome = { object: ApiObject | null } | { code: number; message: string };

const ctx: AdmissionContext = { log: undefined as never, warn: () => {}, annotate: () => {} };

/** Runs the request's phase hook of `plugin` on a copy of its object (as the chain does). */
export async function run(plugin: AdmissionPlugin, req: AdmissionRequest): Promise<Outcome> {
  const copy = { ...req, object: req.object ? structuredClone(req.object) : null };
  const hook = req.phase === 'mutating' ? plugin.mutate : plugin.validate;
  try {
    const out = await hook?.call(plugin, copy, ctx);
    return { object: out ?? copy.object };
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return { code: err.code, message: err.message };
  }
}

/** The admitted object, failing the test with the refusal otherwise. */
export function admitted(outcome: Outcome): ApiObject {
  assert.ok('object' in outcome, `refused: ${JSON.stringify(outcome)}`);
  return outcome.object!;
}

export const pod = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'ns1', ...meta },
  spec: { containers: [{ name: 'app', image: 'img' }], ...spec },
});
