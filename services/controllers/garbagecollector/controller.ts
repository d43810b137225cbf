// The garbage collector: metadata-only informers over every deletable type feed the owner graph;
// a dependent whose owners are all gone is deleted (in the foreground when an owner waits for it),
// references to gone owners are dropped while another owner remains, an owner deleted with
// `propagationPolicy: Orphan` has its references removed from its dependents, and one deleted in
// the foreground keeps its `foregroundDeletion` finalizer until no dependent blocks it. Existence
// is checked live (by name, compared by uid) before anything is deleted.

import type { ApiObject } from '../../../shared/api/types.js';
import type { Logger } from '../../../shared/log.js';
import { discoverResources, type DiscoveredResource } from '../../../shared/client/discovery.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound, type ResourceRef } from '../../../shared/client/rest.js';
import { WorkQueue } from '../queue.js';
import type { Controller } from '../types.js';
import { decideDependent, decideOwner, FOREGROUND, ORPHAN, type OwnerState } from './decide.js';
import { OwnerGraph, type Node, type ObjectIdentity, type OwnerReference } from './graph.js';

function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function refOf(id: ObjectIdentity): ResourceRef {
  return { group: id.group, version: id.version, resource: id.resource, ...(id.namespace ? { namespace: id.namespace } : {}), name: id.name };
}

function ownersOf(o: ApiObject): OwnerReference[] {
  const refs = o.metadata.ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerReference[]).filter((r) => r && typeof r.uid === 'string' && typeof r.name === 'string') : [];
}

