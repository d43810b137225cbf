// The request's deadline (upstream's WithRequestDeadline): `--request-timeout`, or the `?timeout=`
// of the URL when that is shorter (a Go duration such as `5s`; 0 or less means the server's).
// Watches and the other long-running requests have none (a watch ends by its timeoutSeconds).
// Every hop of the request waits at most what remains, and the handler's answer is raced against
// it (handlers/index.ts): past it the request is answered 504 with upstream's Timeout Status.

import { badRequest } from '../../../shared/api/status.js';
import { OptionsError } from '../../../shared/config/options.js';
import { Deadline } from '../../../shared/api/deadline.js';
import { parseGoDuration } from '../../../shared/api/go-duration.js';
import type { Filter } from './filter.js';
import { isLongRunning } from './max-in-flight.js';
import { apiState } from './request-info.js';

const MUTATING_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * `--request-timeout` as the gateway takes it: a positive duration. Upstream refuses a negative one
 * (the parser does here: `"-1s" can not be negative value`) and takes 0, with which every request
 * but watches fails 504 at once; a gateway that can serve nothing is refused at start instead.
 */
export function requestTimeoutOption(ms: number): number {
  if (ms < 0) throw new OptionsError('--request-timeout can not be negative value');
  if (ms === 0) throw new OptionsError('--request-timeout must be positive: with 0s every request but watches and other long-running ones would fail 504 at once');
  return ms;
}

/** `requestTimeoutMs`: `--request-timeout`, the longest a non-long-running request may take. */
export function requestDeadlineFilter(requestTimeoutMs: number): Filter {
  return {
    name: 'request-deadline',
    onRequest(req) {
      const api = apiState(req);
      if (isLongRunning(api.info)) return;
      let timeoutMs = requestTimeoutMs;
      const asked = api.query.get('timeout');
      if (asked) {
        let ms: number;
        try {
          ms = parseGoDuration(asked);
        } catch (err) {
          throw badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
        }
        if (ms > 0 && ms < requestTimeoutMs) timeoutMs = ms;
      }
      api.deadline = new Deadline(api.startedAt + timeoutMs, MUTATING_VERBS.has(api.info.verb));
    },
  };
}
