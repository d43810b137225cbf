// The Status errors patch application raises, with the codes the upstream API server uses:
// a patch that cannot be understood is 400, one that is understood but does not fit the object
// is 422 Invalid, and an oversized JSON patch is 413.

import { StatusReason, badRequest, failure, requestEntityTooLarge, type StatusError } from '../api/status.js';

/** Upstream's bound on JSON patch operations; past it a patch is refused before any work. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/** The patch document itself is malformed (wrong shape, unknown op, bad pointer syntax). */
export function malformedPatch(message: string): StatusError {
  return badRequest(message);
}

/**
 * The patch is well-formed but cannot be applied to this object (a failed `test`, a missing
 * path). Upstream answers with a generic 422 whose cause carries the detail; the detail is also
 * in the message here so clients that print only the message still say what went wrong.
 */
export function unprocessablePatch(detail: string): StatusError {
  return failure(422, StatusReason.Invalid, `the server rejected our request due to an error in our request: ${detail}`, {
    causes: [{ reason: 'UnexpectedServerResponse', message: detail }],
  });
}

export function tooManyOperations(count: number): StatusError {
  return requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${count}`);
}
