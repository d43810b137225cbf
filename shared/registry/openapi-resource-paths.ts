// Every path of one served resource, dialect-neutral: collection, item, all-namespaces, the
// deprecated watch paths and subresources, with upstream's operationIds, tags, parameters and
// `x-kubernetes-action`s.

import { resourceVerbs, subresourcesOf } from './discovery.js';
import type { GroupVersionKindRef, ServedResource, SubresourceInfo } from './discovery.js';
import { STATUS_DEF, WATCH_EVENT_DEF, definitionName } from './openapi-definitions.js';
import {
  CONNECT_SUBRESOURCES,
  DELETE_COLLECTION_PARAMS,
  DRY_RUN,
  FIELD_MANAGER,
  FIELD_VALIDATION,
  FORCE,
  GRACE_PERIOD,
  LIST_PARAMS,
  LOG_PARAMS,
  NAMESPACE,
  OK_CODES,
  ORPHAN,
  PRETTY,
  PROPAGATION,
  capitalize,
  groupCamel,
  gvkKey,
  listKindOf,
  nameParam,
  responses,
  tagOf,
} from './openapi-operations.js';
import type { Method, Operation, Param, PathSpec } from './openapi-operations.js';

/** What every path of one served resource is built from: its names, URLs and shared parameters. */
interface ResourceContext {
  served: ServedResource;
  kind: string;
  verbs: Set<string>;
  namespaced: boolean;
  /** `Namespaced` in the operationIds of a namespaced resource's scoped operations, else ''. */
  scope: string;
  /** `<GroupCamel><Version>`, the part of every operationId that names the group version. */
  base: string;
  tag: string;
  gvk: GroupVersionKindRef;
  objDef: string;
  listDef: string | undefined;
  prefix: string;
  nsSeg: string;
  nsParams: Param[];
  itemParams: Param[];
  writeParams: Param[];
}

function resourceContext(served: ServedResource, defByGvk: Map<string, string>): ResourceContext {
  const { type, group } = served;
  const version = served.version.name;
  const kind = type.kind;
  const namespaced = type.scope === 'Namespaced';
  const nsParams = namespaced ? [NAMESPACE] : [];
  return {
    served,
    kind,
    verbs: new Set(resourceVerbs(type)),
    namespaced,
    scope: namespaced ? 'Namespaced' : '',
    base: `${groupCamel(group)}${capitalize(version)}`,
    tag: tagOf(group, version),
    gvk: { group, version, kind },
    objDef: definitionName(type.group, version, kind),
    listDef: defByGvk.get(gvkKey({ group, version, kind: listKindOf(served) })),
    prefix: group ? `/apis/${group}/${version}` : `/api/${version}`,
    nsSeg: namespaced ? 'namespaces/{namespace}/' : '',
    nsParams,
    itemParams: [nameParam(kind), ...nsParams, PRETTY],
    writeParams: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
  };
}

function op(ctx: ResourceContext, o: Omit<Operation, 'tag' | 'gvk'> & { gvk?: GroupVersionKindRef }): Operation {
  return { tag: ctx.tag, gvk: ctx.gvk, ...o };
}

function collectionPathOf(ctx: ResourceContext): string {
  return `${ctx.prefix}/${ctx.nsSeg}${ctx.served.type.plural}`;
}

/** Every path of one served resource: collection, item, all-namespaces, watch and subresources. */
export function resourcePaths(served: ServedResource, defByGvk: Map<string, string>): PathSpec[] {
  const ctx = resourceContext(served, defByGvk);
  const specs: PathSpec[] = [];
  const collection = collectionPath(ctx);
  if (collection) specs.push(collection);
  const item = itemPath(ctx);
  if (item) specs.push(item);
  if (ctx.namespaced && ctx.verbs.has('list')) specs.push(allNamespacesListPath(ctx));
  if (ctx.verbs.has('watch')) specs.push(...watchPaths(ctx));
  for (const sub of subresourcesOf(served)) {
    const spec = subresourcePath(ctx, sub, defByGvk);
    if (spec) specs.push(spec);
  }
  return specs;
}

