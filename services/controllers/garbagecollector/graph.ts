// The owner graph of the garbage collector: every object of every deletable type by uid, with its
// owner references and, the other way, the dependents of each uid (whether that owner is known or
// not: a dependent can name an owner that is gone or never existed). Pure bookkeeping; the
// decisions are in decide.ts.

import type { OwnerReference } from '../../../shared/api/types.js';

export type { OwnerReference };

export interface ObjectIdentity {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespace?: string;
  name: string;
  uid: string;
}

export interface Node {
  id: ObjectIdentity;
  owners: OwnerReference[];
  finalizers: string[];
  deleting: boolean;
}

export class OwnerGraph {
  private readonly nodes = new Map<string, Node>();
  private readonly dependents = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  node(uid: string): Node | undefined {
    return this.nodes.get(uid);
  }

  /** The known objects naming `uid` as an owner. */
  dependentsOf(uid: string): Node[] {
    return [...(this.dependents.get(uid) ?? [])].map((d) => this.nodes.get(d)).filter((n): n is Node => n !== undefined);
  }

  /** Adds or replaces a node; returns the owner uids it no longer names (their waits may be over). */
  upsert(node: Node): string[] {
    const old = this.nodes.get(node.id.uid);
    this.nodes.set(node.id.uid, node);
    const now = new Set(node.owners.map((o) => o.uid));
    for (const uid of now) {
      let set = this.dependents.get(uid);
      if (!set) this.dependents.set(uid, (set = new Set()));
      set.add(node.id.uid);
    }
    const dropped = (old?.owners ?? []).map((o) => o.uid).filter((uid) => !now.has(uid));
    for (const uid of dropped) this.unlink(uid, node.id.uid);
    return dropped;
  }

  /** Removes a node; returns it (its owners may be waiting for it, its dependents may now dangle). */
  remove(uid: string): Node | undefined {
    const node = this.nodes.get(uid);
    if (!node) return undefined;
    this.nodes.delete(uid);
    for (const o of node.owners) this.unlink(o.uid, uid);
    return node;
  }

  private unlink(owner: string, dependent: string): void {
    const set = this.dependents.get(owner);
    if (!set) return;
    set.delete(dependent);
    if (set.size === 0) this.dependents.delete(owner);
  }
}
