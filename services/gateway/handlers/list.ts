// LIST: one page of a collection from the watch cache, at the revision the read plan asks for.

import { parseListOptions } from '../../../shared/api/query.js';
import { planList } from '../../../shared/store/read-plan.js';
import { convertCached } from '../../../shared/store/watch-conversion.js';
import { objectFilter } from '../reads/selectors.js';
import { namespaceOf, type Handler } from './context.js';

export const list: Handler = async (ctx, { reader, features }) => {
  const t = ctx.target;
  const lo = parseListOptions(ctx.query);
  // APIListChunking off: upstream's storage pages no more, so `limit` and `continue` are ignored
  // (no 400 for a continue token beside a resourceVersion either) and the whole list comes back.
  if (!features.enabled('APIListChunking')) {
    delete lo.limit;
    delete lo.continue;
  }
  const plan = planList(lo);
  await reader.settle(plan);
  const namespace = namespaceOf(ctx);
  const filter = objectFilter(t, namespace, lo.labelSelector, lo.fieldSelector);
  const limit = lo.limit && lo.limit > 0 ? lo.limit : Infinity;
  const page = reader.page(t, plan, namespace, filter, limit, Boolean(lo.labelSelector || lo.fieldSelector));
  if (!features.enabled('RemainingItemCount')) delete page.metadata.remainingItemCount;
  // Through a conversion webhook: the whole page in one ConversionReview, as upstream sends it.
  const items = t.convertOut ? await convertCached(page.items, t.convertOut) : page.items;
  return { code: 200, body: { kind: 'list', apiVersion: t.apiVersion, listKind: t.listKind, metadata: page.metadata, items, transform: t.convertOut ? null : t.fromStored } };
};
