// DELETE of one object and DELETE of a collection: DeleteOptions from query and body, then the
// generic store's deletion state machine. The answers are upstream's handlers': a deletion that
// only started (finalizers, a grace period) answers the object as it now stands, 202 when the
// client asked `orphanDependents: false`; one done at once answers the deleted object for the
// types whose upstream registry returns it (`returnDeletedObject`), a success Status otherwise. A
// collection's deletion answers the list of what it deleted, paged as a list is.

import { parseDeleteOptions } from '../../../shared/api/query.js';
import { successStatus, type Status } from '../../../shared/api/status.js';
import { value } from '../../../shared/codec/index.js';
import type { DeleteResult } from '../../../shared/registry/rest/store-types.js';
import { decodeDeleteOptions } from './decode.js';
import { listBody, readPage } from './list.js';
import { writeRequest, type Handler, type Reply, type RequestContext } from './context.js';

function deleteOptions(ctx: RequestContext): ReturnType<typeof parseDeleteOptions> {
  const body = ctx.body && ctx.body.length ? decodeDeleteOptions(ctx.body, ctx.contentType, ctx.decoded) : undefined;
  return parseDeleteOptions(ctx.query, body);
}

export const remove: Handler = async (ctx, { store }) => {
  const opts = deleteOptions(ctx);
  return deleteReply(ctx, await store.delete(writeRequest(ctx, opts.dryRun), opts), opts.orphanDependents);
};

/**
 * Upstream's delete handler answers 202 only for a deletion not done at once that asked
 * `orphanDependents: false` (its compatibility rule); every other answer is 200.
 */
function deleteReply(ctx: RequestContext, result: DeleteResult, orphanDependents: boolean | undefined): Reply {
  const t = ctx.target;
  if (!result.removed) return { code: orphanDependents === false ? 202 : 200, body: value(result.object) };
  if (t.type.returnDeletedObject) return { code: 200, body: value(result.object) };
  const details: Status['details'] = { name: ctx.info.name, group: t.gr.group, kind: t.type.plural };
  if (result.object.metadata.uid) details.uid = result.object.metadata.uid;
  return { code: 200, body: value(successStatus(details)) };
}

export const removeCollection: Handler = async (ctx, deps) => {
  const opts = deleteOptions(ctx);
  const { page, deadline } = await readPage(ctx, deps);
  await deps.store.deleteCollection(writeRequest(ctx, opts.dryRun, ''), page.items, opts, deadline);
  return { code: 200, body: await listBody(ctx.target, page) };
};
