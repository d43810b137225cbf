// What the generic store (generic-store.ts) works with: the write request, where it reads current
// state, the admission step, and the allocators of types that take from shared pools. In a module
// of their own so that the store's parts (deletion.ts, admission.ts, the allocators) and its
// callers name them without importing the store.

import type { AuditAnnotator } from '../../audit/event.js';
import type { Deadline } from '../../api/deadline.js';
import type { ApiObject, UserInfo } from '../../api/types.js';
import type { AdmissionOperation, AdmissionPhase } from '../../contracts/admission.js';
import type { Target } from '../types.js';

/** An object in its stored form with the revision of its last write. */
export interface StoredObject {
  readonly object: ApiObject;
  readonly revision: number;
}

/** Where the store reads current state (the gateway's watch cache; the storage service for services without one). */
export interface ObjectSource {
  /** The stored object; `fresh` reads as of the latest write (not a lagging copy). Waits no longer than `deadline` allows. */
  current(t: Target, namespace: string | undefined, name: string, fresh: boolean, deadline?: Deadline): Promise<StoredObject | undefined>;
  /** Waits (briefly, best effort) until the source has seen `revision`; past `deadline`, its 504. */
  caughtUp(revision: number, deadline?: Deadline): Promise<void>;
}

/** Who writes what, as the store needs to know it. */
export interface WriteRequest {
  target: Target;
  user: UserInfo;
  /** The namespace of a namespaced type's object; undefined for cluster-scoped types. */
  namespace: string | undefined;
  name: string;
  /** '' or undefined for the main resource. `scale` writes the whole object prepared as a main-resource update. */
  subresource?: string;
  dryRun: boolean;
  /** Accumulates `Warning` headers (admission, rules). */
  warnings: string[];
  /** False when the operation that leads here was admitted already (binding, eviction). */
  admit?: boolean;
  /** The field manager recorded in managedFields (`?fieldManager=`, else from the user agent). */
  manager: string;
  /** An Apply has merged the object and recorded ownership itself; anything else is an Update. */
  applied?: boolean;
  /** The request's audit record, when audited: admission's audit annotations are recorded there. */
  audit?: AuditAnnotator | null;
  /** A deletion's options, shown to admission webhooks as the request's DeleteOptions. */
  deleteOptions?: DeleteRequestOptions;
  /**
   * Set by a write that was authorized for another verb (an apply's patch, a PUT's update): when
   * it turns out to create the object, `create` must be allowed too (upstream's
   * createAuthorizerAttributes), asked before admission or storage see the object, dry run or
   * not. A POST leaves it unset: the authorization filter asked for create already.
   */
  authorizeCreate?: () => Promise<void>;
  /**
   * The request's deadline (`--request-timeout`, `?timeout=`): every storage and admission hop the
   * store makes for it, and every wait for the source to catch up, ends by then with its 504; none
   * is sent past it. Internal writers have none (each hop its own timeout).
   */
  deadline?: Deadline;
}

/** One admission phase of a write; `kind` overrides the target's for a subresource of another kind. */
export type Admitter = (
  req: WriteRequest,
  phase: AdmissionPhase,
  operation: AdmissionOperation,
  object: ApiObject | null,
  oldObject: ApiObject | null,
  kind?: { group: string; version: string; kind: string },
) => Promise<ApiObject | null>;

export interface DeleteRequestOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** What becomes of dependents (the garbage collector acts on the finalizer this leaves). */
  propagationPolicy?: 'Orphan' | 'Foreground' | 'Background';
  /** Deprecated spelling: true is Orphan, false Background. */
  orphanDependents?: boolean;
  /** Seconds a graceful object (a pod on a node) is given; 0 removes it at once. */
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  /** The object as last stored, or as it now stands while finalizers run. */
  object: ApiObject;
  /** Whether the object left storage (otherwise it is terminating). */
  removed: boolean;
}

/**
 * What a type takes from a pool the cluster shares (a Service's cluster IPs and node ports): taken
 * after validation and before validating admission, as upstream's BeginCreate/BeginUpdate do.
 */
export interface Allocator {
  /** Fills in and claims what `next` needs beyond what `old` (null on create) holds; 422 when it cannot. Dry runs only look. */
  claim(next: ApiObject, old: ApiObject | null, dryRun: boolean): Promise<Claim>;
  /** The object left storage: gives back all it held. */
  release(obj: ApiObject): Promise<void>;
}

/** Claims made for one write. */
export interface Claim {
  /** The write is stored: gives back what the old object held and the new one does not. */
  commit(): Promise<void>;
  /** The write did not happen: gives back what was claimed for it. */
  abort(): Promise<void>;
}
