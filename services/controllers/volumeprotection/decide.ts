// What the pvc-protection and pv-protection controllers decide, from objects alone (upstream's
// podUsesPVC, enqueuePVCs and the pv controller's isBeingUsed). Pure: stored objects are untyped
// JSON, so anything malformed reads as absent.

import type { ApiObject } from '../../../shared/api/types.js';

type Json = Record<string, unknown>;

const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(rec).filter((x): x is Json => x !== undefined) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Whether the object is deleted and waits for this finalizer (upstream's IsDeletionCandidate). */
export function awaitsFinalizer(o: ApiObject, finalizer: string): boolean {
  return Boolean(o.metadata.deletionTimestamp) && (o.metadata.finalizers ?? []).includes(finalizer);
}

/** Whether the object lacks the finalizer and is not being deleted (upstream's NeedToAddFinalizer). */
export function lacksFinalizer(o: ApiObject, finalizer: string): boolean {
  return !o.metadata.deletionTimestamp && !(o.metadata.finalizers ?? []).includes(finalizer);
}

/** A claim a pod's volume names: `persistentVolumeClaim.claimName`, or `<pod>-<volume>` for a generic ephemeral volume. */
export interface ClaimUse {
  name: string;
  ephemeral: boolean;
}

export function claimsOf(pod: ApiObject): ClaimUse[] {
  const out: ClaimUse[] = [];
  const podName = pod.metadata.name ?? '';
  for (const v of list(rec(pod.spec)?.volumes)) {
    const claimName = str(rec(v.persistentVolumeClaim)?.claimName);
    if (claimName) out.push({ name: claimName, ephemeral: false });
    else if (rec(v.ephemeral) && str(v.name) && podName) out.push({ name: `${podName}-${str(v.name)}`, ephemeral: true });
  }
  return out;
}

const scheduled = (pod: ApiObject) => str(rec(pod.spec)?.nodeName) !== '';
const phaseOf = (o: ApiObject) => str(rec(o.status)?.phase);

/** A pod that finished: its containers will not run again and hold no volume. */
export function podFinished(pod: ApiObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Done with or force-deleted (deletion with a zero grace period): upstream lets such a pod's
 * ephemeral claim go, which breaks the cycle of a pod finalizer waiting for its own claim.
 */
function podShutDown(pod: ApiObject): boolean {
  return Boolean(pod.metadata.deletionTimestamp) && pod.metadata.deletionGracePeriodSeconds === 0;
}

/** Whether the claim was made for this pod's ephemeral volume: the pod is its controller. */
function claimIsForPod(claim: ApiObject, pod: ApiObject): boolean {
  return (claim.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === pod.metadata.uid);
}

/**
 * Whether `pod` keeps `claim` from being deleted. Only a scheduled pod counts, as upstream's: the
 * scheduler never places and the node agent never starts a pod on a claim being deleted. A
 * finished pod does not count either; an ephemeral volume's claim is the pod's only if the pod
 * controls it, and is let go once the pod is shut down.
 */
export function podUsesClaim(pod: ApiObject, claim: ApiObject): boolean {
  if (pod.metadata.namespace !== claim.metadata.namespace || !scheduled(pod) || podFinished(pod)) return false;
  return claimsOf(pod).some((u) => u.name === claim.metadata.name && (!u.ephemeral || (!podShutDown(pod) && claimIsForPod(claim, pod))));
}

/** Whether any of the pods keeps the claim. */
export function claimInUse(claim: ApiObject, pods: Iterable<ApiObject>): boolean {
  for (const p of pods) if (podUsesClaim(p, claim)) return true;
  return false;
}

/**
 * The claims (by name) a pod event may free, to be looked at again (upstream's enqueuePVCs): those
 * of a deleted pod, and of one that is unscheduled, finished or being deleted; a running pod frees
 * nothing.
 */
export function claimsToRecheck(pod: ApiObject, deleted: boolean): string[] {
  if (!deleted && scheduled(pod) && !podFinished(pod) && !pod.metadata.deletionTimestamp) return [];
  return [...new Set(claimsOf(pod).map((u) => u.name))];
}

/** Whether a volume is in use: bound to a claim (status.phase Bound, which the binder sets). */
export function volumeInUse(pv: ApiObject): boolean {
  return phaseOf(pv) === 'Bound';
}
