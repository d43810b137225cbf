// Charging quota exactly under concurrency, as upstream's quota evaluator does: the requests of a
// namespace are taken in batches, one batch at a time, each checked in turn against the usage the
// ones before it left; every quota whose usage changed is then written back with the revision it
// was read at (compare-and-swap). A request is admitted only once the write recording its usage
// succeeded; a lost race re-reads the quotas that failed and checks the batch again, a bounded
// number of times. Several admission replicas (or the quota controller) racing on one quota are
// thereby serialized by the store, and requests within this replica by the batches.

import { conflict, CONFLICT_MODIFIED, internalError, StatusError } from '../../../../shared/api/status.js';
import type { ApiObject } from '../../../../shared/api/types.js';
import type { AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { Evaluator } from '../../../../shared/quota/evaluators.js';
import { equalLists, resourceListJson } from '../../../../shared/quota/resource-list.js';
import { admissionForbidden } from '../../errors.js';
import { checkRequest, QuotaDenied, quotaView, type LimitedResource, type QuotaView } from './quota-check.js';

/** Where the quotas are read and their usage written. */
export interface QuotaAccessor {
  /** The quotas of a namespace as last known (a cache, with this replica's own newer writes). */
  list(namespace: string): Promise<ApiObject[]>;
  /** One quota as stored now (null: it is gone). */
  read(namespace: string, name: string): Promise<ApiObject | null>;
  /** Stores the quota if it is still at `revision`; a lost race throws a 409 StatusError. */
  update(quota: ApiObject, revision: number): Promise<ApiObject>;
}

export interface QuotaAdmitterOptions {
  limited?: readonly LimitedResource[];
  /** Rounds after the first when writes lose races (upstream: 3). */
  retries?: number;
  /** How long one request waits for its batch (upstream: 10 s). */
  timeoutMs?: number;
  now?: () => number;
}

const PENDING = Symbol('pending');
type Outcome = typeof PENDING | null | Error;

interface Waiter {
  req: AdmissionRequest;
  evaluator: Evaluator;
  result: Outcome;
  finish(): void;
}

const QUOTAS = { group: '', resource: 'resourcequotas' };

export class QuotaAdmitter {
  private readonly queued = new Map<string, Waiter[]>();
  private readonly draining = new Set<string>();
  private readonly limited: readonly LimitedResource[];
  private readonly retries: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly quotas: QuotaAccessor,
    opts: QuotaAdmitterOptions = {},
  ) {
    this.limited = opts.limited ?? [];
    this.retries = opts.retries ?? 3;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** Resolves once the request's usage is recorded (or it needs none); throws its refusal. */
  async admit(req: AdmissionRequest, evaluator: Evaluator): Promise<void> {
    const ns = req.namespace!;
    let timer: NodeJS.Timeout | undefined;
    const waiter = await new Promise<Waiter>((resolve, reject) => {
      const w: Waiter = { req, evaluator, result: PENDING, finish: () => resolve(w) };
      timer = setTimeout(() => reject(internalError('resource quota evaluation timed out')), this.timeoutMs);
      const list = this.queued.get(ns);
      if (list) list.push(w);
      else this.queued.set(ns, [w]);
      if (!this.draining.has(ns)) void this.drain(ns);
    }).finally(() => clearTimeout(timer));
    const r = waiter.result;
    if (r === null) return;
    if (r instanceof QuotaDenied) throw admissionForbidden(req, r.message);
    if (r instanceof StatusError) throw r;
    if (r === PENDING) throw internalError('resource quota evaluation did not complete');
    throw internalError(`resource quota evaluation failed: ${r.message}`);
  }

  private async drain(ns: string): Promise<void> {
    this.draining.add(ns);
    try {
      for (let batch = this.queued.get(ns); batch; batch = this.queued.get(ns)) {
        this.queued.delete(ns);
        try {
          const quotas = await this.quotas.list(ns);
          if (quotas.length || this.limited.length) {
            await this.checkQuotas(ns, quotas.map(quotaView), batch, this.retries);
            await this.recheckRefusals(ns, quotas, batch);
          } else for (const w of batch) w.result = null;
        } catch (err) {
          for (const w of batch) if (w.result === PENDING) w.result = err as Error;
        }
        for (const w of batch) w.finish();
      }
    } finally {
      this.draining.delete(ns);
    }
  }

  /**
   * A refusal decided on cached quotas is decided again on the stored ones when they differ (the
   * cache may trail the controller's recount or another replica's charge), so that only what is
   * stored refuses a request.
   */
  private async recheckRefusals(ns: string, cached: ApiObject[], batch: Waiter[]): Promise<void> {
    const refused = batch.filter((w) => w.result instanceof QuotaDenied);
    if (!refused.length) return;
    const stored = await Promise.all(cached.map((q) => this.quotas.read(ns, q.metadata.name ?? '')));
    if (stored.every((q, i) => q?.metadata.resourceVersion === cached[i]!.metadata.resourceVersion)) return;
    for (const w of refused) w.result = PENDING;
    await this.checkQuotas(ns, stored.filter((o): o is ApiObject => o !== null).map(quotaView), refused, this.retries);
  }

  private async checkQuotas(ns: string, original: QuotaView[], batch: Waiter[], remaining: number): Promise<void> {
    let quotas = original;
    let changed = false;
    for (const w of batch) {
      // A refusal is final: a later round only re-checks what is still to be charged.
      if (w.result instanceof Error) continue;
      let next: QuotaView[];
      try {
        next = checkRequest(quotas, w.req, w.evaluator, this.limited, this.now());
      } catch (err) {
        w.result = err as Error;
        continue;
      }
      // A dry run is checked against the same usage but leaves none behind.
      if (w.req.dryRun) {
        w.result = null;
        continue;
      }
      const mine = next.some((q, i) => !equalLists(q.used, quotas[i]!.used));
      w.result = mine ? PENDING : null;
      changed ||= mine;
      quotas = next;
    }
    if (!changed) return;

    const failed: QuotaView[] = [];
    let lastErr: Error | undefined;
    await Promise.all(
      quotas.map(async (q, i) => {
        if (equalLists(q.used, original[i]!.used)) return;
        const next: ApiObject = { ...q.object, status: { ...(q.object.status ?? {}), used: resourceListJson(q.used) } };
        try {
          await this.quotas.update(next, Number(q.object.metadata.resourceVersion));
        } catch (err) {
          failed.push(q);
          lastErr = err instanceof StatusError && err.code === 409 ? conflict(QUOTAS, q.object.metadata.name ?? '', CONFLICT_MODIFIED) : (err as Error);
        }
      }),
    );
    if (!failed.length) {
      for (const w of batch) if (w.result === PENDING) w.result = null;
      return;
    }
    if (remaining <= 0) {
      for (const w of batch) if (w.result === PENDING) w.result = lastErr!;
      return;
    }
    // The quotas whose write lost are read again and the whole batch checked against them; what
    // was written to the others stays (as upstream's).
    const fresh = await Promise.all(failed.map((q) => this.quotas.read(ns, q.object.metadata.name ?? '')));
    await this.checkQuotas(ns, fresh.filter((o): o is ApiObject => o !== null).map(quotaView), batch, remaining - 1);
  }
}
