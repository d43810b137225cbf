// The generic store: the one write path of every type, after kube-apiserver's generic registry
// store. A create runs defaults → field management → mutating admission → prepare → validation →
// the type's write rules → validating admission → create in the storage service; an update runs
// the same with prepare before field management, and a compare-and-swap retried until it wins; a
// delete runs admission and the deletion state machine (finalizers, deletionTimestamp). Requests,
// REST hooks and internal writers (RBAC bootstrap, system namespaces, controllers) all write here,
// so the rules hold whoever writes. Reads of current state come from an `ObjectSource` (the
// gateway's watch cache, or the storage service for services without one).

import type { AuditAnnotator } from '../../audit/event.js';
import type { ApiObject, ObjectRef, UserInfo } from '../../api/types.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  CONFLICT_MODIFIED,
  invalid,
  methodNotSupported,
  notFound,
  qualifiedResource,
  StatusError,
  timeout,
  type FieldError,
  type GroupResource,
} from '../../api/status.js';
import { required } from '../../api/field-errors.js';
import { ownable, recordUpdate } from '../../fieldmanager/managed.js';
import { nowTimestamp } from '../../api/time.js';
import { normalizeObject } from '../../proto/envelope.js';
import { Subjects } from '../../bus/subjects.js';
import { AdmissionOperation, AdmissionPhase, type StorageDeleteReply, type StorageWriteReply } from '../../bus/messages.js';
import type { Registry } from '../registry.js';
import type { Target } from '../types.js';
import type { ResourceType } from '../types.js';
import type { BusRequest } from '../types.js';
import {
  DeleteOutcome,
  markTerminating,
  gracefulDeletion,
  planDelete,
  prepareForCreate,
  prepareForStatusUpdate,
  prepareForSubresourceUpdate,
  prepareForUpdate,
  readyForRemoval,
  sameStoredValue,
  validateLifecycleUpdate,
} from './prepare.js';
import { cloneJson } from '../../patch/json-value.js';

/** An object in its stored form with the revision of its last write. */
export interface StoredObject {
  readonly object: ApiObject;
  readonly revision: number;
}

/** Where the store reads current state. */
export interface ObjectSource {
  /** The stored object; `fresh` reads as of the latest write (not a lagging copy). */
  current(t: Target, namespace: string | undefined, name: string, fresh: boolean): Promise<StoredObject | undefined>;
  /** Waits (briefly, best effort) until the source has seen `revision`. */
  caughtUp(revision: number): Promise<void>;
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

const NO_CLAIM: Claim = { commit: async () => undefined, abort: async () => undefined };

export interface GenericStoreDeps {
  registry: Registry;
  source: ObjectSource;
  admit: Admitter;
  /** Requests to the storage service and, for write rules, to others. */
  bus: BusRequest;
  /** How long a write without a resourceVersion keeps retrying lost races before 504. */
  updateRetryMs: number;
  /** The allocators of the types that take from shared pools. */
  allocators?: ReadonlyMap<ResourceType, Allocator>;
  /**
   * Takes from a create (`old` undefined) or update what disabled feature gates turn off, right
   * after the type's prepare hook (upstream's strategies call dropDisabledFields there).
   */
  dropDisabledFields?(type: ResourceType, obj: ApiObject, old: ApiObject | undefined): void;
}

export class GenericStore {
  constructor(private readonly deps: GenericStoreDeps) {}

  /** Admission as the store runs it, for operations that are not plain writes (reviews, TokenRequest). */
  get admit(): Admitter {
    return this.deps.admit;
  }

  /** Whether the object exists (as of the latest write). */
  async exists(t: Target, namespace: string | undefined, name: string): Promise<boolean> {
    return (await this.deps.source.current(t, namespace, name, true)) !== undefined;
  }