function collectionPath(ctx: ResourceContext): PathSpec | undefined {
  const { verbs, base, scope, kind, objDef } = ctx;
  const collOps: Operation[] = [];
  if (verbs.has('list')) {
    collOps.push(
      op(ctx, {
        method: 'get',
        operationId: `list${base}${scope}${kind}`,
        action: 'list',
        description: `list or watch objects of kind ${kind}`,
        params: LIST_PARAMS,
        responses: responses([200], ctx.listDef),
        produces: 'stream',
      }),
    );
  }
  if (verbs.has('create')) {
    collOps.push(
      op(ctx, {
        method: 'post',
        operationId: `create${base}${scope}${kind}`,
        action: 'post',
        description: `create a ${kind}`,
        params: ctx.writeParams,
        body: { kind: 'object', def: objDef },
        responses: responses(OK_CODES.create, objDef),
        produces: 'object',
      }),
    );
  }
  if (verbs.has('deletecollection')) {
    collOps.push(
      op(ctx, {
        method: 'delete',
        operationId: `delete${base}Collection${scope}${kind}`,
        action: 'deletecollection',
        description: `delete collection of ${kind}`,
        params: DELETE_COLLECTION_PARAMS,
        body: { kind: 'delete' },
        responses: responses([200], STATUS_DEF),
        produces: 'object',
      }),
    );
  }
  return collOps.length ? { path: collectionPathOf(ctx), params: [...ctx.nsParams, PRETTY], ops: collOps } : undefined;
}

function itemPath(ctx: ResourceContext): PathSpec | undefined {
  const { verbs, base, scope, kind, objDef } = ctx;
  const itemOps: Operation[] = [];
  if (verbs.has('get')) {
    itemOps.push(
      op(ctx, {
        method: 'get',
        operationId: `read${base}${scope}${kind}`,
        action: 'get',
        description: `read the specified ${kind}`,
        params: [],
        responses: responses(OK_CODES.read, objDef),
        produces: 'object',
      }),
    );
  }
  if (verbs.has('update')) {
    itemOps.push(
      op(ctx, {
        method: 'put',
        operationId: `replace${base}${scope}${kind}`,
        action: 'put',
        description: `replace the specified ${kind}`,
        params: ctx.writeParams,
        body: { kind: 'object', def: objDef },
        responses: responses(OK_CODES.replace, objDef),
        produces: 'object',
      }),
    );
  }
  if (verbs.has('patch')) {
    itemOps.push(
      op(ctx, {
        method: 'patch',
        operationId: `patch${base}${scope}${kind}`,
        action: 'patch',
        description: `partially update the specified ${kind}`,
        params: [...ctx.writeParams, FORCE],
        body: { kind: 'patch' },
        responses: responses(OK_CODES.patch, objDef),
        produces: 'object',
      }),
    );
  }
  if (verbs.has('delete')) {
    itemOps.push(
      op(ctx, {
        method: 'delete',
        operationId: `delete${base}${scope}${kind}`,
        action: 'delete',
        description: `delete a ${kind}`,
        params: [DRY_RUN, GRACE_PERIOD, ORPHAN, PROPAGATION],
        body: { kind: 'delete' },
        // Upstream declares what the handler answers: the deleted object where its store returns it.
        responses: responses(OK_CODES.delete, ctx.served.type.returnDeletedObject ? objDef : STATUS_DEF),
        produces: 'object',
      }),
    );
  }
  return itemOps.length ? { path: `${collectionPathOf(ctx)}/{name}`, params: ctx.itemParams, ops: itemOps } : undefined;
}

function allNamespacesListPath(ctx: ResourceContext): PathSpec {
  const { base, kind } = ctx;
  return {
    path: `${ctx.prefix}/${ctx.served.type.plural}`,
    params: [PRETTY],
    ops: [
      op(ctx, {
        method: 'get',
        operationId: `list${base}${kind}ForAllNamespaces`,
        action: 'list',
        description: `list or watch objects of kind ${kind}`,
        params: LIST_PARAMS,
        responses: responses([200], ctx.listDef),
        produces: 'stream',
      }),
    ],
  };
}

