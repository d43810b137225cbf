// DELETE of one object and DELETE of a collection: DeleteOptions from query and body, then the
// generic store's deletion state machine.

import { parseDeleteOptions, parseListOptions } from '../../../shared/api/query.js';
import { successStatus, type Status } from '../../../shared/api/status.js';
import { planList } from '../../../shared/store/read-plan.js';
import { value } from '../../../shared/codec/index.js';
import { objectFilter } from '../reads/selectors.js';
import { decodeDeleteOptions } from './decode.js';
import { namespaceOf, writeRequest, type Handler, type RequestContext } from './context.js';

function deleteOptions(ctx: RequestContext): ReturnType<typeof parseDeleteOptions> {
  const body = ctx.body && ctx.body.length ? decodeDeleteOptions(ctx.body, ctx.contentType, ctx.decoded) : undefined;
  return parseDeleteOptions(ctx.query, body);
}

export const remove: Handler = async (ctx, { store }) => {
  const t = ctx.target;
  const opts = deleteOptions(ctx);
  const result = await store.delete(writeRequest(ctx, opts.dryRun), opts);
  // An object that waits for finalizers is returned as it now stands; a removed one as a Status.
  if (!result.removed) return { code: 200, body: value(result.object) };
  const details: Status['details'] = { name: ctx.info.name, group: t.gr.group, kind: t.type.plural };
  if (result.object.metadata.uid) details.uid = result.object.metadata.uid;
  return { code: 200, body: value(successStatus(details)) };
};

export const removeCollection: Handler = async (ctx, { store, reader }) => {
  const t = ctx.target;
  const lo = parseListOptions(ctx.query);
  const opts = deleteOptions(ctx);
  await reader.settle(planList({ resourceVersion: lo.resourceVersion, resourceVersionMatch: lo.resourceVersionMatch }));
  const namespace = namespaceOf(ctx);
  const filter = objectFilter(t, namespace, lo.labelSelector, lo.fieldSelector);
  const victims = reader.cache.current(t.cacheKey).filter((o) => (!namespace || o.ref.namespace === namespace) && (!filter || filter(o.object)));
  await store.deleteCollection(writeRequest(ctx, opts.dryRun, ''), victims, opts);
  return { code: 200, body: value(successStatus()) };
};