  /**
   * Creates `obj` (served form, namespace already checked); returns what was stored, or would be
   * under dry-run. Every write that creates comes through here, a create-on-update included, so
   * `authorizeCreate` is asked in one place.
   */
  async create(req: WriteRequest, obj: ApiObject): Promise<ApiObject> {
    const t = req.target;
    if (req.subresource) throw methodNotSupported(t.gr, 'create');
    await req.authorizeCreate?.();
    setNamespace(t, obj, req.namespace);
    if (!obj.metadata.name && !obj.metadata.generateName) {
      throw invalid(t.kind, t.gr.group, '', [required('metadata.name', 'name or generateName is required')]);
    }
    normalize(t, obj, false);
    this.deps.registry.defaults(t.served, obj);
    const managed = this.manageFields(req, obj, null);
    const next = (await this.admitPhase(req, AdmissionPhase.Mutating, AdmissionOperation.Create, managed, null, obj.metadata.name ?? ''))!;
    const generated = !next.metadata.name && Boolean(next.metadata.generateName);
    for (let attempt = 0; ; attempt++) {
      // Only a generated name is ever retried, and each retry must start from `next` again.
      const candidate = generated ? cloneJson(next) : next;
      prepareForCreate(t.type, candidate, { user: req.user, now: nowTimestamp() });
      this.deps.dropDisabledFields?.(t.type, candidate, undefined);
      normalize(t, candidate, false);
      const named = { ...req, name: candidate.metadata.name! };
      this.validate(t, candidate);
      await this.guard(named, candidate);
      const claim = await this.claim(t, candidate, null, req.dryRun);
      normalize(t, candidate, true);
      try {
        await this.admitPhase(named, AdmissionPhase.Validating, AdmissionOperation.Create, candidate, null, named.name);
        if (req.dryRun) {
          await claim.abort();
          return candidate;
        }
        const reply = await this.deps.bus<StorageWriteReply>(Subjects.storageCreate, { ref: refOf(t, req.namespace, named.name), object: t.toStored(candidate) });
        await claim.commit();
        return served(t, reply.object);
      } catch (err) {
        await claim.abort();
        const exists = err instanceof StatusError && err.status.reason === 'AlreadyExists';
        // A generated name that happens to exist is retried with a new suffix.
        if (exists && generated && attempt < 4) continue;
        if (exists) throw alreadyExists(t.gr, named.name);
        throw err;
      }
    }
  }

