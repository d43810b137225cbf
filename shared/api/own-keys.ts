// Reading and writing client-chosen keys on plain objects. Keys such as `__proto__`,
// `constructor` or `toString` are ordinary data in the API: a read must not see inherited
// members, and a write of `__proto__` must define an own property — plain assignment would
// replace the object's prototype and silently drop the key.

/** The own value of `key`; inherited members (`constructor`, `toString`, …) read as absent. */
export function getOwn(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** `o[key] = value`, except that `__proto__` becomes an own, enumerable property. */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    o[key] = value;
  }
}

/**
 * A deep copy, so results never share structure with the caller's inputs. With a `meter`, each
 * object or array charges one unit plus one per member before it is copied, so a copy that would
 * exceed the meter's budget stops early (see shared/patch/limits.ts).
 */
export function cloneJson<T>(v: T, meter?: { charge(units: number): void }): T {
  if (Array.isArray(v)) {
    meter?.charge(1 + v.length);
    return v.map((item) => cloneJson(item, meter)) as T;
  }
  if (typeof v === 'object' && v !== null) {
    const keys = Object.keys(v);
    meter?.charge(1 + keys.length);
    const out: Record<string, unknown> = {};
    for (const k of keys) setOwn(out, k, cloneJson((v as Record<string, unknown>)[k], meter));
    return out as T;
  }
  return v;
}
