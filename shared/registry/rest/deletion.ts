// The generic store's deletion state machine (spec: the deletion table). One attempt checks the
// preconditions, runs both admission phases, adds the garbage collector's finalizer of the asked
// propagation policy, and then either gives a graceful object (a pod on a node) its grace period,
// switches the finalizer of an object already terminating, marks the object terminating while
// finalizers run, or removes it from storage. Every write is a compare-and-swap on the revision
// the attempt started from; a lost race is the caller's to retry (generic-store.ts).

import { conflict, StatusError, type GroupResource } from '../../api/status.js';
import type { ApiObject } from '../../api/types.js';
import { nowTimestamp } from '../../api/time.js';
import { AdmissionOperation, AdmissionPhase } from '../../contracts/admission.js';
import type { Storage } from '../../contracts/storage.js';
import { cloneJson } from '../../patch/json-value.js';
import type { Target } from '../types.js';
import { DeleteOutcome, gracefulDeletion, markTerminating, planDelete } from './prepare.js';
import type { DeleteRequestOptions, DeleteResult, StoredObject, WriteRequest } from './store-types.js';
import { served, servedAsync, storageRef, storedAsync } from './stored-form.js';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

type PropagationPolicy = 'Orphan' | 'Foreground' | 'Background';

/** What a deletion attempt needs of the store. */
export interface DeletionDeps {
  storage: Storage;
  /** One admission phase of the deletion, as the store runs it. */
  admit(req: WriteRequest, phase: AdmissionPhase, operation: AdmissionOperation, object: ApiObject | null, oldObject: ApiObject | null): Promise<ApiObject | null>;
  /** Gives back what an object that left storage held (its allocator's claims). */
  released(t: Target, obj: ApiObject): Promise<void>;
}

/** One deletion attempt against `cur`; null when it lost a race it may retry (never with a resourceVersion precondition). */
export async function deleteOnce(deps: DeletionDeps, req: WriteRequest, cur: StoredObject, opts: DeleteRequestOptions): Promise<DeleteResult | null> {
  const t = req.target;
  const obj = t.convertOut ? await servedAsync(t, cloneJson(cur.object)) : served(t, cloneJson(cur.object));
  checkPreconditions(t.gr, req.name, obj, cur.revision, opts.preconditions);
  const admitted = { ...req, deleteOptions: opts };
  await deps.admit(admitted, AdmissionPhase.Mutating, AdmissionOperation.Delete, null, obj);
  await deps.admit(admitted, AdmissionPhase.Validating, AdmissionOperation.Delete, null, obj);
  const gc = withGarbageCollectionFinalizer(obj, propagationPolicy(t, opts));
  try {
    return await carryOut(deps, req, cur.revision, obj, gc, opts.gracePeriodSeconds);
  } catch (err) {
    if (err instanceof StatusError && err.status.reason === 'Conflict' && !opts.preconditions?.resourceVersion) return null;
    throw err;
  }
}

function checkPreconditions(gr: GroupResource, name: string, obj: ApiObject, revision: number, pre: DeleteRequestOptions['preconditions']): void {
  if (pre?.uid && pre.uid !== obj.metadata.uid) {
    throw conflict(gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== String(revision)) {
    throw conflict(gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${revision}`);
  }
}

/** The step of the deletion table that applies to `gc` (the object with its finalizer), written over `revision`. */
async function carryOut(deps: DeletionDeps, req: WriteRequest, revision: number, obj: ApiObject, gc: ApiObject, gracePeriodSeconds: number | undefined): Promise<DeleteResult> {
  const t = req.target;
  const ref = storageRef(t, req.namespace, req.name);
  const keep = async (next: ApiObject): Promise<DeleteResult> => {
    const stored = t.convertIn ? await storedAsync(t, next) : t.toStored(next);
    delete stored.metadata.resourceVersion;
    const reply = await deps.storage.update(ref, stored, revision, req.deadline);
    return { object: t.convertOut ? await servedAsync(t, reply.object) : served(t, reply.object), removed: false };
  };
  const graceful = gracefulDeletion(t.type, gc, gracePeriodSeconds, Date.now());
  if (graceful) {
    if (!graceful.next || req.dryRun) return { object: graceful.next ?? gc, removed: false };
    return keep(graceful.next);
  }
  switch (planDelete(t.type, gc)) {
    case DeleteOutcome.AlreadyTerminating:
      // Deleting again with another policy switches the finalizer the garbage collector acts on.
      if (sameStrings(gc.metadata.finalizers, obj.metadata.finalizers) || req.dryRun) return { object: gc, removed: false };
      return keep(gc);
    case DeleteOutcome.MarkTerminating: {
      const next = markTerminating(t.type, gc, nowTimestamp());
      if (req.dryRun) return { object: next, removed: false };
      return keep(next);
    }
    default:
      if (!req.dryRun) {
        await deps.storage.delete(ref, revision, req.deadline);
        await deps.released(t, obj);
      }
      return { object: obj, removed: true };
  }
}

/** The policy a deletion asked for, else the type's default for the served version (upstream's DefaultGarbageCollectionPolicy). */
function propagationPolicy(t: Target, opts: DeleteRequestOptions): PropagationPolicy {
  if (opts.propagationPolicy) return opts.propagationPolicy;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents ? 'Orphan' : 'Background';
  return t.type.orphanDependentsByDefault?.includes(t.served.version.name) ? 'Orphan' : 'Background';
}

/**
 * The object with the finalizer of its policy (`orphan` or `foregroundDeletion`) and without the
 * other one: the garbage collector orphans or deletes the dependents, then removes it.
 */
function withGarbageCollectionFinalizer(obj: ApiObject, policy: PropagationPolicy): ApiObject {
  const current = obj.metadata.finalizers ?? [];
  const want = policy === 'Orphan' ? ORPHAN_FINALIZER : policy === 'Foreground' ? FOREGROUND_FINALIZER : undefined;
  // A Background deletion of an object already waiting leaves its finalizers as they are.
  if (!want) return obj;
  const other = want === ORPHAN_FINALIZER ? FOREGROUND_FINALIZER : ORPHAN_FINALIZER;
  const finalizers = [...current.filter((f) => f !== other && f !== want), want];
  return sameStrings(finalizers, current) ? obj : { ...obj, metadata: { ...obj.metadata, finalizers } };
}

function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}