export function garbageCollector(client: ApiClient, log: Logger): Controller {
  const graph = new OwnerGraph();
  const informers: Informer[] = [];
  /** `group/Kind` → the resource serving it. */
  const byKind = new Map<string, DiscoveredResource>();
  let synced = false;

  function nodeOf(r: DiscoveredResource, o: ApiObject): Node {
    const id: ObjectIdentity = { group: r.group, version: r.version, resource: r.resource, kind: r.kind, name: o.metadata.name ?? '', uid: o.metadata.uid ?? '' };
    if (o.metadata.namespace) id.namespace = o.metadata.namespace;
    return { id, owners: ownersOf(o), finalizers: o.metadata.finalizers ?? [], deleting: Boolean(o.metadata.deletionTimestamp) };
  }

  /** The state of one owner reference of `node`, looked up live when the graph does not know it. */
  async function ownerState(node: Node, ref: OwnerReference): Promise<OwnerState> {
    const r = byKind.get(`${groupOf(ref.apiVersion)}/${ref.kind}`);
    if (!r) return 'unresolvable';
    if (r.namespaced && !node.id.namespace) return 'unresolvable';
    const known = graph.node(ref.uid);
    if (known) return known.deleting && known.finalizers.includes(FOREGROUND) ? 'waiting' : 'solid';
    try {
      const owner = await client.get({ group: r.group, version: r.version, resource: r.resource, ...(r.namespaced ? { namespace: node.id.namespace } : {}), name: ref.name });
      if (owner.metadata.uid !== ref.uid) return 'dangling';
      return owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND) ? 'waiting' : 'solid';
    } catch (err) {
      if (isNotFound(err)) return 'dangling';
      throw err;
    }
  }

  /** Patches the object's metadata from its current state, with its resourceVersion as a precondition. */
  async function patchMetadata(id: ObjectIdentity, change: (o: ApiObject) => Record<string, unknown> | undefined): Promise<void> {
    let current: ApiObject;
    try {
      current = await client.get(refOf(id));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (current.metadata.uid !== id.uid) return;
    const meta = change(current);
    if (!meta) return;
    await client.patch(refOf(id), { metadata: { ...meta, uid: id.uid, resourceVersion: current.metadata.resourceVersion } }, 'merge');
  }

  async function reconcile(uid: string): Promise<void | { requeueAfterMs: number }> {
    const node = graph.node(uid);
    if (!node) return;
    const dependents = graph.dependentsOf(uid);
    const owner = decideOwner(node, dependents);
    if (owner.kind === 'orphan') {
      for (const d of owner.dependents) {
        await patchMetadata(d.id, (o) => {
          const refs = ownersOf(o);
          const kept = refs.filter((r) => r.uid !== uid);
          return kept.length === refs.length ? undefined : { ownerReferences: kept.length ? kept : null };
        });
      }
      await patchMetadata(node.id, (o) => {
        const f = o.metadata.finalizers ?? [];
        return f.includes(ORPHAN) ? { finalizers: f.filter((x) => x !== ORPHAN) } : undefined;
      });
      log.info({ object: `${node.id.resource}/${node.id.namespace ?? ''}/${node.id.name}`, dependents: owner.dependents.length }, 'dependents orphaned');
      return;
    }
    if (owner.kind === 'foreground') {
      for (const d of dependents) queue.add(d.id.uid);
      if (owner.blocked) return { requeueAfterMs: 5_000 };
      await patchMetadata(node.id, (o) => {
        const f = o.metadata.finalizers ?? [];
        return f.includes(FOREGROUND) ? { finalizers: f.filter((x) => x !== FOREGROUND) } : undefined;
      });
      return;
    }
    if (node.owners.length === 0) return;
    const states = await Promise.all(node.owners.map(async (ref) => ({ ref, state: await ownerState(node, ref) })));
    const action = decideDependent(node, states, dependents.length > 0);
    if (action.kind === 'removeOwnerReferences') {
      const drop = new Set(action.uids);
      await patchMetadata(node.id, (o) => {
        const refs = ownersOf(o);
        const kept = refs.filter((r) => !drop.has(r.uid));
        return kept.length === refs.length ? undefined : { ownerReferences: kept.length ? kept : null };
      });
    } else if (action.kind === 'delete') {
      try {
        await client.delete(refOf(node.id), { propagationPolicy: action.policy, preconditions: { uid } });
        log.info({ object: `${node.id.resource}/${node.id.namespace ?? ''}/${node.id.name}`, policy: action.policy }, 'deleted: its owners are gone');
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
    }
  }

  const queue = new WorkQueue(reconcile, { workers: 4, onError: (key, err) => log.warn({ err, uid: key }, 'garbage collection of an object failed; retrying') });
  const enqueue = (uid: string) => {
    if (synced) queue.add(uid);
  };

  function watch(r: DiscoveredResource): Informer {
    const informer = new Informer(
      client,
      { group: r.group, version: r.version, resource: r.resource },
      { metadataOnly: true, onError: (err) => log.warn({ err, resource: r.resource }, 'watch failed; retrying') },
    );
    const observe = (o: ApiObject) => {
      const node = nodeOf(r, o);
      const dropped = graph.upsert(node);
      if (node.owners.length || node.deleting) enqueue(node.id.uid);
      // A dependent that left an owner waiting in the foreground may let it go.
      for (const u of dropped) enqueue(u);
      if (node.deleting) for (const d of graph.dependentsOf(node.id.uid)) enqueue(d.id.uid);
    };
    informer.addHandlers({
      onAdd: observe,
      onUpdate: (_old, o) => observe(o),
      onDelete: (o) => {
        const gone = graph.remove(o.metadata.uid ?? '');
        if (!gone) return;
        for (const d of graph.dependentsOf(gone.id.uid)) enqueue(d.id.uid);
        for (const ref of gone.owners) enqueue(ref.uid);
      },
    });
    return informer;
  }

  return {
    name: 'garbagecollector',
    async start() {
      const resources = (await discoverResources(client)).filter((r) => ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v)));
      for (const r of resources) byKind.set(`${r.group}/${r.kind}`, r);
      for (const r of resources) informers.push(watch(r).start());
      await Promise.all(informers.map((i) => i.synced));
      synced = true;
      // Everything seen before the graph was whole is looked at once now.
      for (const i of informers) for (const o of i.list()) if (ownersOf(o).length || o.metadata.deletionTimestamp) queue.add(o.metadata.uid ?? '');
      log.info({ resources: resources.length, objects: graph.size }, 'garbage collector synced');
    },
    async stop() {
      queue.shutDown();
      await Promise.all(informers.map((i) => i.stop()));
    },
    idle: () => queue.idle(),
  };
}
