// Per-verb handlers for every registered resource type, with no type-specific code: reads come
// from the watch cache, writes go through admission and the storage service.

import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import type { ServerResponse } from 'node:http';
import type { ApiObject, UserInfo } from '../../shared/api/types.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  CONFLICT_MODIFIED,
  invalid,
  methodNotSupported,
  notFound,
  qualifiedResource,
  resourceExpired,
  StatusError,
  successStatus,
  timeout,
  tooManyRequests,
  type FieldError,
  type GroupResource,
  type Status,
} from '../../shared/api/status.js';
import type { RequestInfo } from '../../shared/api/request-info.js';
import { parseLabelSelector } from '../../shared/api/labels.js';
import { escapeFieldValue, parseFieldSelector } from '../../shared/api/fields.js';
import { parseDeleteOptions, parseListOptions, parseWriteOptions, type WriteOptions } from '../../shared/api/query.js';
import { busRequest } from '../../shared/bus/client.js';
import { Subjects } from '../../shared/bus/subjects.js';
import {
  AdmissionOperation,
  AdmissionPhase,
  type AdmissionReply,
  type AdmissionRequest,
  type ObjectRef,
  type StorageDeleteReply,
  type StorageWriteReply,
} from '../../shared/bus/messages.js';
import type { Registry } from '../../shared/registry/registry.js';
import { applyPatch } from '../../shared/patch/index.js';
import { objectJson, resourceKey, WatchCache, type CachedObject } from '../../shared/store/watch-cache.js';
import { responseSink, WatchBudget } from './watch-sink.js';
import { RevisionBarrier } from '../../shared/store/kv-feed.js';
import { planGet, planList, planWatch, ReadMode, type ReadPlan } from '../../shared/store/read-plan.js';
import { encodeContinue } from '../../shared/store/continue-token.js';
import { decodeBody, type DecodedValue } from '../../shared/api/decode.js';
import { fromScale, toScale } from './scale.js';
import { decodeDeleteOptions, decodeObject, decodePatchBody, mediaTypeOf, objectFromValue, type DecodedBody } from './body.js';
import {
  DeleteOutcome,
  markTerminating,
  nowTimestamp,
  planDelete,
  prepareForCreate,
  prepareForStatusUpdate,
  prepareForSubresourceUpdate,
  prepareForUpdate,
  readyForRemoval,
  sameStoredValue,
  validateLifecycleUpdate,
} from './object-prep.js';
import { HIJACKED, json, rawJson, type Reply } from './reply.js';
import type { Target } from './target.js';
import type { AdmissionInterestCache } from './service-interest.js';

export interface HandlerOptions {
  busTimeoutMs: number;
  /** How long a read waits for a requested (future) resourceVersion before 504. */
  resourceVersionWaitMs: number;
  /** Upper bound of a watch without timeoutSeconds. */
  maxWatchSeconds: number;
  /** A watcher whose unsent bytes exceed this is closed. */
  watchBufferBytes: number;
  /** Unsent bytes of all watches together; once spent, new watches get 429 and lagging watchers are closed. */
  maxWatchBufferedBytes: number;
  /**
   * How long a write without a resourceVersion keeps retrying compare-and-swap races it lost
   * (upstream's GuaranteedUpdate retries until it wins); past it the answer is 504, never 409.
   */
  updateRetryMs: number;
}

export const defaultHandlerOptions: HandlerOptions = {
  busTimeoutMs: 5_000,
  resourceVersionWaitMs: 3_000,
  maxWatchSeconds: 1800,
  watchBufferBytes: 4 * 1024 * 1024,
  maxWatchBufferedBytes: 256 * 1024 * 1024,
  updateRetryMs: 10_000,
};

export interface RequestContext {
  info: RequestInfo;
  target: Target;
  user: UserInfo;
  query: URLSearchParams;
  body?: Buffer;
  contentType?: string;
  /** The body decoded ahead of time off the event loop (large YAML); decoded inline otherwise. */
  decoded?: DecodedValue;
  /** Accumulates `Warning` headers (299 "..."). */
  warnings: string[];
  /** The raw response, for streaming watches, and the call that takes it over from fastify. */
  res: ServerResponse;
  hijack(): void;
  /** Called when the client goes away. */
  onClose(fn: () => void): void;
}

