// Requests served by a type's REST hooks (virtual kinds, create-style and connect subresources):
// the hook gets the request and the cluster as the generic store and the watch cache offer it.

import type { ApiObject } from '../../../shared/api/types.js';
import { badRequest, invalid, notFound, serviceUnavailable } from '../../../shared/api/status.js';
import { parseWriteOptions } from '../../../shared/api/query.js';
import { value } from '../../../shared/codec/index.js';
import type { Targets } from '../../../shared/registry/target.js';
import type { Target } from '../../../shared/registry/types.js';
import type { ClusterWrite, RestAction, RestCluster, RestRequest, RestResult } from '../../../shared/registry/types.js';
import { served, servedAsync, setNamespace } from '../../../shared/registry/rest/stored-form.js';
import type { WriteRequest } from '../../../shared/registry/rest/store-types.js';
import { decodeObject, decodeValue } from './decode.js';
import { managerOf, namespaceOf, writeRequest, type HandlerDeps, type Reply, type RequestContext } from './context.js';

/** POST of a virtual kind. */
export async function serveVirtual(ctx: RequestContext, deps: HandlerDeps, targets: Targets): Promise<Reply> {
  const create = ctx.target.type.rest?.create;
  if (!create) throw badRequest(`${ctx.target.kind} cannot be created here`);
  return answer(await create(restRequest(ctx, deps), restCluster(ctx, deps, targets)));
}

/** A subresource served by a hook. */
export async function serveAction(action: RestAction, ctx: RequestContext, deps: HandlerDeps, targets: Targets): Promise<Reply> {
  return answer(await action.handle(restRequest(ctx, deps), restCluster(ctx, deps, targets)));
}

function answer(r: RestResult): Reply {
  return 'streamed' in r ? null : { code: r.code, body: value(r.body) };
}

function restRequest(ctx: RequestContext, deps: HandlerDeps): RestRequest {
  const { info, target: t } = ctx;
  const write = parseWriteOptions(ctx.query, info.verb);
  let decoded: { value: unknown } | undefined;
  return {
    target: t,
    user: ctx.user,
    verb: info.verb,
    method: ctx.res.req.method ?? 'GET',
    namespace: namespaceOf(ctx) ?? '',
    name: info.name,
    subresource: info.subresource,
    subpath: info.parts.slice(3).join('/'),
    query: ctx.query,
    headers: ctx.headers,
    body: ctx.body,
    contentType: ctx.contentType,
    dryRun: write.dryRun,
    warnings: ctx.warnings,
    decodedBody() {
      if (!ctx.body || ctx.body.length === 0) return undefined;
      decoded ??= ctx.decoded ?? decodeValue(ctx.body, ctx.contentType ?? 'application/json');
      return decoded.value;
    },
    object(): ApiObject {
      if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
      const obj = decodeObject(deps.registry, t, ctx.body, ctx.contentType ?? 'application/json', write.fieldValidation, ctx.warnings, ctx.decoded);
      setNamespace(t, obj, info.namespace);
      deps.registry.defaults(t.served, obj);
      const errs = deps.registry.validate(t.served, obj);
      if (errs.length) throw invalid(t.kind, t.gr.group, obj.metadata.name ?? '', errs);
      return obj;
    },
  };
}

function restCluster(ctx: RequestContext, deps: HandlerDeps, targets: Targets): RestCluster {
  const { reader, store } = deps;
  const targetOf = (group: string, resource: string): Target => {
    const t = targets.preferred(group, resource);
    if (!t) throw notFound({ group, resource }, '');
    return t;
  };
  const writeOf = (w: ClusterWrite): WriteRequest => {
    const t = targetOf(w.group, w.resource);
    const req: WriteRequest = {
      target: t,
      user: ctx.user,
      namespace: t.namespaced ? w.namespace : undefined,
      name: w.name,
      dryRun: w.dryRun ?? false,
      warnings: ctx.warnings,
      manager: managerOf(ctx),
      deadline: ctx.deadline,
    };
    if (w.subresource) req.subresource = w.subresource;
    if (w.admit === false) req.admit = false;
    return req;
  };
  const own = writeRequest(ctx, parseWriteOptions(ctx.query, ctx.info.verb).dryRun);
  return {
    async get(group, resource, namespace, name) {
      const t = targetOf(group, resource);
      const o = await reader.lookup(t.storage.group, t.storage.resource, t.namespaced ? namespace : undefined, name, ctx.deadline);
      if (!o) return o;
      return t.convertOut ? servedAsync(t, o) : served(t, o);
    },
    async list(group, resource, namespace) {
      const t = targetOf(group, resource);
      const all = await reader.lookupAll(t.storage.group, t.storage.resource, namespace, ctx.deadline);
      return t.convertOut ? t.convertOut(all) : all.map((o) => served(t, o));
    },
    update: (w, compute, rv) => store.update(writeOf(w), compute, rv ? Number(rv) : undefined),
    delete: async (w, preconditions) => (await store.delete(writeOf(w), preconditions ? { preconditions } : {})).object,
    admit: (phase, operation, object, oldObject, kind) => store.admit(own, phase, operation, object, oldObject, kind),
    authn: deps.services.authn,
    authz: deps.services.authz,
    servesGroup: (group) => deps.registry.group(group) !== undefined,
    hijack() {
      if (ctx.res.headersSent) throw serviceUnavailable('the response was already started');
      ctx.hijack();
      return ctx.res;
    },
  };
}
