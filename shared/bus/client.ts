// Request/reply over NATS with Status semantics: no responders → 503, timeout → 504, an error
// reply → the Status it carries.
//
// Requests go through one reply subscription per connection (like nats.js's own request mux)
// rather than `nc.request`, for two costs that dominated a gateway write:
// - nats.js writes its outbound buffer at the end of each microtask checkpoint, and Node runs one
//   checkpoint per I/O callback, so a gateway serving many connections made one socket write per
//   request. Here requests are published together once per event-loop turn (setImmediate): all
//   requests started while one poll phase is handled leave in a single write, which also spares
//   nats-server and the services one read per request.
// - `nc.request` builds a RequestError (with a stack trace) for every successful request when it
//   cleans up, plus a deferred and a timer object of its own.

import {
  ClosedConnectionError,
  createInbox,
  DrainingConnectionError,
  NoRespondersError,
  PermissionViolationError,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from '@nats-io/nats-core';
import { StatusError, isStatus, serviceUnavailable, timeout, internalError } from '../api/status.js';
import { ERROR_CODE_HEADER, IDEMPOTENT_SUBJECTS } from './subjects.js';
import { BusOutcome, type BusMetrics } from './metrics.js';
import { linkOf, type Link } from './link.js';
import type { Deadline } from '../api/deadline.js';

export const DEFAULT_BUS_TIMEOUT_MS = 5_000;

const decoder = new TextDecoder();

// Buffer.from is several times faster than TextEncoder.encode on Node 20 for message-sized strings.
export function encodeJson(v: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(v), 'utf8');
}

export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(decoder.decode(data)) as T;
}

/** Turns an error reply into the StatusError it carries; returns null for a value reply. */
export function replyError(msg: Msg): StatusError | null {
  const code = msg.headers?.get(ERROR_CODE_HEADER);
  if (!code) return null;
  try {
    const body = msg.data.length ? decodeJson<unknown>(msg.data) : null;
    if (isStatus(body)) return new StatusError(body);
  } catch {
    // fall through: a non-Status error body
  }
  const description = msg.headers?.get('Nats-Service-Error') ?? 'error';
  return internalError(`${description} (code ${code})`);
}

interface PendingRequest {
  subject: string;
  data: Uint8Array;
  headers: MsgHdrs | undefined;
  timeoutMs: number;
  resolve(msg: Msg): void;
  reject(err: StatusError): void;
  timer: NodeJS.Timeout | undefined;
  sent: boolean;
}

/** A 503 with the NATS client's error as its cause (jetstream-request.ts hands the cause on). */
function unavailable(message: string, cause: unknown): StatusError {
  return new StatusError(serviceUnavailable(message).status, { cause });
}

/** The 503 of a request that could not be made. */
function requestFailed(subject: string, err: unknown): StatusError {
  return unavailable(`request on ${subject} failed: ${err instanceof Error ? err.message : String(err)}`, err);
}

/** One connection's requests: a wildcard reply subscription, pending requests by token, the outbox. */
class RequestMux {
  private readonly inbox: string;
  private readonly sub: Subscription;
  private readonly pending = new Map<string, PendingRequest>();
  private outbox: [string, PendingRequest][] = [];
  private next = 0;
  /** Where this connection's round trips are timed (instrumentBus); none: not timed. */
  metrics: BusMetrics | undefined;

  private readonly link: Link;

  constructor(private readonly nc: NatsConnection) {
    this.metrics = observers.get(nc);
    this.link = linkOf(nc);
    const prefix = (nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
    this.inbox = `${createInbox(prefix)}.`;
    this.sub = nc.subscribe(`${this.inbox}*`, { callback: (err, msg) => this.dispatch(err, msg) });
    // Closed or drained with the connection: whatever is still waiting will not be answered.
    void this.sub.closed.then(
      () => this.failAll(new Error('connection closed')),
      (err: unknown) => this.failAll(err),
    );
    void this.watchPermissionErrors();
  }

  // The server refuses a publish it does not permit with an asynchronous -ERR naming the subject;
  // like nats.js, fail the request sent there instead of letting it run into its timeout.
  private async watchPermissionErrors(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type !== 'error' || !(s.error instanceof PermissionViolationError) || s.error.operation !== 'publish') continue;
      for (const [token, p] of this.pending) {
        if (!p.sent || p.subject !== s.error.subject) continue;
        this.settle(token, p);
        p.reject(requestFailed(p.subject, s.error));
        break;
      }
    }
  }

  get closed(): boolean {
    return this.sub.isClosed();
  }

  request(subject: string, data: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    // The checks nc.request makes before sending, so a closing connection fails at once.
    if (this.nc.isClosed()) return Promise.reject(requestFailed(subject, new ClosedConnectionError()));
    if (this.nc.isDraining()) return Promise.reject(requestFailed(subject, new DrainingConnectionError()));
    // Cut off from NATS past the grace period: no use waiting for the timeout.
    if (this.link.lost()) return Promise.reject(serviceUnavailable(`request on ${subject} failed: the connection to NATS is lost (reconnecting)`));
    return new Promise<Msg>((resolve, reject) => {
      const p: PendingRequest = { subject, data, headers, timeoutMs, resolve, reject, timer: undefined, sent: false };
      const token = (this.next++).toString(36);
      this.pending.set(token, p);
      p.timer = setTimeout(() => {
        if (!this.pending.delete(token)) return;
        // Unanswered: a silent responder, or a connection into a partition that pings have not yet caught.
        void this.link.probe();
        reject(timeout(`the service answering ${subject} did not reply within ${timeoutMs}ms`));
      }, timeoutMs);
      if (this.outbox.length === 0) setImmediate(this.flush);
      this.outbox.push([token, p]);
    });
  }

  private readonly flush = (): void => {
    const batch = this.outbox;
    this.outbox = [];
    for (const [token, p] of batch) {
      if (!this.pending.has(token)) continue; // timed out or failed meanwhile
      try {
        this.nc.publish(p.subject, p.data, p.headers ? { reply: this.inbox + token, headers: p.headers } : { reply: this.inbox + token });
        p.sent = true;
      } catch (err) {
        this.settle(token, p);
        p.reject(requestFailed(p.subject, err));
      }
    }
  };

  private dispatch(err: Error | null, msg: Msg): void {
    if (err) {
      this.failAll(err);
      return;
    }
    const token = msg.subject.slice(this.inbox.length);
    const p = this.pending.get(token);
    if (!p) return; // late (after its timeout) or a second responder
    this.settle(token, p);
    if (msg.data.length === 0 && msg.headers?.code === 503) p.reject(unavailable(`no service is answering ${p.subject}`, new NoRespondersError(p.subject)));
    else p.resolve(msg);
  }

  private settle(token: string, p: PendingRequest): void {
    clearTimeout(p.timer);
    this.pending.delete(token);
  }

  private failAll(err: unknown): void {
    for (const [token, p] of [...this.pending]) {
      this.settle(token, p);
      p.reject(requestFailed(p.subject, err));
    }
  }
}

