// The namespace controller: a namespace being deleted (Terminating, still holding the `platform`
// finalizer in spec.finalizers) has all its content deleted, type by type, honouring each object's
// own finalizers; its status conditions say how far that got, as upstream's; once nothing is left
// the finalizer is removed through `/finalize` and the namespace goes away.

import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { discoverResources, type DiscoveredResource } from '../../../shared/client/discovery.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound } from '../../../shared/client/rest.js';
import { WorkQueue } from '../queue.js';
import { queueController, type Controller } from '../types.js';

export const NAMESPACE_FINALIZER = 'platform';
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
/** How long discovery is trusted before a namespace deletion asks again. */
const DISCOVERY_TTL_MS = 30_000;
/** When content is still going away (finalizers, graceful deletion), look again after this long. */
const CONTENT_REMAINING_RETRY_MS = 2_000;

export interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/** What the deletion of one namespace's content found: per resource what is left, with the finalizers still on it. */
export interface ContentState {
  errors: string[];
  remaining: Map<string, number>;
  finalizers: Map<string, number>;
}

/** Upstream's five deletion conditions for a content state. */
export function deletionConditions(state: ContentState, discoveryError?: string): Condition[] {
  const list = (m: Map<string, number>, what: string) =>
    [...m.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, n]) => `${k} has ${n} ${what}`)
      .join(', ');
  return [
    discoveryError
      ? { type: 'NamespaceDeletionDiscoveryFailure', status: 'True', reason: 'DiscoveryFailed', message: `Discovery failed for some groups: ${discoveryError}` }
      : { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    state.errors.length
      ? {
          type: 'NamespaceDeletionContentFailure',
          status: 'True',
          reason: 'ContentDeletionFailed',
          message: `Failed to delete all resource types, ${state.errors.length} remaining: ${state.errors.join(', ')}`,
        }
      : { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    state.remaining.size
      ? { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${list(state.remaining, 'resource instances')}` }
      : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    state.finalizers.size
      ? {
          type: 'NamespaceFinalizersRemaining',
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: `Some content in the namespace has finalizers remaining: ${list(state.finalizers, 'resource instances')}`,
        }
      : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
  ];
}

/** Conditions keep their transition time while their status stays the same. */
export function mergeConditions(old: Condition[], next: Condition[], now: string): Condition[] {
  return next.map((c) => {
    const prev = old.find((o) => o.type === c.type);
    return { ...c, lastTransitionTime: prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : now };
  });
}

function specFinalizers(ns: ApiObject): string[] {
  const f = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

function resourceName(r: DiscoveredResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** Deletes what is left of each type and counts what remains (objects with finalizers or a grace period stay a while). */
async function deleteContent(client: ApiClient, namespace: string, resources: DiscoveredResource[]): Promise<ContentState> {
  const state: ContentState = { errors: [], remaining: new Map(), finalizers: new Map() };
  await Promise.all(
    resources.map(async (r) => {
      const ref = { group: r.group, version: r.version, resource: r.resource, namespace };
      try {
        if (r.verbs.includes('deletecollection')) await client.delete(ref, { propagationPolicy: 'Background' });
        const left = (await client.list(ref)).items;
        if (!r.verbs.includes('deletecollection')) {
          for (const o of left.filter((x) => !x.metadata.deletionTimestamp)) {
            await client.delete({ ...ref, name: o.metadata.name! }, { propagationPolicy: 'Background' }).catch((err: unknown) => {
              if (!isNotFound(err)) throw err;
            });
          }
        }
        if (left.length) state.remaining.set(resourceName(r), left.length);
        const finalized = left.filter((o) => (o.metadata.finalizers ?? []).length > 0);
        for (const o of finalized) for (const f of o.metadata.finalizers ?? []) state.finalizers.set(f, (state.finalizers.get(f) ?? 0) + 1);
      } catch (err) {
        if (isNotFound(err)) return;
        state.errors.push(`${resourceName(r)}: ${(err as Error).message}`);
      }
    }),
  );
  return state;
}

async function writeConditions(client: ApiClient, ns: ApiObject, conditions: Condition[]): Promise<void> {
  const status = (ns.status ?? {}) as { conditions?: Condition[] };
  const merged = mergeConditions(status.conditions ?? [], conditions, new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
  const same = JSON.stringify((status.conditions ?? []).map(({ lastTransitionTime: _t, ...c }) => c)) === JSON.stringify(conditions);
  if (same) return;
  try {
    await client.update({ ...NAMESPACES, name: ns.metadata.name!, subresource: 'status' }, { ...ns, status: { ...status, conditions: merged } });
  } catch (err) {
    if (!isConflict(err) && !isNotFound(err)) throw err;
  }
}

/** Hands the namespace back without our finalizer, and the server removes it; false when it is gone already. */
async function finalize(client: ApiClient, name: string): Promise<boolean> {
  const current = await client.get({ ...NAMESPACES, name }).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
  if (!current) return false;
  await client.update(
    { ...NAMESPACES, name, subresource: 'finalize' },
    { ...current, spec: { ...(current.spec ?? {}), finalizers: specFinalizers(current).filter((f) => f !== NAMESPACE_FINALIZER) } },
  );
  return true;
}

export function namespaceController(client: ApiClient, log: Logger): Controller {
  let discovered: { at: number; resources: DiscoveredResource[] } | undefined;
  const informer = new Informer(client, NAMESPACES, { onError: (err) => log.warn({ err }, 'namespace watch failed; retrying') });

  async function namespacedResources(): Promise<DiscoveredResource[]> {
    if (!discovered || Date.now() - discovered.at > DISCOVERY_TTL_MS) {
      const all = await discoverResources(client);
      discovered = { at: Date.now(), resources: all.filter((r) => r.namespaced && r.verbs.includes('list') && r.verbs.includes('delete')) };
    }
    return discovered.resources;
  }

  async function reconcile(name: string): Promise<void | { requeueAfterMs: number }> {
    let ns: ApiObject;
    try {
      ns = await client.get({ ...NAMESPACES, name });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp || !specFinalizers(ns).includes(NAMESPACE_FINALIZER)) return;
    let resources: DiscoveredResource[];
    let discoveryError: string | undefined;
    try {
      resources = await namespacedResources();
    } catch (err) {
      discoveryError = (err as Error).message;
      resources = discovered?.resources ?? [];
    }
    const state = await deleteContent(client, name, resources);
    await writeConditions(client, ns, deletionConditions(state, discoveryError));
    if (discoveryError || state.errors.length) throw new Error(`namespace ${name}: ${discoveryError ?? state.errors.join('; ')}`);
    if (state.remaining.size) return { requeueAfterMs: CONTENT_REMAINING_RETRY_MS };
    // Everything is gone: hand the namespace back.
    if (!(await finalize(client, name))) return;
    log.info({ namespace: name }, 'namespace content deleted; finalized');
  }

  const queue = new WorkQueue(reconcile, { onError: (key, err) => log.warn({ err, namespace: key }, 'namespace deletion incomplete; retrying') });
  const enqueue = (o: ApiObject) => {
    if (o.metadata.deletionTimestamp) queue.add(o.metadata.name!);
  };
  informer.addHandlers({ onAdd: enqueue, onUpdate: (_old, o) => enqueue(o) });
  return queueController('namespace', [informer], queue);
}
