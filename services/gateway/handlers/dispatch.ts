// Which handler serves a resource request: a type's REST hooks (virtual kinds, create-style and
// connect subresources), else the generic handler of the verb, after checking that the type or
// subresource serves that verb.

import { methodNotSupported, notFound, pathNotFound, routeMethodNotAllowed } from '../../../shared/api/status.js';
import { DEFAULT_VERBS } from '../../../shared/registry/types.js';
import { servedSubresourceVerbs } from '../../../shared/registry/subresources.js';
import { versionColumns } from '../../../shared/registry/version-parts.js';
import { restAction } from '../../../shared/registry/rest/hooks.js';
import type { Targets } from '../../../shared/registry/target.js';
import { parseIncludeObject, responseEncoder, type Convertible } from '../../../shared/codec/index.js';
import { get } from './get.js';
import { list } from './list.js';
import { watch } from './watch.js';
import { create } from './create.js';
import { update } from './update.js';
import { patch } from './patch.js';
import { remove, removeCollection } from './delete.js';
import { serveAction, serveVirtual } from './rest.js';
import type { Handler, HandlerDeps, Reply, RequestContext } from './context.js';

const HANDLERS: Readonly<Record<string, Handler>> = { get, list, watch, create, update, patch, delete: remove, deletecollection: removeCollection };

/** What the response of a generic verb can be converted to (Table, PartialObjectMetadata). */
function convertible(ctx: RequestContext): Convertible {
  const { info, target: t } = ctx;
  return {
    list: info.verb === 'list' || info.verb === 'deletecollection',
    columns: t.type.virtual ? null : info.subresource === 'scale' ? undefined : versionColumns(t.type, t.served.version),
    includeObject: parseIncludeObject(ctx.query),
    noProtobuf: t.type.unstructured === true,
  };
}

/** Negotiates the response before the handler runs, so an unacceptable Accept (406) never follows a write. */
async function negotiated(ctx: RequestContext, run: () => Promise<Reply>): Promise<Reply> {
  const encoder = responseEncoder(ctx.headers.accept, convertible(ctx));
  const r = await run();
  if (r) r.encoder ??= encoder;
  return r;
}

export async function dispatch(ctx: RequestContext, deps: HandlerDeps, targets: Targets): Promise<Reply> {
  const { info, target: t } = ctx;
  const sub = info.subresource;
  if (t.type.virtual) {
    if (sub) throw pathNotFound();
    if (info.verb !== 'create') throw methodNotSupported(t.gr, info.verb);
    return negotiated(ctx, () => serveVirtual(ctx, deps, targets));
  }
  if (sub) {
    const action = restAction(t.type.rest, sub);
    if (action) {
      if (!action.verbs.includes(info.verb)) throw methodNotSupported(t.gr, info.verb);
      return serveAction(action, ctx, deps, targets);
    }
    // The request's version decides: a definition's versions may differ in their subresources.
    const verbs = servedSubresourceVerbs(t.type, sub, t.served.version);
    // A custom resource's unknown subresource is its object not found, as upstream's handler answers.
    if (!verbs) throw t.type.unstructured ? notFound(t.gr, info.name) : pathNotFound();
    if (!verbs.includes(info.verb)) throw methodNotSupported(t.gr, info.verb);
  } else {
    // A collection's routes take GET, POST and DELETE only: upstream's router answers any other method 405.
    if (!info.name && (info.verb === 'patch' || info.verb === 'update')) throw routeMethodNotAllowed();
    const verbs: readonly string[] = t.type.verbs ?? DEFAULT_VERBS;
    if (!verbs.includes(info.verb)) throw methodNotSupported(t.gr, info.verb);
  }
  const handler = Object.hasOwn(HANDLERS, info.verb) ? HANDLERS[info.verb] : undefined;
  if (!handler) throw methodNotSupported(t.gr, info.verb);
  if (handler === watch) return handler(ctx, deps);
  return negotiated(ctx, () => handler(ctx, deps));
}