/** An extra check of a write after validation, before validating admission (RBAC escalation). */
export type WriteGuard = (ctx: RequestContext, object: ApiObject) => Promise<void>;

export class ResourceHandlers {
  readonly barrier: RevisionBarrier;
  /** Set by the gateway for the types whose writes need more than authorization. */
  writeGuard: WriteGuard | null = null;
  private watchBudget?: WatchBudget;

  constructor(
    private readonly nc: NatsConnection,
    private readonly registry: Registry,
    private readonly cache: WatchCache,
    latestRevision: () => Promise<number>,
    private readonly admission: AdmissionInterestCache,
    private readonly opts: HandlerOptions = defaultHandlerOptions,
  ) {
    this.barrier = new RevisionBarrier(latestRevision);
  }

  // ---- reads ----------------------------------------------------------------------------

  /** Makes the cache satisfy a read plan; returns the revision the read observes. */
  private async settle(plan: ReadPlan): Promise<void> {
    switch (plan.mode) {
      case ReadMode.Consistent:
        await this.cache.waitFor(await this.barrier.latest(), this.opts.busTimeoutMs);
        return;
      case ReadMode.NotOlderThan:
      case ReadMode.Exact:
        if (plan.revision > this.cache.revision) await this.cache.waitFor(plan.revision, this.opts.resourceVersionWaitMs);
        return;
      default:
        await this.cache.whenSynced();
    }
  }

  private external(t: Target, o: CachedObject): string {
    return t.fromStored ? JSON.stringify(t.fromStored(o.object)) : objectJson(o);
  }

  private externalObject(t: Target, o: ApiObject): ApiObject {
    return t.fromStored ? t.fromStored(o) : o;
  }

  async get(ctx: RequestContext): Promise<Reply> {
    const { target: t, info } = ctx;
    await this.settle(planGet(ctx.query.get('resourceVersion') ?? undefined));
    const o = this.cache.get(t.cacheKey, nsOf(ctx), info.name);
    if (!o) throw notFound(t.gr, info.name);
    if (info.subresource === 'scale') return json(200, toScale(t, this.externalObject(t, o.object)));
    return rawJson(200, this.external(t, o));
  }

  private filterFor(ctx: RequestContext, namespace: string | undefined, labelSelector: string | undefined, fieldSelector: string | undefined): ((o: ApiObject) => boolean) | undefined {
    const t = ctx.target;
    const labels = labelSelector ? parseLabelSelector(labelSelector) : undefined;
    const fields = fieldSelector ? parseFieldSelector(fieldSelector) : undefined;
    if (fields) {
      const supported = t.type.fieldSelectors ?? {};
      for (const r of fields.requirements) {
        if (r.field !== 'metadata.name' && r.field !== 'metadata.namespace' && !(r.field in supported)) {
          throw badRequest(`field label not supported: ${r.field}`);
        }
      }
    }
    const useLabels = labels && !labels.empty ? labels : undefined;
    const useFields = fields && !fields.empty ? fields : undefined;
    if (!namespace && !useLabels && !useFields) return undefined;
    const getters = t.type.fieldSelectors ?? {};
    return (o: ApiObject) => {
      if (namespace && o.metadata.namespace !== namespace) return false;
      if (useLabels && !useLabels.matches(o.metadata.labels)) return false;
      if (useFields) {
        return useFields.matches((f: string) => {
          if (f === 'metadata.name') return o.metadata.name;
          if (f === 'metadata.namespace') return o.metadata.namespace ?? '';
          return getters[f]?.(o);
        });
      }
      return true;
    };
  }

