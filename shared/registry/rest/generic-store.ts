// The generic store: the one write path of every type, after kube-apiserver's generic registry
// store. A create runs defaults → field management → mutating admission → prepare → validation →
// the type's write rules → validating admission → create in storage; an update runs the same with
// prepare before field management, and a compare-and-swap retried until it wins; a delete runs
// admission and the deletion state machine (deletion.ts: finalizers, deletionTimestamp). Requests,
// REST hooks and internal writers (RBAC bootstrap, system namespaces, controllers) all write here,
// so the rules hold whoever writes. Reads of current state come from an `ObjectSource` (the
// gateway's watch cache, or the storage service for services without one); writes go to the
// `Storage` interface (shared/contracts/storage.ts), write rules ask the other services through
// their ports. The store knows no transport.

import { alreadyExists, badRequest, conflict, CONFLICT_MODIFIED, invalid, methodNotSupported, notFound, requestTimedOut, StatusError, type FieldError } from '../../api/status.js';
import type { ApiObject } from '../../api/types.js';
import type { Deadline } from '../../api/deadline.js';
import { required } from '../../api/field-errors.js';
import { nowTimestamp } from '../../api/time.js';
import { AdmissionOperation, AdmissionPhase } from '../../contracts/admission.js';
import type { Storage } from '../../contracts/storage.js';
import { ownable, recordUpdate } from '../../fieldmanager/managed.js';
import { cloneJson } from '../../patch/json-value.js';
import type { Registry } from '../registry.js';
import type { ResourceType, ServicePorts, Target } from '../types.js';
import { hasStatusSubresource } from '../version-parts.js';
import { deleteOnce, type DeletionDeps } from './deletion.js';
import { managedInVersion } from './managed-versions.js';
import { prepareForCreate, prepareForStatusUpdate, prepareForSubresourceUpdate, prepareForUpdate, readyForRemoval, sameStoredValue, validateLifecycleUpdate } from './prepare.js';
import { RaceRetry } from './race-retry.js';
import type { Admitter, Allocator, Claim, DeleteRequestOptions, DeleteResult, ObjectSource, StoredObject, WriteRequest } from './store-types.js';
import { normalize, served, servedAsync, setNamespace, storageRef, storedAsync } from './stored-form.js';

const NO_CLAIM: Claim = { commit: async () => undefined, abort: async () => undefined };

export interface GenericStoreDeps {
  registry: Registry;
  source: ObjectSource;
  admit: Admitter;
  /** Where objects are written (the storage service). */
  storage: Storage;
  /** The other services, for the types' write rules (the RBAC escalation check). */
  services: ServicePorts;
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
  private readonly deletion: DeletionDeps;

  constructor(private readonly deps: GenericStoreDeps) {
    this.deletion = {
      storage: deps.storage,
      admit: (req, phase, op, obj, old) => this.admitPhase(req, phase, op, obj, old, req.name),
      released: (t, obj) => this.released(t, obj),
    };
  }

  /** Admission as the store runs it, for operations that are not plain writes (reviews, TokenRequest). */
  get admit(): Admitter {
    return this.deps.admit;
  }

