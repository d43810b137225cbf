// LIST: one page of a collection from the watch cache, at the revision the read plan asks for.
// deletecollection reads its victims the same way and answers the same list.

import { parseListOptions } from '../../../shared/api/query.js';
import { planList } from '../../../shared/store/read-plan.js';
import { convertCached } from '../../../shared/store/watch-conversion.js';
import type { Body } from '../../../shared/codec/index.js';
import type { Target } from '../../../shared/registry/types.js';
import { objectFilter } from '../reads/selectors.js';
import type { ListPage } from '../reads/reader.js';
import { requestDeadline, waitDeadline } from './deadline.js';
import { namespaceOf, type Handler, type HandlerDeps, type RequestContext } from './context.js';

/** A page of the addressed collection and the request's deadline (epoch ms; `timeoutSeconds`). */
export interface CollectionPage {
  page: ListPage;
  deadline: number;
}

/** The page a list (or deletecollection) request asks for: list options, read plan settled before the deadline, selectors, limit and continue. */
export async function readPage(ctx: RequestContext, { reader, features }: Pick<HandlerDeps, 'reader' | 'features'>): Promise<CollectionPage> {
  const t = ctx.target;
  const lo = parseListOptions(ctx.query);
  const deadline = requestDeadline(lo.timeoutSeconds, Date.now());
  // APIListChunking off: upstream's storage pages no more, so `limit` and `continue` are ignored
  // (no 400 for a continue token beside a resourceVersion either) and the whole list comes back.
  if (!features.enabled('APIListChunking')) {
    delete lo.limit;
    delete lo.continue;
  }
  const plan = planList(lo);
  await reader.settle(plan, waitDeadline(ctx.deadline, deadline));
  const namespace = namespaceOf(ctx);
  // The page reads the namespace's key range itself: the filter is the selectors' alone, so a
  // list without selectors counts what remains by its keys instead of walking the rest of it.
  const filter = objectFilter(t, undefined, lo.labelSelector, lo.fieldSelector);
  const limit = lo.limit && lo.limit > 0 ? lo.limit : Infinity;
  const page = reader.page(t, plan, namespace, filter, limit, Boolean(lo.labelSelector || lo.fieldSelector));
  if (!features.enabled('RemainingItemCount')) delete page.metadata.remainingItemCount;
  return { page, deadline };
}

/** A page as the `<Kind>List` of the served version; through a conversion webhook the whole page in one ConversionReview, as upstream sends it. */
export async function listBody(t: Target, page: ListPage): Promise<Body> {
  const items = t.convertOut ? await convertCached(page.items, t.convertOut) : page.items;
  return { kind: 'list', apiVersion: t.apiVersion, listKind: t.listKind, metadata: page.metadata, items, transform: t.convertOut ? null : t.fromStored };
}

export const list: Handler = async (ctx, deps) => {
  const { page } = await readPage(ctx, deps);
  return { code: 200, body: await listBody(ctx.target, page) };
};
