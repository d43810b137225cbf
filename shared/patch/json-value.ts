// Helpers for handling decoded JSON that came from a client. Patches are hostile input: keys such
// as `__proto__` and `constructor` must stay plain data, so every read checks own properties and
// every write of `__proto__` defines a property instead of assigning (assignment would replace
// the object's prototype).

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasOwn(o: JsonObject, key: string): boolean {
  return Object.hasOwn(o, key);
}

// One rule for client-chosen keys across the API machinery (see shared/api/own-keys.ts).
import { cloneJson, getOwn, setOwn } from '../api/own-keys.js';
export { cloneJson, getOwn, setOwn };

/** JSON equality: member order does not matter, types do (`10` is not `"10"`), undefined members are absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    // An `undefined` member is absent, as JSON.stringify has it (objects built in code carry them).
    let n = 0;
    for (const k of Object.keys(a)) {
      if (a[k] === undefined) continue;
      n++;
      if (!Object.hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
    }
    for (const k of Object.keys(b)) if (b[k] !== undefined) n--;
    return n === 0;
  }
  return false;
}

/** A short rendering of a value for error messages (a hostile value may be megabytes). */
export function preview(v: unknown, max = 120): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max)}...` : s;
}
