// Patch application for PATCH requests: JSON patch, JSON merge patch and strategic merge patch,
// chosen by the request's content type. Pure: no I/O, inputs are never changed. The work a patch
// may do and the size of its result are bounded (limits.ts), so a small hostile body cannot make
// the server build a huge object.

import { StatusReason, failure } from '../api/status.js';
import { malformedPatch, patchResultTooLarge } from './errors.js';
import { applyJsonPatch } from './json-patch.js';
import { isJsonObject } from './json-value.js';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { MAX_PATCH_RESULT_BYTES, encodedSize } from './limits.js';
import type { JsonSchema } from '../api/types.js';

export { applyMergePatch, createMergePatch } from './merge-patch.js';
export { applyJsonPatch, parseJsonPatch, parseJsonPointer, JsonPatchOp } from './json-patch.js';
export type { JsonPatchOperation } from './json-patch.js';
export { applyStrategicMergePatch, PatchDirective } from './strategic-merge-patch.js';
export { resolvePatchSchema, childSchema, itemSchema, listMergeKind, OBJECT_META_PATCH_SCHEMA } from './patch-schema.js';
export type { ListMergeKind } from './patch-schema.js';
export { MAX_JSON_PATCH_OPERATIONS } from './errors.js';
export { MAX_JSON_PATCH_ARRAY_SHIFTS, MAX_JSON_PATCH_COPY_BYTES, MAX_PATCH_RESULT_BYTES } from './limits.js';

export const PatchType = {
  JSON: 'application/json-patch+json',
  Merge: 'application/merge-patch+json',
  Strategic: 'application/strategic-merge-patch+json',
  Apply: 'application/apply-patch+yaml',
} as const;
export type PatchType = (typeof PatchType)[keyof typeof PatchType];

const SUPPORTED: readonly string[] = Object.values(PatchType);

/** Whether a Content-Type (parameters allowed) names one of the patch types. */
export function isPatchType(contentType: string): boolean {
  return SUPPORTED.includes(mediaType(contentType));
}

function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/**
 * Applies `patch` (already decoded from the body) to `original` according to the Content-Type
 * `type`. `schema` is the object's schema; only strategic merge patch uses it. A result larger
 * than storage accepts is refused here (413), before it is validated, admitted and sent.
 */
export function applyPatch(type: string, original: unknown, patch: unknown, schema?: JsonSchema): unknown {
  const result = patchWith(type, original, patch, schema);
  if (encodedSize(result, MAX_PATCH_RESULT_BYTES) > MAX_PATCH_RESULT_BYTES) throw patchResultTooLarge(MAX_PATCH_RESULT_BYTES);
  return result;
}

function patchWith(type: string, original: unknown, patch: unknown, schema?: JsonSchema): unknown {
  switch (mediaType(type)) {
    case PatchType.JSON:
      return applyJsonPatch(original, patch);
    case PatchType.Merge:
      // RFC 7386 lets a non-object patch replace the target, but an API object can only be
      // patched into an object.
      if (!isJsonObject(patch)) throw malformedPatch('a merge patch must be a JSON object');
      return applyMergePatch(original, patch);
    case PatchType.Strategic:
      return applyStrategicMergePatch(original, patch, schema);
    case PatchType.Apply:
      throw failure(415, StatusReason.UnsupportedMediaType, `server-side apply (${PatchType.Apply}) is not supported yet; send a strategic merge, merge or JSON patch instead`);
    default:
      throw failure(
        415,
        StatusReason.UnsupportedMediaType,
        `the body of the request was in an unknown format - accepted media types include: ${[PatchType.JSON, PatchType.Merge, PatchType.Strategic].join(', ')} (got ${JSON.stringify(type)})`,
      );
  }
}
