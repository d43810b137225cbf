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

/** Upstream's message for a JSON patch whose copies outgrow the limit, answered as its 422. */
export function copyLimitExceeded(accumulated: number, limit: number): StatusError {
  return unprocessablePatch(`Unable to complete the copy, the accumulated size increase of copy is ${accumulated}, exceeding the limit ${limit}`);
}

export function tooManyArrayShifts(limit: number): StatusError {
  return requestEntityTooLarge(
    `Request entity too large: the JSON patch's inserts and removals would move more than ${limit} array elements; replace a long array as a whole instead of editing it element by element`,
  );
}

export function strategicMergeTooExpensive(limit: number): StatusError {
  return requestEntityTooLarge(
    `Request entity too large: applying the strategic merge patch would take more than ${limit} steps, too many for an object and patch of this size (does a list repeat the same merge key?)`,
  );
}

/** The patched object would be refused by storage anyway; say so before any more work is done. */
export function patchResultTooLarge(limit: number): StatusError {
  return requestEntityTooLarge(`Request entity too large: the patched object would be larger than the limit of ${limit} bytes`);
}
