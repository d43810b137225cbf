// Reading a nested field of a JSON object by dotted path (`spec.replicas`, or `.spec.replicas`
// as subresource definitions write it), without throwing on missing parents. The path may come
// from a CustomResourceDefinition, so only own members are read: `.spec.__proto__` or
// `.spec.constructor` name fields of the object, never Object.prototype or its constructor.

import { getOwn } from './own-keys.js';

export function at(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const k of (path.startsWith('.') ? path.slice(1) : path).split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = getOwn(cur as Record<string, unknown>, k);
  }
  return cur;
}