  async list(ctx: RequestContext): Promise<Reply> {
    const t = ctx.target;
    const lo = parseListOptions(ctx.query);
    const plan = planList(lo);
    await this.settle(plan);
    const namespace = nsOf(ctx);
    const filter = this.filterFor(ctx, namespace, lo.labelSelector, lo.fieldSelector);

    let revision: number;
    let items: CachedObject[];
    if (plan.mode === ReadMode.Exact) {
      revision = plan.revision;
      try {
        items = this.cache.snapshot(t.cacheKey, revision);
      } catch (err) {
        if (plan.continueFrom && err instanceof StatusError && err.code === 410) throw expiredContinue(plan.continueFrom.start);
        throw err;
      }
    } else {
      revision = this.cache.revision;
      items = this.cache.current(t.cacheKey);
    }

    let start = 0;
    if (plan.continueFrom) start = firstAfter(items, plan.continueFrom.start);
    else if (namespace) start = firstAfter(items, `${namespace}/`, true);

    const limit = lo.limit && lo.limit > 0 ? lo.limit : Infinity;
    const out: string[] = [];
    let i = start;
    let last: CachedObject | undefined;
    for (; i < items.length && out.length < limit; i++) {
      const o = items[i]!;
      if (namespace && o.object.metadata.namespace !== namespace) break; // key order: namespace is contiguous
      if (filter && !filter(o.object)) continue;
      out.push(this.external(t, o));
      last = o;
    }
    // More may remain only if we stopped because of the limit.
    // remainingItemCount is only given without selectors (counting would need a full scan).
    const selectors = Boolean(lo.labelSelector || lo.fieldSelector);
    let more = false;
    let remaining = 0;
    if (out.length >= limit) {
      for (let j = i; j < items.length; j++) {
        const o = items[j]!;
        if (namespace && o.object.metadata.namespace !== namespace) break;
        if (filter && !filter(o.object)) continue;
        more = true;
        if (selectors) break;
        remaining++;
      }
    }
    const meta: Record<string, unknown> = { resourceVersion: String(revision) };
    if (more && last) {
      meta.continue = encodeContinue({ rv: plan.continueFrom?.rv === -1 ? -1 : revision, start: last.sortKey });
      if (!selectors) meta.remainingItemCount = remaining;
    }
    const text = `{"kind":${JSON.stringify(t.listKind)},"apiVersion":${JSON.stringify(t.apiVersion)},"metadata":${JSON.stringify(meta)},"items":[${out.join(',')}]}`;
    return rawJson(200, text);
  }

  async watch(ctx: RequestContext): Promise<Reply> {
    const { target: t, info } = ctx;
    const lo = parseListOptions(ctx.query);
    const plan = planWatch(lo);
    await this.settle(plan);
    let fieldSelector = lo.fieldSelector;
    if (info.name) {
      const byName = `metadata.name=${escapeFieldValue(info.name)}`;
      fieldSelector = fieldSelector ? `${fieldSelector},${byName}` : byName;
    }
    const filter = this.filterFor(ctx, nsOf(ctx), lo.labelSelector, fieldSelector);

    const budget = (this.watchBudget ??= new WatchBudget(this.opts.maxWatchBufferedBytes));
    if (budget.spent) throw tooManyRequests('too many watch bytes are waiting for their clients, please try again later', 1);

    let after: number;
    let initial: CachedObject[] | undefined;
    if (plan.initialEvents) {
      after = this.cache.revision;
      initial = this.cache.current(t.cacheKey);
    } else {
      after = plan.revision;
    }

    ctx.hijack();
    const res = ctx.res;
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked', ...warningHeaders(ctx.warnings) });
    res.flushHeaders();
    const sink = responseSink(res, budget, this.opts.watchBufferBytes);
    const handle = this.cache.watch(t.cacheKey, {
      filter,
      transform: t.fromStored,
      afterRevision: after,
      initial,
      initialEventsEnd: plan.initialEventsEndBookmark,
      bookmarks: lo.allowWatchBookmarks ? { apiVersion: t.apiVersion, kind: t.kind } : null,
      sink,
    });
    const seconds = lo.timeoutSeconds && lo.timeoutSeconds > 0 ? Math.min(lo.timeoutSeconds, this.opts.maxWatchSeconds) : this.opts.maxWatchSeconds * (1 + Math.random()) / 2;
    const timer = setTimeout(() => {
      handle.stop();
      sink.close();
    }, seconds * 1000);
    timer.unref();
    ctx.onClose(() => {
      clearTimeout(timer);
      handle.stop();
    });
    return HIJACKED;
  }

  // ---- writes ---------------------------------------------------------------------------

