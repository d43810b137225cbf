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

function nodeOf(r: DiscoveredResource, o: ApiObject): Node {
  const id: ObjectIdentity = { group: r.group, version: r.version, resource: r.resource, kind: r.kind, name: o.metadata.name ?? '', uid: o.metadata.uid ?? '' };
  if (o.metadata.namespace) id.namespace = o.metadata.namespace;
  return { id, owners: ownersOf(o), finalizers: o.metadata.finalizers ?? [], deleting: Boolean(o.metadata.deletionTimestamp) };
}

/** The metadata change that drops the owner references `drop` picks; undefined when there are none. */
function withoutOwners(o: ApiObject, drop: (ref: OwnerReference) => boolean): Record<string, unknown> | undefined {
  const refs = ownersOf(o);
  const kept = refs.filter((r) => !drop(r));
  return kept.length === refs.length ? undefined : { ownerReferences: kept.length ? kept : null };
}

/** The metadata change that removes `finalizer`; undefined when the object does not have it. */
function withoutFinalizer(o: ApiObject, finalizer: string): Record<string, unknown> | undefined {
  const f = o.metadata.finalizers ?? [];
  return f.includes(finalizer) ? { finalizers: f.filter((x) => x !== finalizer) } : undefined;
}

const describe = (node: Node): string => `${node.id.resource}/${node.id.namespace ?? ''}/${node.id.name}`;

class GarbageCollector implements Controller {
  readonly name = 'garbagecollector';
  private readonly graph = new OwnerGraph();
  private readonly informers: Informer[] = [];
  /** `group/Kind` → the resource serving it. */
  private readonly byKind = new Map<string, DiscoveredResource>();
  private synced = false;
  private readonly queue: WorkQueue;

  constructor(
    private readonly client: ApiClient,
    private readonly log: Logger,
  ) {
    this.queue = new WorkQueue((uid) => this.reconcile(uid), { workers: 4, onError: (key, err) => log.warn({ err, uid: key }, 'garbage collection of an object failed; retrying') });
  }

  async start(): Promise<void> {
    const resources = (await discoverResources(this.client)).filter((r) => ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v)));
    for (const r of resources) this.byKind.set(`${r.group}/${r.kind}`, r);
    for (const r of resources) this.informers.push(this.watch(r).start());
    await Promise.all(this.informers.map((i) => i.synced));
    this.synced = true;
    // Everything seen before the graph was whole is looked at once now.
    for (const i of this.informers) for (const o of i.list()) if (ownersOf(o).length || o.metadata.deletionTimestamp) this.queue.add(o.metadata.uid ?? '');
    this.log.info({ resources: resources.length, objects: this.graph.size }, 'garbage collector synced');
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private enqueue(uid: string): void {
    if (this.synced) this.queue.add(uid);
  }

  private watch(r: DiscoveredResource): Informer {
    const { graph, log } = this;
    const informer = new Informer(
      this.client,
      { group: r.group, version: r.version, resource: r.resource },
      { metadataOnly: true, onError: (err) => log.warn({ err, resource: r.resource }, 'watch failed; retrying') },
    );
    const observe = (o: ApiObject) => {
      const node = nodeOf(r, o);
      const dropped = graph.upsert(node);
      if (node.owners.length || node.deleting) this.enqueue(node.id.uid);
      // A dependent that left an owner waiting in the foreground may let it go.
      for (const u of dropped) this.enqueue(u);
      if (node.deleting) for (const d of graph.dependentsOf(node.id.uid)) this.enqueue(d.id.uid);
    };
    informer.addHandlers({
      onAdd: observe,
      onUpdate: (_old, o) => observe(o),
      onDelete: (o) => {
        const gone = graph.remove(o.metadata.uid ?? '');
        if (!gone) return;
        for (const d of graph.dependentsOf(gone.id.uid)) this.enqueue(d.id.uid);
        for (const ref of gone.owners) this.enqueue(ref.uid);
      },
    });
    return informer;
  }

  private async reconcile(uid: string): Promise<void | { requeueAfterMs: number }> {
    const node = this.graph.node(uid);
    if (!node) return;
    const dependents = this.graph.dependentsOf(uid);
    const owner = decideOwner(node, dependents);
    if (owner.kind === 'orphan') return this.orphanDependents(uid, node, owner.dependents);
    if (owner.kind === 'foreground') {
      for (const d of dependents) this.queue.add(d.id.uid);
      if (owner.blocked) return { requeueAfterMs: 5_000 };
      await this.patchMetadata(node.id, (o) => withoutFinalizer(o, FOREGROUND));
      return;
    }
    if (node.owners.length === 0) return;
    return this.collectDependent(uid, node, dependents.length > 0);
  }

  /** An owner deleted with `propagationPolicy: Orphan`: its references leave its dependents, then its finalizer goes. */
  private async orphanDependents(uid: string, node: Node, dependents: Node[]): Promise<void> {
    for (const d of dependents) await this.patchMetadata(d.id, (o) => withoutOwners(o, (r) => r.uid === uid));
    await this.patchMetadata(node.id, (o) => withoutFinalizer(o, ORPHAN));
    this.log.info({ object: describe(node), dependents: dependents.length }, 'dependents orphaned');
  }

  /** A dependent: deleted when its owners are gone, or rid of its references to the gone ones. */
  private async collectDependent(uid: string, node: Node, hasDependents: boolean): Promise<void> {
    const states = await Promise.all(node.owners.map(async (ref) => ({ ref, state: await this.ownerState(node, ref) })));
    const action = decideDependent(node, states, hasDependents);
    if (action.kind === 'removeOwnerReferences') {
      const drop = new Set(action.uids);
      await this.patchMetadata(node.id, (o) => withoutOwners(o, (r) => drop.has(r.uid)));
    } else if (action.kind === 'delete') {
      try {
        await this.client.delete(refOf(node.id), { propagationPolicy: action.policy, preconditions: { uid } });
        this.log.info({ object: describe(node), policy: action.policy }, 'deleted: its owners are gone');
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
    }
  }

  /** The state of one owner reference of `node`, looked up live when the graph does not know it. */
  private async ownerState(node: Node, ref: OwnerReference): Promise<OwnerState> {
    const r = this.byKind.get(`${groupOf(ref.apiVersion)}/${ref.kind}`);
    if (!r) return 'unresolvable';
    if (r.namespaced && !node.id.namespace) return 'unresolvable';
    const known = this.graph.node(ref.uid);
    if (known) return known.deleting && known.finalizers.includes(FOREGROUND) ? 'waiting' : 'solid';
    try {
      const owner = await this.client.get({ group: r.group, version: r.version, resource: r.resource, ...(r.namespaced ? { namespace: node.id.namespace } : {}), name: ref.name });
      if (owner.metadata.uid !== ref.uid) return 'dangling';
      return owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND) ? 'waiting' : 'solid';
    } catch (err) {
      if (isNotFound(err)) return 'dangling';
      throw err;
    }
  }

  /** Patches the object's metadata from its current state, with its resourceVersion as a precondition. */
  private async patchMetadata(id: ObjectIdentity, change: (o: ApiObject) => Record<string, unknown> | undefined): Promise<void> {
    let current: ApiObject;
    try {
      current = await this.client.get(refOf(id));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (current.metadata.uid !== id.uid) return;
    const meta = change(current);
    if (!meta) return;
    await this.client.patch(refOf(id), { metadata: { ...meta, uid: id.uid, resourceVersion: current.metadata.resourceVersion } }, 'merge');
  }
}

export function garbageCollector(client: ApiClient, log: Logger): Controller {
  return new GarbageCollector(client, log);
}
