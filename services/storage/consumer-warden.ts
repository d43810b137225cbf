// The storage service keeps the bucket's consumers to what consumer-rules.ts allows, because NATS
// permissions cannot (shared/bus/permissions.ts): a reader's credentials may create consumers of
// any kind and number, delivering anywhere. JetStream announces every consumer made on the stream
// (an advisory the store account exports to storage alone); the warden then lists the stream's
// consumers, judges them and deletes what the rules refuse. It runs on those announcements, at
// start, and when an unbound consumer's grace ends: at rest it does nothing. Replicas share the
// announcements through a queue group; deleting a consumer twice is harmless.

import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import type { Logger } from '../../shared/log.js';
import { consumerCreatedAdvisories } from '../../shared/bus/streams.js';
import type { MetricsRegistry } from '../../shared/metrics/registry.js';
import { StabilityLevel } from '../../shared/metrics/stability.js';
import { DEFAULT_CONSUMER_RULES, judgeConsumers, type ConsumerRules, type ConsumerView, type Removal } from './consumer-rules.js';

/** Announcements within this long are judged together: a burst of creations costs one listing. */
const DEBOUNCE_MS = 100;
const QUEUE = 'platform-storage-consumer-warden';

export interface ConsumerWardenOptions {
  nc: NatsConnection;
  jsm: JetStreamManager;
  stream: string;
  log: Logger;
  metrics: MetricsRegistry;
  rules?: ConsumerRules;
}

export class ConsumerWarden {
  private readonly rules: ConsumerRules;
  private readonly unboundSince = new Map<string, number>();
  private readonly removed: (kind: string) => { inc(): void };
  private sub: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly o: ConsumerWardenOptions) {
    this.rules = o.rules ?? DEFAULT_CONSUMER_RULES;
    const family = o.metrics.counter({
      name: 'platform_storage_bucket_consumers_removed_total',
      help: "Consumers on the object bucket's stream the storage service removed, by rule (pull, outside-inboxes, unbound, unbound-excess, over-share).",
      stabilityLevel: StabilityLevel.Alpha,
      labelNames: ['rule'],
    });
    this.removed = (kind) => family.with([kind]);
  }

  /** Follows the stream's consumer announcements and judges what is there now. */
  start(): void {
    const subject = consumerCreatedAdvisories(this.o.stream);
    this.sub = this.o.nc.subscribe(subject, { queue: QUEUE, callback: () => this.schedule(DEBOUNCE_MS) });
    void this.sub.closed.then((err) => {
      if (err && !this.stopped) this.o.log.warn({ err, subject }, 'consumer announcements are not received (the NATS permissions predate the consumer warden): consumers are judged at start only');
    });
    this.schedule(0);
  }

  /** Lists, judges and removes once; resolves with what it removed. */
  async runOnce(): Promise<Removal[]> {
    const consumers: ConsumerView[] = [];
    for await (const c of this.o.jsm.consumers.list(this.o.stream)) {
      consumers.push({ name: c.name, created: c.created, bound: c.push_bound === true, ...(c.config.deliver_subject ? { deliverSubject: c.config.deliver_subject } : {}) });
    }
    const judged = judgeConsumers(consumers, Date.now(), this.rules, this.unboundSince);
    for (const r of judged.remove) {
      await this.o.jsm.consumers.delete(this.o.stream, r.name).catch(() => false);
      this.removed(r.kind).inc();
      this.o.log.warn({ stream: this.o.stream, consumer: r.name, rule: r.kind }, `removed a consumer on the bucket: ${r.reason}`);
    }
    if (judged.recheckInMs !== undefined) this.schedule(judged.recheckInMs + 50);
    return judged.remove;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.sub?.unsubscribe();
    await this.running;
  }

  /** A run `delayMs` from now, unless one is due sooner. */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.kick();
    }, delayMs);
  }

  /** One run at a time; announcements during a run make one more after it. */
  private kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runOnce()
      .then(
        () => undefined,
        (err: unknown) => this.o.log.warn({ err, stream: this.o.stream }, 'judging the bucket consumers failed; the next announcement tries again'),
      )
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.schedule(0);
        }
      });
  }
}