  /** One admission phase for a write; `kind` overrides the target's for a subresource of another kind (TokenRequest). */
  async admit(ctx: RequestContext, phase: AdmissionRequest['phase'], operation: AdmissionRequest['operation'], object: ApiObject | null, oldObject: ApiObject | null, dryRun: boolean, name: string, kind?: AdmissionRequest['kind']): Promise<ApiObject | null> {
    const t = ctx.target;
    if (!this.admission.wants(phase, operation, t.served.group, t.type.plural)) return object;
    const req: AdmissionRequest = {
      uid: randomUUID(),
      phase,
      kind: kind ?? { group: t.served.group, version: t.served.version.name, kind: t.kind },
      resource: { group: t.served.group, version: t.served.version.name, resource: t.type.plural },
      name,
      operation,
      userInfo: ctx.user,
      object,
      oldObject,
      dryRun,
    };
    if (ctx.info.subresource) req.subResource = ctx.info.subresource;
    if (ctx.info.namespace) req.namespace = ctx.info.namespace;
    const reply = await busRequest<AdmissionReply>(this.nc, Subjects.admissionAdmit, req, this.opts.busTimeoutMs);
    if (reply.warnings) ctx.warnings.push(...reply.warnings);
    if (!reply.allowed) {
      if (reply.status) throw new StatusError(reply.status);
      throw badRequest('admission denied the request');
    }
    return reply.object ?? object;
  }

  private validate(t: Target, obj: ApiObject, old?: ApiObject, subresource?: string): void {
    const errs: FieldError[] = this.registry.validate(t.served, obj, old, subresource);
    if (old) errs.push(...validateLifecycleUpdate(obj, old));
    if (errs.length) throw invalid(t.kind, t.served.group, obj.metadata.name ?? '', errs);
  }

  private ref(t: Target, namespace: string | undefined, name: string): ObjectRef {
    const r: ObjectRef = { group: t.storage.group, resource: t.storage.resource, name };
    if (namespace) r.namespace = namespace;
    return r;
  }

  private decode(ctx: RequestContext, write: WriteOptions): DecodedBody {
    if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
    return decodeObject(this.registry, ctx.target, ctx.body, ctx.contentType ?? 'application/json', write.fieldValidation, ctx.warnings, ctx.decoded);
  }

  /** The object of a virtual create (reviews, TokenRequest): decoded, defaulted and validated. */
  decodeVirtual(ctx: RequestContext): ApiObject {
    const { target: t, info } = ctx;
    const { object: obj } = this.decode(ctx, parseWriteOptions(ctx.query));
    checkNamespace(t, obj, info.namespace);
    this.registry.defaults(t.served, obj);
    this.validate(t, obj);
    return obj;
  }

  /** An object as of a consistent read (read-after-write), in its stored form; undefined when absent. */
  async lookup(group: string, resource: string, namespace: string | undefined, name: string): Promise<ApiObject | undefined> {
    await this.settle({ mode: ReadMode.Consistent, revision: 0 });
    return this.cache.get(resourceKey(group, resource), namespace, name)?.object;
  }

  async create(ctx: RequestContext): Promise<Reply> {
    const { target: t, info } = ctx;
    if (info.subresource) throw methodNotSupported(t.gr, 'create');
    const write = parseWriteOptions(ctx.query);
    const { object: obj } = this.decode(ctx, write);
    checkNamespace(t, obj, info.namespace);
    if (!obj.metadata.name && !obj.metadata.generateName) {
      throw invalid(t.kind, t.served.group, '', [{ type: 'Required value', field: 'metadata.name', detail: 'name or generateName is required' }]);
    }
    this.registry.defaults(t.served, obj);
    let next = (await this.admit(ctx, AdmissionPhase.Mutating, AdmissionOperation.Create, obj, null, write.dryRun, obj.metadata.name ?? ''))!;
    const generated = !next.metadata.name && Boolean(next.metadata.generateName);
    for (let attempt = 0; ; attempt++) {
      // Only a generated name is ever retried, and each retry must start from `next` again;
      // otherwise `next` is not used after this and is prepared in place.
      const candidate = generated ? structuredClone(next) : next;
      prepareForCreate(t.type, candidate, { user: ctx.user, now: nowTimestamp() });
      this.validate(t, candidate);
      if (this.writeGuard) await this.writeGuard(ctx, candidate);
      await this.admit(ctx, AdmissionPhase.Validating, AdmissionOperation.Create, candidate, null, write.dryRun, candidate.metadata.name!);
      if (write.dryRun) return json(201, candidate);
      try {
        const reply = await busRequest<StorageWriteReply>(this.nc, Subjects.storageCreate, { ref: this.ref(t, nsOf(ctx), candidate.metadata.name!), object: t.toStored(candidate) }, this.opts.busTimeoutMs);
        return json(201, this.externalObject(t, reply.object));
      } catch (err) {
        // A generated name that happens to exist is retried with a new suffix.
        if (generated && attempt < 4 && err instanceof StatusError && err.status.reason === 'AlreadyExists') continue;
        if (err instanceof StatusError && err.status.reason === 'AlreadyExists') throw alreadyExists(t.gr, candidate.metadata.name!);
        throw err;
      }
    }
  }