function watchPaths(ctx: ResourceContext): PathSpec[] {
  const { base, scope, kind, prefix, nsSeg } = ctx;
  const plural = ctx.served.type.plural;
  const watchOp = (operationId: string, action: string, description: string) =>
    op(ctx, { method: 'get', operationId, action, description, params: LIST_PARAMS, responses: responses([200], WATCH_EVENT_DEF), produces: 'stream' });
  const specs: PathSpec[] = [];
  specs.push({
    path: `${prefix}/watch/${nsSeg}${plural}`,
    params: [...ctx.nsParams, PRETTY],
    ops: [watchOp(`watch${base}${scope}${kind}List`, 'watchlist', `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`)],
  });
  specs.push({
    path: `${prefix}/watch/${nsSeg}${plural}/{name}`,
    params: ctx.itemParams,
    ops: [
      watchOp(
        `watch${base}${scope}${kind}`,
        'watch',
        `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
      ),
    ],
  });
  if (ctx.namespaced) {
    specs.push({
      path: `${prefix}/watch/${plural}`,
      params: [PRETTY],
      ops: [watchOp(`watch${base}${kind}ListForAllNamespaces`, 'watchlist', `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`)],
    });
  }
  return specs;
}

/** A subresource's operations share the resource's tag, and carry the subresource's own kind. */
interface SubresourceContext {
  sub: SubresourceInfo;
  /** The subresource's name capitalised, the last part of its operationIds. */
  Sub: string;
  subDef: string | undefined;
  sop: (o: Omit<Operation, 'tag' | 'gvk'>) => Operation;
}

function subresourcePath(ctx: ResourceContext, sub: SubresourceInfo, defByGvk: Map<string, string>): PathSpec | undefined {
  const { group, version } = ctx.gvk;
  const subGvk = sub.group || sub.version ? { group: sub.group, version: sub.version, kind: sub.kind } : { group, version, kind: sub.kind };
  const sctx: SubresourceContext = {
    sub,
    Sub: capitalize(sub.name),
    subDef: defByGvk.get(gvkKey(subGvk)),
    sop: (o) => ({ tag: ctx.tag, gvk: subGvk, ...o }),
  };
  const subOps = CONNECT_SUBRESOURCES.has(sub.name) ? connectOps(ctx, sctx) : subresourceOps(ctx, sctx);
  return subOps.length ? { path: `${collectionPathOf(ctx)}/{name}/${sub.name}`, params: ctx.itemParams, ops: subOps } : undefined;
}

function connectOps(ctx: ResourceContext, { sub, Sub, sop }: SubresourceContext): Operation[] {
  const { base, scope, kind } = ctx;
  const methods: Array<[string, Method]> = [
    ['get', 'get'],
    ['create', 'post'],
    ['update', 'put'],
    ['patch', 'patch'],
    ['delete', 'delete'],
  ];
  const subOps: Operation[] = [];
  for (const [verb, method] of methods) {
    if (!sub.verbs.includes(verb)) continue;
    subOps.push(
      sop({
        method,
        operationId: `connect${capitalize(method)}${base}${scope}${kind}${Sub}`,
        action: 'connect',
        description: `connect ${method.toUpperCase()} requests to ${sub.name} of ${kind}`,
        params: [],
        responses: responses([200], undefined, true),
        produces: 'text',
      }),
    );
  }
  return subOps;
}

function subresourceOps(ctx: ResourceContext, { sub, Sub, subDef, sop }: SubresourceContext): Operation[] {
  const { base, scope, kind, writeParams } = ctx;
  const subOps: Operation[] = [];
  const isLog = sub.name === 'log';
  if (sub.verbs.includes('get')) {
    subOps.push(
      sop({
        method: 'get',
        operationId: `read${base}${scope}${kind}${Sub}`,
        action: 'get',
        description: `read ${sub.name} of the specified ${kind}`,
        params: isLog ? LOG_PARAMS : [],
        responses: responses(OK_CODES.read, isLog ? undefined : subDef, isLog),
        produces: isLog ? 'text' : 'object',
      }),
    );
  }
  if (sub.verbs.includes('create')) {
    subOps.push(
      sop({
        method: 'post',
        operationId: `create${base}${scope}${kind}${Sub}`,
        action: 'post',
        description: `create ${sub.name} of a ${kind}`,
        params: writeParams,
        body: { kind: 'object', def: subDef },
        responses: responses(OK_CODES.create, subDef),
        produces: 'object',
      }),
    );
  }
  if (sub.verbs.includes('update')) {
    subOps.push(
      sop({
        method: 'put',
        operationId: `replace${base}${scope}${kind}${Sub}`,
        action: 'put',
        description: `replace ${sub.name} of the specified ${kind}`,
        params: writeParams,
        body: { kind: 'object', def: subDef },
        responses: responses(OK_CODES.replace, subDef),
        produces: 'object',
      }),
    );
  }
  if (sub.verbs.includes('patch')) {
    subOps.push(
      sop({
        method: 'patch',
        operationId: `patch${base}${scope}${kind}${Sub}`,
        action: 'patch',
        description: `partially update ${sub.name} of the specified ${kind}`,
        params: [...writeParams, FORCE],
        body: { kind: 'patch' },
        responses: responses(OK_CODES.patch, subDef),
        produces: 'object',
      }),
    );
  }
  if (sub.verbs.includes('delete')) {
    subOps.push(
      sop({
        method: 'delete',
        operationId: `delete${base}${scope}${kind}${Sub}`,
        action: 'delete',
        description: `delete ${sub.name} of a ${kind}`,
        params: [DRY_RUN, GRACE_PERIOD, ORPHAN, PROPAGATION],
        body: { kind: 'delete' },
        responses: responses(OK_CODES.delete, STATUS_DEF),
        produces: 'object',
      }),
    );
  }
  return subOps;
}
