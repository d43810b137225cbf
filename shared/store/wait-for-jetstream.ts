// Start-up against a JetStream that is not there yet. A NATS cluster answers its health check
// before its JetStream meta group has a leader, and a freshly created R3 stream has no leader for
// a moment either: a service started then must wait, not exit and be restarted in a loop by its
// supervisor. The wait is bounded: past the deadline the last error is thrown, the process exits 1
// and the restart policy (compose's, Kubernetes') takes over, which also shows up as a restart.

import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '../log.js';
import { sleep } from '../ground/sleep.js';
import { kvErrorKind, KvErrorKind } from './kv-errors.js';

/** How long start-up waits for JetStream (or the bucket) before giving up. */
export const DEFAULT_START_DEADLINE_MS = 60_000;
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 5_000;

export interface WaitForJetStreamOptions {
  /** What is being attempted, for the log ("provision the bucket"). */
  what: string;
  log: Logger;
  /** Give up once this long has passed since the first attempt. */
  deadlineMs?: number;
  /** Delay after the first failure; doubles per attempt up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Besides JetStream being unavailable or slow, what else is waited out (a reader: the bucket not created yet). */
  alsoWaitFor?: (err: unknown) => boolean;
}

export class JetStreamStartTimeoutError extends Error {
  override name = 'JetStreamStartTimeoutError';
}

/** JetStream cannot serve right now: no meta leader, no stream leader, no responder, no answer in time. */
export function isJetStreamNotReady(err: unknown): boolean {
  const kind = kvErrorKind(err);
  return kind === KvErrorKind.Unavailable || kind === KvErrorKind.Timeout;
}

/**
 * Runs `step` until it succeeds, waiting out JetStream not being ready with a doubling delay and a
 * log line per failed attempt. Anything else, a connection closing, or the deadline passing is
 * thrown (the last after the deadline as a JetStreamStartTimeoutError with the cause).
 */
export async function waitForJetStream<T>(nc: NatsConnection, step: () => Promise<T>, opts: WaitForJetStreamOptions): Promise<T> {
  const deadlineMs = opts.deadlineMs ?? DEFAULT_START_DEADLINE_MS;
  const maxDelayMs = opts.maxDelayMs ?? MAX_DELAY_MS;
  const started = Date.now();
  let delayMs = opts.firstDelayMs ?? FIRST_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await step();
      if (attempt > 1) opts.log.info({ attempt, waitedMs: Date.now() - started }, `${opts.what}: done`);
      return value;
    } catch (err) {
      const waitable = isJetStreamNotReady(err) || (opts.alsoWaitFor?.(err) ?? false);
      // A connection closing is the process stopping (or NATS gone for good): nothing to wait for.
      if (!waitable || nc.isClosed() || nc.isDraining()) throw err;
      const elapsed = Date.now() - started;
      if (elapsed + delayMs > deadlineMs) {
        throw new JetStreamStartTimeoutError(`${opts.what}: JetStream did not become available within ${Math.round(deadlineMs / 1000)} s (${attempt} attempts): ${String(err)}`, { cause: err });
      }
      opts.log.warn({ err: String(err), attempt, retryInMs: delayMs, waitedMs: elapsed, deadlineMs }, `${opts.what}: not possible yet; trying again`);
      await sleep(delayMs);
      delayMs = Math.min(maxDelayMs, delayMs * 2);
    }
  }
}
