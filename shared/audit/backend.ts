// Where events go: the auditor hands each stage's event to every backend; a backend is a writer
// (log file, webhook) behind one of upstream's modes. `batch` buffers and writes in the
// background, so a request never waits; a full buffer drops the event, counts it in
// apiserver_audit_error_total{plugin="buffered"} and logs it. `blocking` makes the request wait
// for the write (failures are counted and logged, the request goes on); `blocking-strict` also
// fails a request whose RequestReceived event could not be written.

import type { Logger } from 'pino';
import type { AuditEvent, AuditRequest } from './event.js';
import { wallClockMs } from './event.js';
import type { AuditAttributes, AuditSubject, PolicyChecker, RequestAuditConfig } from './policy.js';
import { Stage, type Level } from './types.js';

export const BackendMode = { Batch: 'batch', Blocking: 'blocking', BlockingStrict: 'blocking-strict' } as const;
export type BackendMode = (typeof BackendMode)[keyof typeof BackendMode];
export const BACKEND_MODES: readonly string[] = Object.values(BackendMode);

/** The audit metrics (upstream's names), kept on the gateway's registry. */
export interface AuditMetrics {
  /** apiserver_audit_event_total */
  event(): void;
  /** apiserver_audit_level_total{level}: one per request the policy was evaluated for. */
  level(level: Level): void;
  /** apiserver_audit_error_total{plugin}: events that were not recorded. */
  error(plugin: string, events: number): void;
  /** apiserver_audit_requests_rejected_total: requests failed because blocking-strict could not record them. */
  rejected(): void;
}

/** Counts and logs events a plugin lost; never silent. */
export interface AuditErrors {
  /** Counts the events and logs them with the error. */
  report(plugin: string, events: readonly AuditEvent[], err: unknown): void;
  /** Counts only: the caller logs (in summary). */
  count(plugin: string, events: number): void;
}

/** Writes events somewhere; rejects when they were not written (the caller counts them). */
export interface AuditWriter {
  /** The plugin name errors are counted under: `log`, `webhook`. */
  readonly name: string;
  write(events: readonly AuditEvent[]): Promise<void>;
  /** Writes what is pending and releases the file or connections; stops retrying. */
  close(): Promise<void>;
}

export interface AuditBackend {
  /** Nothing to wait for (accepted, or dropped and counted), or the write to wait for: false fails the request. */
  process(ev: AuditEvent): Promise<boolean> | undefined;
  shutdown(): Promise<void>;
}

export interface BatchOptions {
  /** Events waiting to be written; one more is dropped (and counted). */
  bufferSize: number;
  maxBatchSize: number;
  /** How long a batch smaller than maxBatchSize waits for more events; 0 writes at the next turn of the event loop. */
  maxBatchWaitMs: number;
  /** Batches per second, with bursts (upstream's token bucket); null: unthrottled. */
  throttle: { qps: number; burst: number } | null;
  /** Batches written at once: 1 keeps a file's lines in order; a webhook posts several. */
  concurrency: number;
}

/** How long shutdown waits for batches in flight before their retries are abandoned (and counted). */
const SHUTDOWN_WAIT_MS = 10_000;

/**
 * How long the auditor's shutdown waits for records still open to end. A watch's last stage is
 * emitted on its response's 'close' event, which (seen with the gateway's TLS server) can fire some
 * milliseconds after the server reported itself closed.
 */
const RECORDS_END_WAIT_MS = 2_000;

export function createBackend(writer: AuditWriter, mode: BackendMode, batch: BatchOptions, errors: AuditErrors, log: Logger): AuditBackend {
  return mode === BackendMode.Batch ? new BufferedBackend(writer, batch, errors, log) : new BlockingBackend(writer, mode === BackendMode.BlockingStrict, errors);
}

class BlockingBackend implements AuditBackend {
  constructor(
    private readonly writer: AuditWriter,
    private readonly strict: boolean,
    private readonly errors: AuditErrors,
  ) {}

  process(ev: AuditEvent): Promise<boolean> {
    return this.writer.write([ev]).then(
      () => true,
      (err: unknown) => {
        this.errors.report(this.writer.name, [ev], err);
        return !this.strict;
      },
    );
  }

