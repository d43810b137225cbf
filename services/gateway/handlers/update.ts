// PUT of an object, its /status, another update subresource, or its /scale view: decode, then the
// generic store's compare-and-swap update, starting each attempt from the client's object. A PUT
// of a missing object creates it for the types that allow it (create-on-update), answered 201.

import type { ApiObject } from '../../../shared/api/types.js';
import { badRequest, StatusError } from '../../../shared/api/status.js';
import { parseWriteOptions } from '../../../shared/api/query.js';
import { value } from '../../../shared/codec/index.js';
import { fromScale, toScale } from '../../../shared/registry/rest/scale.js';
import { decodeObject, decodeValue } from './decode.js';
import { writeRequestMayCreate, type Handler, type Reply, type RequestContext } from './context.js';
import type { WriteRequest } from '../../../shared/registry/rest/store-types.js';
import type { GenericStore } from '../../../shared/registry/rest/generic-store.js';
import { cloneJson } from '../../../shared/patch/json-value.js';

export const update: Handler = async (ctx, deps) => {
  const { registry, store } = deps;
  const { target: t, info } = ctx;
  const write = parseWriteOptions(ctx.query, 'update');
  if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
  // A create-on-update goes through the store's create, which then asks for the create verb too.
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
  return t.type.createOnUpdate && !info.subresource ? updateOrCreate(store, req, obj, rv) : { code: 200, body: value(await updateFrom(store, req, obj, rv)) };
};

/** Each attempt starts from the client's object: a lost race must not see the previous attempt's changes. */
function updateFrom(store: GenericStore, req: WriteRequest, obj: ApiObject, rv: string | undefined): Promise<ApiObject> {
  return store.update(req, () => cloneJson(obj), expectedRevision(rv));
}

/**
 * A PUT counts as create or update (the spec) for the types whose upstream strategy has
 * `AllowCreateOnUpdate() == true` in 1.24: Endpoints, Event (core and events), LimitRange, Lease,
 * PodDisruptionBudget, RuntimeClass, Role, RoleBinding, ClusterRole and ClusterRoleBinding (their
 * entries set `createOnUpdate`); every other type's missing object is 404. The create is the
 * store's: create admission, and `create` asked of the authorizer besides the filter's `update`
 * (upstream's createAuthorizerAttributes); upstream checks no resourceVersion on it. An object
 * created meanwhile by another writer is updated after all, as upstream's retried write does.
 */
async function updateOrCreate(store: GenericStore, req: WriteRequest, obj: ApiObject, rv: string | undefined): Promise<Reply> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { code: 200, body: value(await updateFrom(store, req, obj, rv)) };
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
    try {
      return { code: 201, body: value(await store.create(req, cloneJson(obj))) };
    } catch (err) {
      if (!(err instanceof StatusError && err.status.reason === 'AlreadyExists' && attempt < 2)) throw err;
    }
  }
}

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
