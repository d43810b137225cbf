// A list's or deletecollection's `timeoutSeconds`: the request's deadline, and upstream's 504
// request timeout for work that has not finished by then (a wait for a resourceVersion, the
// deletions of a collection).

import { Deadline } from '../../../shared/api/deadline.js';
import { requestTimedOut } from '../../../shared/api/status.js';

/** The deadline (epoch ms) of a request given `timeoutSeconds`; none (Infinity) when unset or 0, upstream's "the server's default". */
export function requestDeadline(timeoutSeconds: number | undefined, now: number): number {
  return timeoutSeconds && timeoutSeconds > 0 ? now + timeoutSeconds * 1000 : Infinity;
}

/**
 * What a wait of the request may take: the request's own deadline, or `deadline` (epoch ms) when
 * that comes sooner, with upstream's request timeout as its 504. Every wait bounded by it (the
 * cache's, a NATS round trip's) ends by then, none is left running beyond the answer.
 */
export function waitDeadline(request: Deadline | undefined, deadline: number, now = Date.now()): Deadline | undefined {
  if (deadline === Infinity) return request;
  const ms = Math.max(0, deadline - now);
  return (request ?? new Deadline(Infinity, false)).within(ms, requestTimedOut);
}
