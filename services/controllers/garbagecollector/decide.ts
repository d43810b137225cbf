// What the garbage collector does about one object, from the state of its owners and dependents
// (upstream's attemptToDeleteItem, orphanDependents and processDeletingDependentsItem). Pure.

import type { Node, OwnerReference } from './graph.js';

export const ORPHAN = 'orphan';
export const FOREGROUND = 'foregroundDeletion';

/**
 * An owner reference as found: `solid` (the owner exists with that uid), `dangling` (it does not,
 * or another object of that name does), `waiting` (it is being deleted in the foreground, waiting
 * for its dependents), `unresolvable` (its kind is unknown, or a cluster-scoped object names a
 * namespaced owner: it can never be looked up, so it neither keeps nor frees the object).
 */
export type OwnerState = 'solid' | 'dangling' | 'waiting' | 'unresolvable';

export type Policy = 'Foreground' | 'Background' | 'Orphan';

export type DependentAction = { kind: 'none' } | { kind: 'removeOwnerReferences'; uids: string[] } | { kind: 'delete'; policy: Policy };

/** A dependent: kept while a solid owner remains (references to gone or waiting owners are dropped), deleted once none does. */
export function decideDependent(node: Node, owners: ReadonlyArray<{ ref: OwnerReference; state: OwnerState }>, hasDependents: boolean): DependentAction {
  if (node.deleting || owners.length === 0) return { kind: 'none' };
  const solid = owners.filter((o) => o.state === 'solid');
  const gone = owners.filter((o) => o.state === 'dangling' || o.state === 'waiting');
  if (solid.length) return gone.length ? { kind: 'removeOwnerReferences', uids: gone.map((o) => o.ref.uid) } : { kind: 'none' };
  if (gone.length === 0) return { kind: 'none' };
  // An owner waiting for its dependents makes this one wait for its own first.
  if (hasDependents && owners.some((o) => o.state === 'waiting')) return { kind: 'delete', policy: 'Foreground' };
  if (node.finalizers.includes(ORPHAN)) return { kind: 'delete', policy: 'Orphan' };
  if (node.finalizers.includes(FOREGROUND)) return { kind: 'delete', policy: 'Foreground' };
  return { kind: 'delete', policy: 'Background' };
}

export type OwnerAction =
  | { kind: 'none' }
  /** Remove the reference to this owner from each dependent, then the `orphan` finalizer. */
  | { kind: 'orphan'; dependents: Node[] }
  /** The dependents are dealt with as dependents of a waiting owner; `foregroundDeletion` goes once none blocks. */
  | { kind: 'foreground'; blocked: boolean };

/** An owner being deleted with a garbage-collection finalizer. */
export function decideOwner(node: Node, dependents: readonly Node[]): OwnerAction {
  if (!node.deleting) return { kind: 'none' };
  if (node.finalizers.includes(ORPHAN)) return { kind: 'orphan', dependents: [...dependents] };
  if (node.finalizers.includes(FOREGROUND)) {
    const blocking = dependents.filter((d) => d.owners.some((o) => o.uid === node.id.uid && o.blockOwnerDeletion === true));
    return { kind: 'foreground', blocked: blocking.length > 0 };
  }
  return { kind: 'none' };
}
