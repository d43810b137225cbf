// Reading a nested field of a JSON object by dotted path (`spec.replicas`, or `.spec.replicas`
// as subresource definitions write it), without throwing on missing parents.

export function at(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const k of (path.startsWith('.') ? path.slice(1) : path).split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}
