// PATCH: JSON, merge and strategic merge patches are the generic store's update with the patch
// applied to the current object on every attempt; server-side apply (application/apply-patch+yaml)
// merges the applied configuration by field ownership, creating the object when it is missing.

import type { ApiObject } from '../../../shared/api/types.js';
import { badRequest, StatusError, unsupportedMediaTypeOf } from '../../../shared/api/status.js';
import { parseWriteOptions } from '../../../shared/api/query.js';
import { applyPatch, PatchType } from '../../../shared/patch/index.js';
import { value } from '../../../shared/codec/index.js';
import { apply, ownable } from '../../../shared/fieldmanager/managed.js';
import { lastAppliedFields, syncLastApplied } from '../../../shared/fieldmanager/last-applied.js';
import { managedInVersion } from '../../../shared/registry/rest/managed-versions.js';
import { nowTimestamp } from '../../../shared/api/time.js';
import { fromScale, toScale } from '../../../shared/registry/rest/scale.js';
import { hasStatusSubresource } from '../../../shared/registry/version-parts.js';
import { decodePatchBody, mediaTypeOf, objectFromValue } from './decode.js';
import { writeRequest, writeRequestMayCreate, type Handler, type HandlerDeps, type Reply, type RequestContext } from './context.js';
import { cloneJson } from '../../../shared/patch/json-value.js';

/** The patch types a PATCH takes, in upstream's order (its 415 names them so). */
const PATCH_TYPES: readonly string[] = [PatchType.JSON, PatchType.Merge, PatchType.Strategic, PatchType.Apply];
/** Custom resources have no patch strategy markers to merge by, so upstream takes no strategic merge patch for them. */
const CUSTOM_RESOURCE_PATCH_TYPES: readonly string[] = [PatchType.JSON, PatchType.Merge, PatchType.Apply];

export const patch: Handler = async (ctx, deps) => {
  const { registry, store } = deps;
  const t = ctx.target;
  const write = parseWriteOptions(ctx.query, 'patch');
  if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
  const patchType = mediaTypeOf(ctx.contentType ?? '');
  const accepted = t.type.unstructured ? CUSTOM_RESOURCE_PATCH_TYPES : PATCH_TYPES;
  if (!accepted.includes(patchType)) throw unsupportedMediaTypeOf(accepted);
  const patchDoc = decodePatchBody(ctx.body, patchType, ctx.decoded);
  if (patchType === PatchType.Apply) return serverSideApply(ctx, deps, patchDoc);
  if (ctx.query.has('force')) throw badRequest('force: Invalid value: true: may not be specified for non-apply patch');
  const req = writeRequest(ctx, write.dryRun);
  if (ctx.info.subresource === 'scale') {
    const updated = await store.update(req, (current) => fromScale(t, applyPatch(patchType, toScale(t, current), patchDoc) as ApiObject, current));
    return { code: 200, body: value(toScale(t, updated)) };
  }
  const schema = registry.objectSchema(t.served);
  const updated = await store.update(req, (current) => {
    // A patch result may share subtrees with its input, and the result is changed later.
    const patched = applyPatch(patchType, cloneJson(current), patchDoc, schema) as ApiObject;
    if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patch produced an object that is not a JSON object');
    return objectFromValue(registry, t, patched, write.fieldValidation, ctx.warnings);
  });
  return { code: 200, body: value(updated) };
};

/** Server-side apply: merge by ownership into the live object, or create it from the configuration. */
async function serverSideApply(ctx: RequestContext, deps: HandlerDeps, body: unknown): Promise<Reply> {
  const { registry, store } = deps;
  const t = ctx.target;
  const write = parseWriteOptions(ctx.query, 'patch');
  if (!write.fieldManager) throw badRequest('fieldManager is required for apply requests');
  const sub = ctx.info.subresource ?? '';
  if (sub === 'scale') throw badRequest('server-side apply is not supported for the scale subresource');
  const applied = objectFromValue(registry, t, body, write.fieldValidation, ctx.warnings);
  if (applied.metadata.name !== undefined && applied.metadata.name !== ctx.info.name) {
    throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${ctx.info.name})`);
  }
  applied.metadata.name = ctx.info.name;
  const req = { ...writeRequestMayCreate(ctx, deps, write.dryRun), manager: write.fieldManager, applied: true };
  const schema = registry.fieldSchema(t.served);
  const ignore = ownable(sub, hasStatusSubresource(t.type, t.served.version));
  const writer = { manager: write.fieldManager, subresource: sub, apiVersion: t.apiVersion, now: nowTimestamp() };
  const describe = { kind: t.gr.resource, group: t.gr.group };
  const apiVersions = t.otherSpelling ? [t.apiVersion, t.otherSpelling] : [t.apiVersion];
  try {
    const updated = await store.update(req, async (current) => {
      // Entries made through other versions are compared in this one (fieldmanager/versions.ts).
      const versions = managedInVersion(registry, t, current);
      const live = await versions.read(current);
      const allowed = lastAppliedFields(live, writer.manager, apiVersions, schema, ignore);
      const merged = apply(live, cloneJson(applied), schema, writer, write.force, ignore, describe, allowed);
      syncLastApplied(merged, live, body, writer.manager);
      return versions.write(merged);
    });
    return { code: 200, body: value(updated) };
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404) || sub) throw err;
  }
  const created = await store.create(req, apply(null, cloneJson(applied), schema, writer, write.force, ignore, describe));
  return { code: 201, body: value(created) };
}