  shutdown(): Promise<void> {
    return this.writer.close();
  }
}

/** Upstream's buffered plugin: a bounded queue drained in batches by size, time and rate. */
export class BufferedBackend implements AuditBackend {
  private queue: AuditEvent[] = [];
  private head = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /** A partial batch may go: its wait is over (or there is none). */
  private due: boolean;
  private waitTimer: NodeJS.Timeout | null = null;
  private throttleTimer: NodeJS.Timeout | null = null;
  private pumpScheduled = false;
  private closed = false;
  private tokens: number;
  private refilledAt = performance.now();
  private dropped: AuditEvent[] = [];
  private droppedCount = 0;
  private dropLogTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly writer: AuditWriter,
    private readonly opts: BatchOptions,
    private readonly errors: AuditErrors,
    private readonly log: Logger,
  ) {
    this.due = opts.maxBatchWaitMs <= 0;
    this.tokens = opts.throttle?.burst ?? 0;
  }

  get pending(): number {
    return this.queue.length - this.head;
  }

  process(ev: AuditEvent): undefined {
    if (this.closed || this.pending >= this.opts.bufferSize) {
      this.drop(ev);
      return undefined;
    }
    this.queue.push(ev);
    if (this.due || this.pending >= this.opts.maxBatchSize) this.schedulePump();
    else this.armWait();
    return undefined;
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    this.due = true;
    if (this.waitTimer) clearTimeout(this.waitTimer);
    if (this.throttleTimer) clearTimeout(this.throttleTimer);
    // What is buffered goes out now, whatever the rate limit says.
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), SHUTDOWN_WAIT_MS)));
    while (this.pending > 0 || this.inFlight.size > 0) {
      while (this.pending > 0 && this.inFlight.size < this.opts.concurrency) this.send(this.take());
      if ((await Promise.race([Promise.race(this.inFlight), timedOut])) === 'timeout') break;
    }
    clearTimeout(timer);
    await this.writer.close();
    await Promise.allSettled(this.inFlight);
    // Anything still queued (a writer that never answered) is lost: say so.
    if (this.pending > 0) this.errors.report(this.writer.name, this.queue.slice(this.head), new Error('audit backend shut down'));
    this.flushDropLog();
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private armWait(): void {
    if (this.waitTimer) return;
    this.waitTimer = setTimeout(() => {
      this.waitTimer = null;
      this.due = true;
      this.pump();
    }, this.opts.maxBatchWaitMs);
    this.waitTimer.unref();
  }

  private pump(): void {
    while (this.pending > 0 && this.inFlight.size < this.opts.concurrency) {
      if (!this.due && this.pending < this.opts.maxBatchSize) {
        this.armWait();
        return;
      }
      if (!this.takeToken()) return;
      this.send(this.take());
    }
    // The next partial batch waits its full time again (upstream resets its timer per batch).
    if (this.pending === 0 && this.opts.maxBatchWaitMs > 0) this.due = false;
  }

  private take(): AuditEvent[] {
    const n = Math.min(this.pending, this.opts.maxBatchSize);
    const batch = this.queue.slice(this.head, this.head + n);
    this.head += n;
    // Compact once the consumed part dominates, so the array never grows without bound.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return batch;
  }

  private send(batch: AuditEvent[]): void {
    const p: Promise<void> = this.writer
      .write(batch)
      .catch((err: unknown) => this.errors.report(this.writer.name, batch, err))
      .finally(() => {
        this.inFlight.delete(p);
        if (!this.closed) this.pump();
      });
    this.inFlight.add(p);
  }

  private takeToken(): boolean {
    const t = this.opts.throttle;
    if (!t || this.closed) return true;
    const now = performance.now();
    this.tokens = Math.min(t.burst, this.tokens + ((now - this.refilledAt) / 1000) * t.qps);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    if (!this.throttleTimer) {
      this.throttleTimer = setTimeout(
        () => {
          this.throttleTimer = null;
          this.pump();
        },
        Math.ceil(((1 - this.tokens) / t.qps) * 1000),
      );
      this.throttleTimer.unref();
    }
    return false;
  }

  /** Counted at once; logged at most once a second with how many and which, so a flood cannot flood the log too. */
  private drop(ev: AuditEvent): void {
    this.errors.count(BUFFERED_PLUGIN, 1);
    this.droppedCount++;
    if (this.dropped.length < 10) this.dropped.push(ev);
    if (!this.dropLogTimer) {
      this.dropLogTimer = setTimeout(() => this.flushDropLog(), 1000);
      this.dropLogTimer.unref();
    }
  }

  private flushDropLog(): void {
    if (this.dropLogTimer) clearTimeout(this.dropLogTimer);
    this.dropLogTimer = null;
    if (!this.droppedCount) return;
    this.log.error(
      {
        plugin: BUFFERED_PLUGIN,
        backend: this.writer.name,
        dropped: this.droppedCount,
        auditIDs: this.dropped.map((e) => e.auditID),
        reason: this.closed ? 'audit backend shut down' : 'audit buffer queue full',
      },
      'audit events dropped',
    );
    this.droppedCount = 0;
    this.dropped = [];
  }
}

