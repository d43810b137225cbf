// GET of one object (and of its /status or /scale view) from the watch cache.

import { notFound } from '../../../shared/api/status.js';
import { planGet } from '../../../shared/store/read-plan.js';
import { value } from '../../../shared/codec/index.js';
import { toScale } from '../../../shared/registry/rest/scale.js';
import { convertCached } from '../../../shared/store/watch-conversion.js';
import { namespaceOf, servedObject, type Handler } from './context.js';

export const get: Handler = async (ctx, { reader }) => {
  const { target: t, info } = ctx;
  await reader.settle(planGet(ctx.query.get('resourceVersion') ?? undefined), ctx.deadline);
  const o = reader.cache.get(t.cacheKey, namespaceOf(ctx), info.name);
  if (!o) throw notFound(t.gr, info.name);
  if (info.subresource === 'scale') return { code: 200, body: value(toScale(t, await servedObject(ctx, o.object))) };
  // Through a conversion webhook: converted first, then encoded like any cached object.
  if (t.convertOut) return { code: 200, body: { kind: 'stored', object: (await convertCached([o], t.convertOut))[0]!, transform: null } };
  return { code: 200, body: { kind: 'stored', object: o, transform: t.fromStored } };
};