  /**
   * Read-modify-write with compare-and-swap. `compute` gets the current object (served form, a
   * copy) and returns the new one, which it owns; it runs again on every retry. With `expected`
   * (the caller's resourceVersion) a lost race is a 409; without, it is retried against fresh
   * state until `updateRetryMs` runs out (504), as upstream's GuaranteedUpdate does.
   */
  async update(req: WriteRequest, compute: (current: ApiObject) => ApiObject, expected?: number): Promise<ApiObject> {
    const t = req.target;
    const sub = req.subresource ?? '';
    if (expected !== undefined) await this.deps.source.caughtUp(expected);
    const retry = new RaceRetry(this.deps.updateRetryMs);
    let fresh = false;
    for (;;) {
      const cur = await this.current(req, fresh);
      const currentObj = served(t, cloneJson(cur.object));
      if (expected !== undefined && expected !== cur.revision) throw conflict(t.gr, req.name, CONFLICT_MODIFIED);
      let next = compute(currentObj);
      setNamespace(t, next, req.namespace);
      if (next.metadata.name !== req.name) throw badRequest(`the name of the object (${next.metadata.name ?? ''}) does not match the name on the URL (${req.name})`);
      // A uid or resourceVersion in the new object (PUT body or patch result) is a precondition.
      if (next.metadata.uid && next.metadata.uid !== currentObj.metadata.uid) {
        throw conflict(t.gr, req.name, `Precondition failed: UID in precondition: ${next.metadata.uid}, UID in object meta: ${currentObj.metadata.uid ?? ''}`);
      }
      const rvIn = next.metadata.resourceVersion;
      if (rvIn && rvIn !== String(cur.revision)) throw conflict(t.gr, req.name, CONFLICT_MODIFIED);
      normalize(t, next, false);
      const strategyCtx = { user: req.user, now: nowTimestamp() };
      if (sub === 'status') next = prepareForStatusUpdate(t.type, next, currentObj, strategyCtx);
      else if (sub && sub !== 'scale') {
        const prepared = prepareForSubresourceUpdate(t.type, sub, next, currentObj, strategyCtx);
        if (!prepared) throw methodNotSupported(t.gr, 'update');
        next = prepared;
      } else {
        this.deps.registry.defaults(t.served, next);
        prepareForUpdate(t.type, next, currentObj, strategyCtx);
        this.deps.dropDisabledFields?.(t.type, next, currentObj);
      }
      next = this.manageFields(req, next, currentObj);
      next = (await this.admitPhase(req, AdmissionPhase.Mutating, AdmissionOperation.Update, next, currentObj, req.name))!;
      normalize(t, next, false);
      this.validate(t, next, currentObj, sub === 'scale' ? undefined : sub || undefined);
      await this.guard(req, next);
      const claim = sub ? NO_CLAIM : await this.claim(t, next, currentObj, req.dryRun);
      normalize(t, next, true);
      const ref = refOf(t, req.namespace, req.name);
      try {
        await this.admitPhase(req, AdmissionPhase.Validating, AdmissionOperation.Update, next, currentObj, req.name);
        next.metadata.resourceVersion = String(cur.revision);
        if (req.dryRun) {
          await claim.abort();
          return next;
        }
        if (readyForRemoval(t.type, next)) {
          // The last finalizer is gone: the object leaves storage (spec: deletion table).
          await claim.abort();
          await this.deps.bus<StorageDeleteReply>(Subjects.storageDelete, { ref, expectedRevision: cur.revision });
          await this.released(t, currentObj);
          return next;
        }
        const stored = t.toStored(next);
        // Nothing to write means no new revision and no watch event (controllers rely on it to
        // settle). The source may lag a write, so only a no-op against fresh state is skipped.
        if (sameStoredValue(stored, cur.object)) {
          await claim.abort();
          if (!fresh) {
            fresh = true;
            continue;
          }
          return currentObj;
        }
        delete stored.metadata.resourceVersion;
        const reply = await this.deps.bus<StorageWriteReply>(Subjects.storageUpdate, { ref, object: stored, expectedRevision: cur.revision });
        await claim.commit();
        return served(t, reply.object);
      } catch (err) {
        await claim.abort();
        const lostRace = err instanceof StatusError && err.status.reason === 'Conflict';
        // Only a caller-given resourceVersion makes a lost race the caller's problem.
        if (lostRace && expected === undefined) {
          await retry.next(t.gr, req.name);
          fresh = true;
          continue;
        }
        if (lostRace) throw conflict(t.gr, req.name, CONFLICT_MODIFIED);
        throw err;
      }
    }
  }

  /** Deletes by the deletion table; a lost race is retried unless a resourceVersion precondition was given. */
  async delete(req: WriteRequest, opts: DeleteRequestOptions = {}): Promise<DeleteResult> {
    if (req.subresource) throw methodNotSupported(req.target.gr, 'delete');
    const retry = new RaceRetry(this.deps.updateRetryMs);
    let fresh = false;
    for (;;) {
      const result = await this.deleteOne(req, await this.current(req, fresh), opts);
      if (result) return result;
      await retry.next(req.target.gr, req.name);
      fresh = true;
    }
  }