  /** The current object for a write, from the cache; `fresh` waits for the stream's last revision first. */
  private async current(ctx: RequestContext, fresh: boolean): Promise<CachedObject> {
    const { target: t, info } = ctx;
    await this.settle({ mode: fresh ? ReadMode.Consistent : ReadMode.Any, revision: 0 });
    let o = this.cache.get(t.cacheKey, nsOf(ctx), info.name);
    if (!o && !fresh) {
      // Possibly created through another gateway a moment ago: look again after a consistent barrier.
      await this.settle({ mode: ReadMode.Consistent, revision: 0 });
      o = this.cache.get(t.cacheKey, nsOf(ctx), info.name);
    }
    if (!o) throw notFound(t.gr, info.name);
    return o;
  }

  async update(ctx: RequestContext): Promise<Reply> {
    const { target: t, info } = ctx;
    const write = parseWriteOptions(ctx.query);
    if (info.subresource === 'scale') {
      if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
      const scale = (ctx.decoded ?? decodeBody(ctx.body, ctx.contentType ?? 'application/json')).value as ApiObject;
      if (!scale || typeof scale !== 'object' || !scale.metadata) throw badRequest('the body of the request is not a Scale object');
      const rv = scale.metadata.resourceVersion;
      return this.writeUpdate(ctx, write, () => structuredClone(scale), rv ? Number(rv) : undefined);
    }
    const { object: obj } = this.decode(ctx, write);
    checkNamespace(t, obj, info.namespace);
    if (obj.metadata.name !== info.name) {
      throw badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${info.name})`);
    }
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && !/^\d+$/.test(rv)) throw badRequest(`invalid resourceVersion ${JSON.stringify(rv)}`);
    // Each attempt starts from the client's object: a lost race must not see the previous attempt's changes.
    return this.writeUpdate(ctx, write, () => structuredClone(obj), rv ? Number(rv) : undefined);
  }

  async patch(ctx: RequestContext): Promise<Reply> {
    const { target: t } = ctx;
    const write = parseWriteOptions(ctx.query);
    if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
    const patchType = mediaTypeOf(ctx.contentType ?? '');
    const patchDoc = decodePatchBody(ctx.body, patchType, ctx.decoded);
    if (ctx.info.subresource === 'scale') {
      return this.writeUpdate(ctx, write, (current) => applyPatch(patchType, current, patchDoc) as ApiObject, undefined);
    }
    const schema = this.registry.objectSchema(t.served);
    return this.writeUpdate(ctx, write, (current) => {
      // A patch result may share subtrees with its input, and the result is changed below.
      const patched = applyPatch(patchType, structuredClone(current), patchDoc, schema) as ApiObject;
      if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patch produced an object that is not a JSON object');
      const redecoded = objectFromValue(this.registry, t, patched, write.fieldValidation, ctx.warnings);
      return redecoded.object;
    }, undefined);
  }

  /**
   * The shared update loop of PUT and PATCH: take the current object, compute the new one,
   * prepare/validate/admit, then compare-and-swap. Without a caller-given resourceVersion a lost
   * race is retried against fresh state; with one it is a 409.
   */
  /** `compute` must not change `current` and must return an object it owns. */
  private async writeUpdate(ctx: RequestContext, write: WriteOptions, compute: (current: ApiObject) => ApiObject, expected: number | undefined): Promise<Reply> {
    const { target: t, info } = ctx;
    const scaled = info.subresource === 'scale';
    const respond = (o: ApiObject): ApiObject => (scaled ? toScale(t, o) : o);
    if (expected !== undefined && expected > this.cache.revision) await this.cache.waitFor(expected, this.opts.resourceVersionWaitMs).catch(() => undefined);
    const retry = new RaceRetry(this.opts.updateRetryMs);
    let fresh = false;
    for (;;) {
      const cur = await this.current(ctx, fresh);
      const currentExt = this.externalObject(t, structuredClone(cur.object));
      if (expected !== undefined && expected !== cur.revision) throw conflict(t.gr, info.name, CONFLICT_MODIFIED);
      // `/scale` reads and writes a Scale view; everything below works on the whole object.
      let next = scaled ? fromScale(t, compute(toScale(t, currentExt)), currentExt) : compute(currentExt);
      checkNamespace(t, next, info.namespace);
      if (next.metadata.name !== info.name) throw badRequest(`the name of the object (${next.metadata.name ?? ''}) does not match the name on the URL (${info.name})`);
      // A uid or resourceVersion in the new object (PUT body or patch result) is a precondition.
      if (next.metadata.uid && next.metadata.uid !== currentExt.metadata.uid) {
        throw conflict(t.gr, info.name, `Precondition failed: UID in precondition: ${next.metadata.uid}, UID in object meta: ${currentExt.metadata.uid ?? ''}`);
      }
      const rvIn = next.metadata.resourceVersion;
      if (rvIn && rvIn !== String(cur.revision)) throw conflict(t.gr, info.name, CONFLICT_MODIFIED);
      const strategyCtx = { user: ctx.user, now: nowTimestamp() };
      if (info.subresource === 'status') next = prepareForStatusUpdate(t.type, next, currentExt, strategyCtx);
      else if (info.subresource && !scaled) {
        const prepared = prepareForSubresourceUpdate(t.type, info.subresource, next, currentExt, strategyCtx);
        if (!prepared) throw methodNotSupported(t.gr, ctx.info.verb);
        next = prepared;
      } else {
        this.registry.defaults(t.served, next);
        prepareForUpdate(t.type, next, currentExt, strategyCtx);
      }
      next = (await this.admit(ctx, AdmissionPhase.Mutating, AdmissionOperation.Update, next, currentExt, write.dryRun, info.name))!;
      this.validate(t, next, currentExt, scaled ? undefined : info.subresource);
      if (this.writeGuard) await this.writeGuard(ctx, next);
      await this.admit(ctx, AdmissionPhase.Validating, AdmissionOperation.Update, next, currentExt, write.dryRun, info.name);
      next.metadata.resourceVersion = String(cur.revision);
      if (write.dryRun) return json(200, respond(next));
      const ref = this.ref(t, nsOf(ctx), info.name);
      try {
        if (readyForRemoval(next)) {
          // The last finalizer is gone: the object leaves storage (spec: deletion table).
          await busRequest<StorageDeleteReply>(this.nc, Subjects.storageDelete, { ref, expectedRevision: cur.revision }, this.opts.busTimeoutMs);
          return json(200, respond(next));
        }
        const stored = t.toStored(next);
        // Compared in stored form against the stored value: nothing to write means no new
        // revision and no watch event (controllers rely on it to settle).
        if (sameStoredValue(stored, cur.object)) {
          // The cache may lag a write (this gateway's own just answered one, or another gateway's):
          // only a no-op against fresh state may skip the write (upstream re-reads here too).
          if (!fresh) {
            fresh = true;
            continue;
          }
          return json(200, respond(currentExt));
        }
        delete stored.metadata.resourceVersion;
        const reply = await busRequest<StorageWriteReply>(this.nc, Subjects.storageUpdate, { ref, object: stored, expectedRevision: cur.revision }, this.opts.busTimeoutMs);
        return json(200, respond(this.externalObject(t, reply.object)));
      } catch (err) {
        const lostRace = err instanceof StatusError && err.status.reason === 'Conflict';
        // Only a caller-given resourceVersion makes a lost race the caller's problem.
        if (lostRace && expected === undefined) {
          await retry.next(t.gr, info.name);
          fresh = true;
          continue;
        }
        if (lostRace) throw conflict(t.gr, info.name, CONFLICT_MODIFIED);
        throw err;
      }
    }
  }

  async delete(ctx: RequestContext): Promise<Reply> {
    const { target: t, info } = ctx;
    if (info.subresource) throw methodNotSupported(t.gr, 'delete');
    const opts = parseDeleteOptions(ctx.query, ctx.body && ctx.body.length ? decodeDeleteOptions(ctx.body, ctx.contentType, ctx.decoded) : undefined);
    const retry = new RaceRetry(this.opts.updateRetryMs);
    let fresh = false;
    for (;;) {
      const cur = await this.current(ctx, fresh);
      const result = await this.deleteOne(ctx, cur, opts);
      if (result !== 'retry') return result;
      await retry.next(t.gr, info.name);
      fresh = true;
    }
  }

  private async deleteOne(ctx: RequestContext, cur: CachedObject, opts: ReturnType<typeof parseDeleteOptions>): Promise<Reply | 'retry'> {
    const t = ctx.target;
    const name = cur.ref.name;
    const obj = this.externalObject(t, structuredClone(cur.object));
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(t.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== String(cur.revision)) {
      throw conflict(t.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cur.revision}`);
    }
    await this.admit(ctx, AdmissionPhase.Mutating, AdmissionOperation.Delete, null, obj, opts.dryRun, name);
    await this.admit(ctx, AdmissionPhase.Validating, AdmissionOperation.Delete, null, obj, opts.dryRun, name);
    const outcome = planDelete(obj);
    const ref = this.ref(t, cur.ref.namespace, name);
    try {
      if (outcome === DeleteOutcome.AlreadyTerminating) return json(200, obj);
      if (outcome === DeleteOutcome.MarkTerminating) {
        const next = markTerminating(obj, nowTimestamp());
        if (opts.dryRun) return json(200, next);
        const stored = t.toStored(next);
        delete stored.metadata.resourceVersion;
        const reply = await busRequest<StorageWriteReply>(this.nc, Subjects.storageUpdate, { ref, object: stored, expectedRevision: cur.revision }, this.opts.busTimeoutMs);
        return json(200, this.externalObject(t, reply.object));
      }
      if (!opts.dryRun) await busRequest<StorageDeleteReply>(this.nc, Subjects.storageDelete, { ref, expectedRevision: cur.revision }, this.opts.busTimeoutMs);
    } catch (err) {
      if (err instanceof StatusError && err.status.reason === 'Conflict' && !pre?.resourceVersion) return 'retry';
      throw err;
    }
    const details: Status['details'] = { name, group: t.served.group, kind: t.type.plural };
    if (obj.metadata.uid) details.uid = obj.metadata.uid;
    return json(200, successStatus(details));
  }

  async deleteCollection(ctx: RequestContext): Promise<Reply> {
    const { target: t, info } = ctx;
    const lo = parseListOptions(ctx.query);
    const opts = parseDeleteOptions(ctx.query, ctx.body && ctx.body.length ? decodeDeleteOptions(ctx.body, ctx.contentType, ctx.decoded) : undefined);
    await this.settle(planList({ resourceVersion: lo.resourceVersion, resourceVersionMatch: lo.resourceVersionMatch }));
    const namespace = nsOf(ctx);
    const filter = this.filterFor(ctx, namespace, lo.labelSelector, lo.fieldSelector);
    const victims = this.cache.current(t.cacheKey).filter((o) => (!namespace || o.ref.namespace === namespace) && (!filter || filter(o.object)));
    for (const v of victims) {
      const sub: RequestContext = { ...ctx, info: { ...info, name: v.ref.name, namespace: v.ref.namespace ?? '' } };
      try {
        const r = await this.deleteOne(sub, v, opts);
        if (r === 'retry') continue; // changed meanwhile: upstream deletecollection skips such objects too
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
    return json(200, successStatus());
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

/** The namespace a request addresses; a cluster-scoped type has none (even `namespaces/<name>`). */
function nsOf(ctx: RequestContext): string | undefined {
  return ctx.target.namespaced ? ctx.info.namespace || undefined : undefined;
}

function checkNamespace(t: Target, obj: ApiObject, urlNamespace: string): void {
  if (!t.namespaced) return;
  if (obj.metadata.namespace && obj.metadata.namespace !== urlNamespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  obj.metadata.namespace = urlNamespace;
}

/** Index of the first item whose sort key is after `key` (or at/after it, when `inclusive`). */
function firstAfter(items: CachedObject[], key: string, inclusive = false): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = items[mid]!.sortKey;
    if (k < key || (!inclusive && k === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function expiredContinue(start: string): StatusError {
  const err = resourceExpired(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );
  err.status.metadata = { continue: encodeContinue({ rv: -1, start }) };
  return err;
}

export function warningHeaders(warnings: string[]): Record<string, string[]> {
  if (!warnings.length) return {};
  return { warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) };
}
