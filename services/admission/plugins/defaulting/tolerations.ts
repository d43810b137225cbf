// Merging two toleration lists without redundancy (upstream's util/tolerations MergeTolerations):
// a toleration another one already covers is dropped, so adding a runtime class's tolerations
// to a pod's never leaves both `key=k:NoSchedule` and `key=k` (any effect).

import type { Json } from './json.js';

interface Toleration {
  key: string;
  operator: string;
  value: string;
  effect: string;
  tolerationSeconds: number | undefined;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function read(t: Json): Toleration {
  return {
    key: text(t.key),
    operator: text(t.operator),
    value: text(t.value),
    effect: text(t.effect),
    tolerationSeconds: typeof t.tolerationSeconds === 'number' ? t.tolerationSeconds : undefined,
  };
}

function same(a: Toleration, b: Toleration): boolean {
  return a.key === b.key && a.operator === b.operator && a.value === b.value && a.effect === b.effect && a.tolerationSeconds === b.tolerationSeconds;
}

/** Whether `ss` tolerates everything `t` tolerates. */
function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (same(ss, t)) return true;
  // An empty key with Exists matches every key.
  if (t.key !== ss.key && (ss.key !== '' || ss.operator !== 'Exists')) return false;
  // An empty effect matches every effect.
  if (t.effect !== ss.effect && ss.effect !== '') return false;
  // A NoExecute toleration that lapses covers only ones that lapse no later.
  if (ss.effect === 'NoExecute' && ss.tolerationSeconds !== undefined) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ss.operator) {
    case 'Equal':
    case '':
      return t.operator === 'Equal' && t.value === ss.value;
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** `first` then `second`, each toleration kept unless another one (kept or later) covers it; of equal ones the first. */
export function mergeTolerations(first: readonly Json[], second: readonly Json[]): Json[] {
  const all = [...first, ...second];
  const parsed = all.map(read);
  const merged: number[] = [];
  next: for (let i = 0; i < all.length; i++) {
    const t = parsed[i]!;
    for (const j of merged) if (isSuperset(parsed[j]!, t)) continue next;
    for (let j = i + 1; j < all.length; j++) {
      if (!same(t, parsed[j]!) && isSuperset(parsed[j]!, t)) continue next;
    }
    merged.push(i);
  }
  return merged.map((i) => all[i]!);
}