  /** Deletes each of `victims`; one that changed meanwhile or is gone is skipped, as upstream does. */
  async deleteCollection(req: Omit<WriteRequest, 'name' | 'namespace'>, victims: readonly StoredObject[], opts: DeleteRequestOptions = {}): Promise<void> {
    for (const v of victims) {
      const one: WriteRequest = { ...req, namespace: v.object.metadata.namespace, name: v.object.metadata.name ?? '' };
      try {
        await this.deleteOne(one, v, opts);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
  }

  /** One deletion attempt against `cur`; null when it lost a race it may retry. */
  private async deleteOne(req: WriteRequest, cur: StoredObject, opts: DeleteRequestOptions): Promise<DeleteResult | null> {
    const t = req.target;
    const name = req.name;
    const obj = served(t, cloneJson(cur.object));
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(t.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== String(cur.revision)) {
      throw conflict(t.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cur.revision}`);
    }
    const admitted = { ...req, deleteOptions: opts };
    await this.admitPhase(admitted, AdmissionPhase.Mutating, AdmissionOperation.Delete, null, obj, name);
    await this.admitPhase(admitted, AdmissionPhase.Validating, AdmissionOperation.Delete, null, obj, name);
    const ref = refOf(t, req.namespace, name);
    const policy = propagationPolicy(t, opts);
    const gc = withGarbageCollectionFinalizer(obj, policy);
    try {
      const graceful = gracefulDeletion(t.type, gc, opts.gracePeriodSeconds, Date.now());
      if (graceful) {
        if (!graceful.next || req.dryRun) return { object: graceful.next ?? gc, removed: false };
        const stored = t.toStored(graceful.next);
        delete stored.metadata.resourceVersion;
        const reply = await this.deps.bus<StorageWriteReply>(Subjects.storageUpdate, { ref, object: stored, expectedRevision: cur.revision });
        return { object: served(t, reply.object), removed: false };
      }
      switch (planDelete(t.type, gc)) {
        case DeleteOutcome.AlreadyTerminating: {
          // Deleting again with another policy switches the finalizer the garbage collector acts on.
          if (sameStrings(gc.metadata.finalizers, obj.metadata.finalizers) || req.dryRun) return { object: gc, removed: false };
          const stored = t.toStored(gc);
          delete stored.metadata.resourceVersion;
          const reply = await this.deps.bus<StorageWriteReply>(Subjects.storageUpdate, { ref, object: stored, expectedRevision: cur.revision });
          return { object: served(t, reply.object), removed: false };
        }
        case DeleteOutcome.MarkTerminating: {
          const next = markTerminating(t.type, gc, nowTimestamp());
          if (req.dryRun) return { object: next, removed: false };
          const stored = t.toStored(next);
          delete stored.metadata.resourceVersion;
          const reply = await this.deps.bus<StorageWriteReply>(Subjects.storageUpdate, { ref, object: stored, expectedRevision: cur.revision });
          return { object: served(t, reply.object), removed: false };
        }
        default:
          if (!req.dryRun) {
            await this.deps.bus<StorageDeleteReply>(Subjects.storageDelete, { ref, expectedRevision: cur.revision });
            await this.released(t, obj);
          }
          return { object: obj, removed: true };
      }
    } catch (err) {
      if (err instanceof StatusError && err.status.reason === 'Conflict' && !pre?.resourceVersion) return null;
      throw err;
    }
  }

  /**
   * Field management: after the strategy prepared the new object and before mutating admission,
   * the write's changes are recorded as the manager's (an Apply recorded them already). Writes
   * through `/scale` take another type and are not tracked (spec rule 9).
   */
  private manageFields(req: WriteRequest, next: ApiObject, current: ApiObject | null): ApiObject {
    const sub = req.subresource ?? '';
    if (req.applied || sub === 'scale') return next;
    const t = req.target;
    const writer = { manager: req.manager, subresource: sub, apiVersion: t.apiVersion, now: nowTimestamp() };
    recordUpdate(current, next, this.deps.registry.fieldSchema(t.served), writer, ownable(sub, !!t.type.subresources?.status));
    return next;
  }

  private claim(t: Target, next: ApiObject, old: ApiObject | null, dryRun: boolean): Promise<Claim> {
    const allocator = this.deps.allocators?.get(t.type);
    return allocator ? allocator.claim(next, old, dryRun) : Promise.resolve(NO_CLAIM);
  }

  /** Gives back what an object that left storage held; best effort (a claim left behind is taken over once stale). */
  private async released(t: Target, obj: ApiObject): Promise<void> {
    await this.deps.allocators
      ?.get(t.type)
      ?.release(obj)
      .catch(() => undefined);
  }

  private async current(req: WriteRequest, fresh: boolean): Promise<StoredObject> {
    const o = await this.deps.source.current(req.target, req.namespace, req.name, fresh);
    if (!o) throw notFound(req.target.gr, req.name);
    return o;
  }

  private validate(t: Target, obj: ApiObject, old?: ApiObject, subresource?: string): void {
    const errs: FieldError[] = this.deps.registry.validate(t.served, obj, old, subresource);
    if (old) errs.push(...validateLifecycleUpdate(obj, old));
    if (errs.length) throw invalid(t.kind, t.gr.group, obj.metadata.name ?? '', errs);
  }

  /** The type's own write rules (RBAC escalation), after validation and before validating admission. */
  private async guard(req: WriteRequest, obj: ApiObject): Promise<void> {
    const rule = req.target.type.rest?.guardWrite;
    if (rule) await rule({ user: req.user, namespace: req.namespace ?? '', target: req.target }, obj, this.deps.bus);
  }

  private admitPhase(req: WriteRequest, phase: AdmissionPhase, op: AdmissionOperation, obj: ApiObject | null, old: ApiObject | null, name: string): Promise<ApiObject | null> {
    if (req.admit === false) return Promise.resolve(obj);
    return this.deps.admit(req.name === name ? req : { ...req, name }, phase, op, obj, old);
  }
}

/**
 * Paces the retries of a write that lost a compare-and-swap race: a short random pause that grows
 * with the attempts (the losers of one race would otherwise all collide again), and a deadline
 * past which the write gives up with 504 rather than turning contention into a 409.
 */
class RaceRetry {
  private attempts = 0;
  private readonly deadline: number;

  constructor(budgetMs: number) {
    this.deadline = Date.now() + budgetMs;
  }

  async next(gr: GroupResource, name: string): Promise<void> {
    const pause = Math.random() * Math.min(50, 2 ** this.attempts++);
    if (Date.now() + pause >= this.deadline) {
      throw timeout(`Timeout: the update of ${qualifiedResource(gr)} "${name}" kept losing to concurrent writers; please retry`, 1);
    }
    await new Promise((r) => setTimeout(r, pause));
  }
}

/** A namespaced object takes the request's namespace; one that names another is refused. */
export function setNamespace(t: Target, obj: ApiObject, namespace: string | undefined): void {
  if (!t.namespaced) return;
  const ns = namespace ?? '';
  if (obj.metadata.namespace && obj.metadata.namespace !== ns) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  obj.metadata.namespace = ns;
}

function refOf(t: Target, namespace: string | undefined, name: string): ObjectRef {
  const r: ObjectRef = { group: t.storage.group, resource: t.storage.resource, name };
  if (namespace && t.namespaced) r.namespace = namespace;
  return r;
}

/**
 * The object as upstream's decoding would leave it: empty `omitempty` maps and zero scalars gone
 * on the way in (before defaults and field management) and after mutating admission and the
 * strategy; once validated, what Go writes for absent values (`{}` structs, zero scalars) filled
 * in, so a value a client never sent cannot fail validation or change its error message.
 */
function normalize(t: Target, o: ApiObject, fill: boolean): void {
  normalizeObject(t.apiVersion, t.kind, o as unknown as Record<string, unknown>, fill);
}

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** The policy a deletion asked for, else the type's default for the served version (upstream's DefaultGarbageCollectionPolicy). */
function propagationPolicy(t: Target, opts: DeleteRequestOptions): 'Orphan' | 'Foreground' | 'Background' {
  if (opts.propagationPolicy) return opts.propagationPolicy;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents ? 'Orphan' : 'Background';
  return t.type.orphanDependentsByDefault?.includes(t.served.version.name) ? 'Orphan' : 'Background';
}

/**
 * The object with the finalizer of its policy (`orphan` or `foregroundDeletion`) and without the
 * other one: the garbage collector orphans or deletes the dependents, then removes it.
 */
function withGarbageCollectionFinalizer(obj: ApiObject, policy: 'Orphan' | 'Foreground' | 'Background'): ApiObject {
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

function served(t: Target, o: ApiObject): ApiObject {
  return t.fromStored ? t.fromStored(o) : o;
}
