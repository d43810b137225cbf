// PUT of an object, its /status, another update subresource, or its /scale view: decode, then the
// generic store's compare-and-swap update, starting each attempt from the client's object.

import type { ApiObject } from '../../../shared/api/types.js';
import { badRequest } from '../../../shared/api/status.js';
import { parseWriteOptions } from '../../../shared/api/query.js';
import { value } from '../../../shared/codec/index.js';
import { fromScale, toScale } from '../../../shared/registry/rest/scale.js';
import { decodeObject, decodeValue } from './decode.js';
import { writeRequestMayCreate, type Handler, type RequestContext } from './context.js';
import { cloneJson } from '../../../shared/patch/json-value.js';

export const update: Handler = async (ctx, deps) => {
  const { registry, store } = deps;
  const { target: t, info } = ctx;
  const write = parseWriteOptions(ctx.query, 'update');
  if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
  // No PUT creates today (a missing object is 404); a create-on-update goes through the store's
  // create, which then asks for the create verb this request carries.
  const req = writeRequestMayCreate(ctx, deps, write.dryRun);
  if (info.subresource === 'scale') {
    const scale = (ctx.decoded ?? decodeValue(ctx.body, ctx.contentType ?? 'application/json')).value as ApiObject;
    if (!scale || typeof scale !== 'object' || !scale.metadata) throw badRequest('the body of the request is not a Scale object');
    const updated = await store.update(req, (current) => fromScale(t, cloneJson(scale), current), expectedRevision(scale.metadata.resourceVersion));
    return { code: 200, body: value(toScale(t, updated)) };
  }
  const obj = decodeObject(registry, t, ctx.body, ctx.contentType ?? 'application/json', write.fieldValidation, ctx.warnings, ctx.decoded);
  checkName(ctx, obj);
  const rv = obj.metadata.resourceVersion;
  if (rv !== undefined && rv !== '' && !/^\d+$/.test(rv)) throw badRequest(`invalid resourceVersion ${JSON.stringify(rv)}`);
  // Each attempt starts from the client's object: a lost race must not see the previous attempt's changes.
  const updated = await store.update(req, () => cloneJson(obj), expectedRevision(rv));
  return { code: 200, body: value(updated) };
};

function expectedRevision(rv: string | undefined): number | undefined {
  return rv ? Number(rv) : undefined;
}

/** A namespaced body must not name another namespace; the name must be the URL's. */
function checkName(ctx: RequestContext, obj: ApiObject): void {
  if (ctx.target.namespaced && obj.metadata.namespace && obj.metadata.namespace !== ctx.info.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (obj.metadata.name !== ctx.info.name) {
    throw badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${ctx.info.name})`);
  }
}
