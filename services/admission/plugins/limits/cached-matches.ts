// Whether any cached object of a kind has some property (a LimitRange bounding claims, a quota
// limiting what updates change), kept up to date per cache event, so that a plugin's match can
// leave out operations nothing would act on. Until the cache has synced the answer is "maybe".

import type { ApiObject } from '../../../../shared/api/types.js';
import type { ObjectCache } from '../../object-cache.js';

export interface CachedMatches {
  /** Not yet known, or some cached object has the property. */
  possible(): boolean;
  stop(): void;
}

export function cachedMatches(cache: ObjectCache, has: (o: ApiObject) => boolean): CachedMatches {
  const matching = new Set<string>();
  const track = (key: string, o: ApiObject | null) => (o && has(o) ? matching.add(key) : matching.delete(key));
  cache.onChange((e) => track(`${e.ref.namespace}/${e.ref.name}`, e.object));
  for (const o of cache.list()) track(`${o.metadata.namespace}/${o.metadata.name}`, o);
  let synced = false;
  let stopped = false;
  const awaitSync = (): void =>
    void cache.ready().then(
      () => (synced = true),
      () => (stopped ? undefined : awaitSync()),
    );
  awaitSync();
  return {
    possible: () => !synced || matching.size > 0,
    stop: () => void (stopped = true),
  };
}
