// WATCH: a chunked response fed by the watch cache, from the revision the read plan gives, with
// the initial state first when asked (streaming lists), bookmarks when asked, and a time limit.

import { tooManyRequests } from '../../../shared/api/status.js';
import { escapeFieldValue } from '../../../shared/api/fields.js';
import { parseListOptions } from '../../../shared/api/query.js';
import { planWatch } from '../../../shared/store/read-plan.js';
import type { CachedObject } from '../../../shared/codec/cached-object.js';
import { parseIncludeObject, watchEncoder } from '../../../shared/codec/index.js';
import { versionColumns } from '../../../shared/registry/version-parts.js';
import { objectFilter } from '../reads/selectors.js';
import { responseSink } from './watch-sink.js';
import { namespaceOf, warningHeaders, type Handler } from './context.js';

export const watch: Handler = async (ctx, { reader, options, watchBudget, metrics }) => {
  const { target: t, info } = ctx;
  const lo = parseListOptions(ctx.query);
  const plan = planWatch(lo);
  await reader.settle(plan);
  let fieldSelector = lo.fieldSelector;
  if (info.name) {
    const byName = `metadata.name=${escapeFieldValue(info.name)}`;
    fieldSelector = fieldSelector ? `${fieldSelector},${byName}` : byName;
  }
  const filter = objectFilter(t, namespaceOf(ctx), lo.labelSelector, fieldSelector);
  if (watchBudget.spent) throw tooManyRequests('too many watch bytes are waiting for their clients, please try again later', 1);

  let after: number;
  let initial: CachedObject[] | undefined;
  if (plan.initialEvents) {
    after = reader.cache.revision;
    initial = reader.cache.current(t.cacheKey);
  } else {
    after = plan.revision;
  }

  const encoder = watchEncoder(ctx.headers.accept, { columns: versionColumns(t.type, t.served.version), includeObject: parseIncludeObject(ctx.query), noProtobuf: t.type.unstructured === true });
  ctx.hijack();
  const res = ctx.res;
  res.writeHead(200, { 'content-type': encoder.mediaType, 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked', ...warningHeaders(ctx.warnings) });
  res.flushHeaders();
  // Counted per served group, version and kind from here to the end of the response.
  const counted = metrics.watchCells(t);
  counted.watchers.inc();
  if (res.destroyed)
    counted.watchers.dec(); // the client left already: no 'close' is coming
  else ctx.onClose(() => counted.watchers.dec());
  const sink = responseSink(res, watchBudget, options.watchBufferBytes, counted);
  const handle = reader.cache.watch(t.cacheKey, {
    filter,
    // Through a conversion webhook: each event converted before it is sent, in order.
    transform: t.convertOut ? null : t.fromStored,
    convert: t.convertOut,
    afterRevision: after,
    initial,
    initialEventsEnd: plan.initialEventsEndBookmark,
    bookmarks: lo.allowWatchBookmarks ? { apiVersion: t.apiVersion, kind: t.kind } : null,
    encoder,
    sink,
  });
  const seconds = lo.timeoutSeconds && lo.timeoutSeconds > 0 ? Math.min(lo.timeoutSeconds, options.maxWatchSeconds) : (options.maxWatchSeconds * (1 + Math.random())) / 2;
  const timer = setTimeout(() => {
    handle.stop();
    sink.close();
  }, seconds * 1000);
  timer.unref();
  ctx.onClose(() => {
    clearTimeout(timer);
    handle.stop();
  });
  return null;
};