export const BUFFERED_PLUGIN = 'buffered';

/** Counts lost events on the metrics and logs them with their audit IDs. */
export function auditErrors(metrics: AuditMetrics, log: Logger): AuditErrors {
  return {
    count(plugin, events) {
      metrics.error(plugin, events);
    },
    report(plugin, events, err) {
      metrics.error(plugin, events.length);
      log.error({ plugin, events: events.length, auditIDs: events.slice(0, 10).map((e) => e.auditID), err: err instanceof Error ? err.message : String(err) }, 'audit events could not be recorded');
    },
  };
}

/** The policy and the backends of a server: what the audit filter talks to. */
export class Auditor {
  /** Records between RequestReceived and their last stage: shutdown lets them end before the backends close. */
  private readonly open = new Set<AuditRequest>();
  private allEnded: (() => void) | null = null;

  constructor(
    private readonly checker: PolicyChecker,
    private readonly backends: readonly AuditBackend[],
    private readonly metrics: AuditMetrics,
  ) {}

  /** The policy's answer for a request (counted per level, None included). */
  evaluate(user: AuditSubject | undefined, attrs: AuditAttributes): RequestAuditConfig {
    const c = this.checker.evaluate(user, attrs);
    this.metrics.level(c.level);
    return c;
  }

  /**
   * Writes one stage of a request. Undefined when nothing needs waiting for (no blocking backend,
   * or the stage is omitted); otherwise a promise that is false when a blocking-strict backend failed.
   */
  emit(req: AuditRequest, stage: Stage, at = wallClockMs()): Promise<boolean> | undefined {
    // Tracked whether or not the policy omits the stage: the record is open all the same.
    if (stage === Stage.RequestReceived) this.open.add(req);
    else if (stage === Stage.ResponseComplete || stage === Stage.Panic) this.ended(req);
    const ev = req.event(stage, at);
    if (!ev) return undefined;
    this.metrics.event();
    let waits: Promise<boolean>[] | undefined;
    for (const b of this.backends) {
      const w = b.process(ev);
      if (w) (waits ??= []).push(w);
    }
    if (!waits) return undefined;
    return waits.length === 1 ? waits[0] : Promise.all(waits).then((ok) => ok.every(Boolean));
  }

  rejected(): void {
    this.metrics.rejected();
  }

  /**
   * Called once the server has stopped: the records of requests that were still ending (a watch
   * whose response is closing) get their last stage written before the backends flush and close,
   * as upstream's handlers finish before its audit backend shuts down.
   */
  async shutdown(): Promise<void> {
    await this.recordsEnded(RECORDS_END_WAIT_MS);
    await Promise.all(this.backends.map((b) => b.shutdown()));
  }

  private ended(req: AuditRequest): void {
    this.open.delete(req);
    if (this.open.size === 0) this.allEnded?.();
  }

  private recordsEnded(deadlineMs: number): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, deadlineMs);
      this.allEnded = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