const muxes = new WeakMap<NatsConnection, RequestMux>();
const observers = new WeakMap<NatsConnection, BusMetrics>();

/** Times every request made on `nc` from now on (a process's registry; the last one given wins). */
export function instrumentBus(nc: NatsConnection, metrics: BusMetrics): void {
  observers.set(nc, metrics);
  const mux = muxes.get(nc);
  if (mux) mux.metrics = metrics;
}

function muxFor(nc: NatsConnection): RequestMux {
  let mux = muxes.get(nc);
  if (!mux || mux.closed) {
    mux = new RequestMux(nc);
    muxes.set(nc, mux);
  }
  return mux;
}

/**
 * One send of a request, waiting `timeoutMs` or what remains of `deadline` if that is less; past
 * the deadline, the deadline's own 504 (the request's, not this hop's).
 */
async function sendOnce(mux: RequestMux, subject: string, data: Uint8Array, timeoutMs: number, deadline: Deadline | undefined): Promise<Msg> {
  if (!deadline) return mux.request(subject, data, timeoutMs);
  const left = Math.ceil(deadline.remainingMs());
  if (left <= 0) throw deadline.exceeded();
  try {
    return await mux.request(subject, data, Math.min(timeoutMs, left));
  } catch (err) {
    if (err instanceof StatusError && err.status.code === 504 && deadline.remainingMs() <= 0) throw deadline.exceeded();
    throw err;
  }
}

/**
 * One request as it is, through the connection's mux: the reply message whatever it holds, no
 * resend. Failures are StatusErrors (503: not sent, with the client's error as cause, or no
 * responders; 504: no reply in `timeoutMs`). For protocols of their own (a JetStream publish).
 */
export function requestOnce(nc: NatsConnection, subject: string, data: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
  let mux: RequestMux;
  try {
    mux = muxFor(nc);
  } catch (err) {
    return Promise.reject(requestFailed(subject, err));
  }
  return mux.request(subject, data, timeoutMs, headers);
}

/**
 * Sends a JSON request and returns the decoded JSON reply, or throws a StatusError. With
 * `deadline` (the request this hop serves), the hop waits no longer than what remains of it.
 */
export async function busRequest<Res>(nc: NatsConnection, subject: string, body: unknown, timeoutMs = DEFAULT_BUS_TIMEOUT_MS, deadline?: Deadline): Promise<Res> {
  return decodeJson<Res>(await busRequestBytes(nc, subject, encodeJson(body), timeoutMs, deadline));
}

/** `busRequest` with the body already encoded (a protobuf message, codec.ts); the reply's body as it came. */
export async function busRequestBytes(nc: NatsConnection, subject: string, data: Uint8Array, timeoutMs = DEFAULT_BUS_TIMEOUT_MS, deadline?: Deadline): Promise<Uint8Array> {
  let mux: RequestMux;
  try {
    mux = muxFor(nc);
  } catch (err) {
    throw requestFailed(subject, err);
  }
  const metrics = mux.metrics;
  const start = metrics ? performance.now() : 0;
  let msg: Msg;
  try {
    try {
      msg = await sendOnce(mux, subject, data, timeoutMs, deadline);
    } catch (err) {
      // No reply at all (the replica died, or none was there): an idempotent request is sent once
      // more, within the same deadline.
      if (!IDEMPOTENT_SUBJECTS.has(subject) || nc.isClosed() || nc.isDraining() || (deadline && deadline.remainingMs() <= 0)) throw err;
      // After a timeout, not into the same silence: the probe it started has moved a connection that
      // no longer answers to another node (the resend waits for it there).
      if (err instanceof StatusError && err.status.code === 504) await linkOf(nc).probe();
      msg = await sendOnce(muxFor(nc), subject, data, timeoutMs, deadline);
    }
  } catch (err) {
    metrics?.observe(subject, err instanceof StatusError && err.status.code === 504 ? BusOutcome.Timeout : BusOutcome.Unavailable, (performance.now() - start) / 1000);
    throw err;
  }
  const error = replyError(msg);
  metrics?.observe(subject, error ? BusOutcome.Error : BusOutcome.Ok, (performance.now() - start) / 1000);
  if (error) throw error;
  return msg.data;
}
