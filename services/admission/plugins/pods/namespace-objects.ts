// The stored Namespace objects (their annotations steer PodNodeSelector and
// PodTolerationRestriction), read from the shared cache with one live read on a miss, as
// upstream's plugins fall back to the API when their informer has not seen a namespace yet.

import type { ApiObject } from '../../../../shared/api/types.js';
import type { ObjectCache } from '../../object-cache.js';

/** One namespace; null when it does not exist. */
export type NamespaceReader = (name: string) => Promise<ApiObject | null>;

export function namespaceReader(cache: ObjectCache): NamespaceReader {
  return async (name) => {
    await cache.ready();
    return cache.lookup(undefined, name);
  };
}

/** The namespace's annotation; undefined when it has none by that key (an empty value counts). */
export function namespaceAnnotation(ns: ApiObject, key: string): string | undefined {
  const annotations = ns.metadata?.annotations;
  return annotations && Object.hasOwn(annotations, key) ? annotations[key] : undefined;
}