  /** Whether the object exists (as of the latest write); waits no longer than `deadline` allows. */
  async exists(t: Target, namespace: string | undefined, name: string, deadline?: Deadline): Promise<boolean> {
    return (await this.deps.source.current(t, namespace, name, true, deadline)) !== undefined;
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
      prepareForCreate(t.type, candidate, { user: req.user, now: nowTimestamp(), names: this.deps.registry.names }, t.served.version);
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
          // Storage would refuse a name in use: a dry run says so too, as upstream's dry-run storage looks (the catch gives the claim back).
          if (await this.exists(t, req.namespace, named.name, req.deadline)) throw alreadyExists(t.gr, named.name);
          await claim.abort();
          return candidate;
        }
        const stored = t.convertIn ? await storedAsync(t, candidate) : t.toStored(candidate);
        const reply = await this.deps.storage.create(storageRef(t, req.namespace, named.name), stored, req.deadline);
        await claim.commit();
        return t.convertOut ? await servedAsync(t, reply.object) : served(t, reply.object);
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
  async update(req: WriteRequest, compute: (current: ApiObject) => ApiObject | Promise<ApiObject>, expected?: number): Promise<ApiObject> {
    const t = req.target;
    if (expected !== undefined) await this.deps.source.caughtUp(expected, req.deadline);
    const retry = new RaceRetry(this.deps.updateRetryMs);
    // A dry run writes nothing, so no compare-and-swap catches a stale read: it reads the latest state.
    let fresh = req.dryRun;
    for (;;) {
      const cur = await this.current(req, fresh);
      const currentObj = t.convertOut ? await servedAsync(t, cloneJson(cur.object)) : served(t, cloneJson(cur.object));
      if (expected !== undefined && expected !== cur.revision) throw conflict(t.gr, req.name, CONFLICT_MODIFIED);
      const next = await this.prepareUpdate(req, cur, currentObj, compute);
      const claim = req.subresource ? NO_CLAIM : await this.claim(t, next, currentObj, req.dryRun);
      normalize(t, next, true);
      try {
        const written = await this.writeUpdate(req, cur, currentObj, next, claim, fresh);
        if (written) return written;
        fresh = true;
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
    let fresh = req.dryRun;
    for (;;) {
      const result = await deleteOnce(this.deletion, req, await this.current(req, fresh), opts);
      if (result) return result;
      await retry.next(req.target.gr, req.name);
      fresh = true;
    }
  }

  /**
   * Deletes each of `victims` by name, as it now stands (upstream's DeleteCollection deletes the
   * listed names); one already gone is skipped. `deadline` (epoch ms, the request's timeoutSeconds)
   * stops it between deletions with upstream's request timeout.
   */
  async deleteCollection(req: Omit<WriteRequest, 'name' | 'namespace'>, victims: readonly StoredObject[], opts: DeleteRequestOptions = {}, deadline = Infinity): Promise<void> {
    for (const v of victims) {
      if (Date.now() >= deadline) throw requestTimedOut();
      const one: WriteRequest = { ...req, namespace: v.object.metadata.namespace, name: v.object.metadata.name ?? '' };
      try {
        await this.delete(one, opts);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
  }

  /**
   * An update's new object from `compute` over the current one: its preconditions (name, uid,
   * resourceVersion) checked, then the strategy of the main resource or the subresource, field
   * management, mutating admission, validation and the type's write rules.
   */
  private async prepareUpdate(req: WriteRequest, cur: StoredObject, currentObj: ApiObject, compute: (current: ApiObject) => ApiObject | Promise<ApiObject>): Promise<ApiObject> {
    const t = req.target;
    const sub = req.subresource ?? '';
    let next = await compute(currentObj);
    setNamespace(t, next, req.namespace);
    if (next.metadata.name !== req.name) throw badRequest(`the name of the object (${next.metadata.name ?? ''}) does not match the name on the URL (${req.name})`);
    // A uid or resourceVersion in the new object (PUT body or patch result) is a precondition.
    if (next.metadata.uid && next.metadata.uid !== currentObj.metadata.uid) {
      throw conflict(t.gr, req.name, `Precondition failed: UID in precondition: ${next.metadata.uid}, UID in object meta: ${currentObj.metadata.uid ?? ''}`);
    }
    const rvIn = next.metadata.resourceVersion;
    if (rvIn && rvIn !== String(cur.revision)) throw conflict(t.gr, req.name, CONFLICT_MODIFIED);
    normalize(t, next, false);
    const strategyCtx = { user: req.user, now: nowTimestamp(), names: this.deps.registry.names };
    if (sub === 'status') next = prepareForStatusUpdate(t.type, next, currentObj, strategyCtx);
    else if (sub && sub !== 'scale') {
      const prepared = prepareForSubresourceUpdate(t.type, sub, next, currentObj, strategyCtx);
      if (!prepared) throw methodNotSupported(t.gr, 'update');
      next = prepared;
      // A subresource may bring new fields too (pods/ephemeralcontainers adds containers).
      this.deps.dropDisabledFields?.(t.type, next, currentObj);
    } else {
      this.deps.registry.defaults(t.served, next);
      prepareForUpdate(t.type, next, currentObj, strategyCtx, t.served.version);
      this.deps.dropDisabledFields?.(t.type, next, currentObj);
    }
    next = await this.manageFieldsInVersion(req, next, currentObj);
    next = (await this.admitPhase(req, AdmissionPhase.Mutating, AdmissionOperation.Update, next, currentObj, req.name))!;
    normalize(t, next, false);
    this.validate(t, next, currentObj, sub === 'scale' ? undefined : sub || undefined);
    await this.guard(req, next);
    return next;
  }

  /**
   * Validating admission, then the compare-and-swap over the revision the update read: a write, or
   * the removal of an object whose last finalizer is gone. Undefined when there is nothing to
   * write but the state read may lag (the caller reads fresh state and tries again).
   */
  private async writeUpdate(req: WriteRequest, cur: StoredObject, currentObj: ApiObject, next: ApiObject, claim: Claim, fresh: boolean): Promise<ApiObject | undefined> {
    const t = req.target;
    const ref = storageRef(t, req.namespace, req.name);
    await this.admitPhase(req, AdmissionPhase.Validating, AdmissionOperation.Update, next, currentObj, req.name);
    next.metadata.resourceVersion = String(cur.revision);
    if (req.dryRun) {
      await claim.abort();
      return next;
    }
    if (readyForRemoval(t.type, next)) {
      // The last finalizer is gone: the object leaves storage (spec: deletion table).
      await claim.abort();
      await this.deps.storage.delete(ref, cur.revision, req.deadline);
      await this.released(t, currentObj);
      return next;
    }
    const stored = t.convertIn ? await storedAsync(t, next) : t.toStored(next);
    // Nothing to write means no new revision and no watch event (controllers rely on it to
    // settle). The source may lag a write, so only a no-op against fresh state is skipped.
    if (sameStoredValue(stored, cur.object)) {
      await claim.abort();
      return fresh ? currentObj : this.unchangedSince(req, cur, stored, currentObj);
    }
    delete stored.metadata.resourceVersion;
    const reply = await this.deps.storage.update(ref, stored, cur.revision, req.deadline);
    await claim.commit();
    return t.convertOut ? servedAsync(t, reply.object) : served(t, reply.object);
  }

  /**
   * A no-op against state the source may have read late: checked against fresh state, as
   * upstream's GuaranteedUpdate does, without running admission again. The object as it stands
   * when it is still the same; undefined when it changed meanwhile (the update starts over).
   */
  private async unchangedSince(req: WriteRequest, cur: StoredObject, stored: ApiObject, currentObj: ApiObject): Promise<ApiObject | undefined> {
    const now = await this.deps.source.current(req.target, req.namespace, req.name, true, req.deadline);
    if (!now) throw notFound(req.target.gr, req.name);
    if (now.revision === cur.revision) return currentObj;
    if (!sameStoredValue(stored, now.object)) return undefined;
    const t = req.target;
    return t.convertOut ? servedAsync(t, cloneJson(now.object)) : served(t, cloneJson(now.object));
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
    recordUpdate(current, next, this.deps.registry.fieldSchema(t.served), writer, ownable(sub, hasStatusSubresource(t.type, t.served.version)));
    return next;
  }

  /** Field management of an update, with managedFields entries of other versions read in the request's (fieldmanager/versions.ts). */
  private async manageFieldsInVersion(req: WriteRequest, next: ApiObject, current: ApiObject): Promise<ApiObject> {
    if (req.applied || req.subresource === 'scale') return next;
    const versions = managedInVersion(this.deps.registry, req.target, current);
    const [prev, incoming] = await Promise.all([versions.read(current), versions.read(next)]);
    return versions.write(this.manageFields(req, incoming, prev));
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
    const o = await this.deps.source.current(req.target, req.namespace, req.name, fresh, req.deadline);
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
    if (rule) await rule({ user: req.user, namespace: req.namespace ?? '', target: req.target }, obj, this.deps.services);
  }

  private admitPhase(req: WriteRequest, phase: AdmissionPhase, op: AdmissionOperation, obj: ApiObject | null, old: ApiObject | null, name: string): Promise<ApiObject | null> {
    if (req.admit === false) return Promise.resolve(obj);
    return this.deps.admit(req.name === name ? req : { ...req, name }, phase, op, obj, old);
  }
}
