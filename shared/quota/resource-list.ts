// Resource lists (`{cpu: "500m", pods: "3"}`) as quota arithmetic sees them, after upstream's
// pkg/quota/v1 helpers: add, subtract, mask, compare, and the `a=1,b=2` spelling its messages use.

import { parseQuantity, Quantity } from '../api/quantity.js';

export type ResourceList = Record<string, Quantity>;

/** A JSON resource map read as quantities; entries that are not quantities are left out. */
export function toResourceList(raw: unknown): ResourceList {
  const out: ResourceList = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const q = parseQuantity(v);
    if (q) out[k] = q;
  }
  return out;
}

/** The canonical JSON spelling of a list, keys sorted. */
export function resourceListJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(list).sort()) out[k] = list[k]!.toString();
  return out;
}

export function resourceNames(list: ResourceList): string[] {
  return Object.keys(list);
}

export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = out[k] ? out[k]!.add(v) : v;
  return out;
}

/** a - b for a's keys; a key of b missing from a is subtracted from zero. */
export function subtractLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? Quantity.zero(v.format)).sub(v);
  return out;
}

/** a - b clamped at zero; keys only in b are zero (upstream's SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    const d = b[k] ? v.sub(b[k]!) : v;
    out[k] = d.sign() < 0 ? Quantity.zero(v.format) : d;
  }
  for (const [k, v] of Object.entries(b)) if (!(k in out)) out[k] = Quantity.zero(v.format);
  return out;
}

/** For each key the larger value. */
export function maxLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) if (!out[k] || out[k]!.cmp(v) <= 0) out[k] = v;
  return out;
}

/** Only the named keys. */
export function maskList(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {};
  for (const n of names) if (list[n]) out[n] = list[n]!;
  return out;
}

export function removeZeros(list: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(list)) if (!v.isZero()) out[k] = v;
  return out;
}

export function negativeNames(list: ResourceList): string[] {
  return Object.entries(list)
    .filter(([, v]) => v.sign() < 0)
    .map(([k]) => k);
}

/** Whether every key of b that a also has is no larger in a; the keys where it is larger. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { ok: boolean; exceeded: string[] } {
  const exceeded = Object.keys(b).filter((k) => a[k] && a[k]!.cmp(b[k]!) > 0);
  return { ok: exceeded.length === 0, exceeded };
}

export function equalLists(a: ResourceList, b: ResourceList): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => b[k] !== undefined && a[k]!.cmp(b[k]!) === 0);
}

/** `limits.cpu=1,pods=2`, keys sorted (upstream's prettyPrint). */
export function prettyPrint(list: ResourceList): string {
  return Object.keys(list)
    .sort()
    .map((k) => `${k}=${list[k]!.toString()}`)
    .join(',');
}

export function prettyPrintNames(names: Iterable<string>): string {
  return [...new Set(names)].sort().join(',');
}
