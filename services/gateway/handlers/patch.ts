// PATCH (JSON, merge, strategic merge; apply to come): the generic store's update with the patch
// applied to the current object on every attempt, the result decoded again as the type.

import type { ApiObject } from '../../../shared/api/types.js';
import { badRequest } from '../../../shared/api/status.js';
import { parseWriteOptions } from '../../../shared/api/query.js';
import { applyPatch } from '../../../shared/patch/index.js';
import { value } from '../../../shared/codec/index.js';
import { fromScale, toScale } from '../../../shared/registry/rest/scale.js';
import { decodePatchBody, mediaTypeOf, objectFromValue } from './decode.js';
import { writeRequest, type Handler } from './context.js';

export const patch: Handler = async (ctx, { registry, store }) => {
  const t = ctx.target;
  const write = parseWriteOptions(ctx.query);
  if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
  const patchType = mediaTypeOf(ctx.contentType ?? '');
  const patchDoc = decodePatchBody(ctx.body, patchType, ctx.decoded);
  const req = writeRequest(ctx, write.dryRun);
  if (ctx.info.subresource === 'scale') {
    const updated = await store.update(req, (current) => fromScale(t, applyPatch(patchType, toScale(t, current), patchDoc) as ApiObject, current));
    return { code: 200, body: value(toScale(t, updated)) };
  }
  const schema = registry.objectSchema(t.served);
  const updated = await store.update(req, (current) => {
    // A patch result may share subtrees with its input, and the result is changed later.
    const patched = applyPatch(patchType, structuredClone(current), patchDoc, schema) as ApiObject;
    if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patch produced an object that is not a JSON object');
    return objectFromValue(registry, t, patched, write.fieldValidation, ctx.warnings);
  });
  return { code: 200, body: value(updated) };
};
