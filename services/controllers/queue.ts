// A controller's work queue, as client-go's: a key is queued once however often it is added, is
// never processed by two workers at once (an add while it is processed queues it again after), and
// a failed key is retried with per-key exponential back-off. Nothing runs after `shutDown`.

export type Reconcile = (key: string) => Promise<void | { requeueAfterMs: number }>;

export interface WorkQueueOptions {
  workers?: number;
  minRetryMs?: number;
  maxRetryMs?: number;
  onError?(key: string, err: unknown): void;
}

export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly order: string[] = [];
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private active = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly reconcile: Reconcile,
    private readonly opts: WorkQueueOptions = {},
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.order.push(key);
    this.pump();
  }

  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.add(key);
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Resolves when nothing is queued or being processed (tests). */
  idle(): Promise<void> {
    if (this.order.length === 0 && this.active === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  shutDown(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.order.length = 0;
    this.queued.clear();
  }

  private pump(): void {
    const workers = this.opts.workers ?? 1;
    while (!this.stopped && this.active < workers && this.order.length) {
      const key = this.order.shift()!;
      this.queued.delete(key);
      this.processing.add(key);
      this.active++;
      void this.run(key);
    }
    if (this.order.length === 0 && this.active === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async run(key: string): Promise<void> {
    try {
      const r = await this.reconcile(key);
      this.failures.delete(key);
      if (r && r.requeueAfterMs >= 0) this.addAfter(key, r.requeueAfterMs);
    } catch (err) {
      this.opts.onError?.(key, err);
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const min = this.opts.minRetryMs ?? 200;
      const max = this.opts.maxRetryMs ?? 60_000;
      this.addAfter(key, Math.min(max, min * 2 ** (n - 1)));
    } finally {
      this.processing.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
