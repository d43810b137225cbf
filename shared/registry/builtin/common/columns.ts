// Table column helpers: the `Age` column and kubectl's short human durations, plus small cell
// formatters the built-in types' columns share.

import type { ApiObject } from '../../../api/types.js';
import type { TableColumn } from '../../../api/table-column.js';
import { asArray, asObject, at } from './field-errors.js';

/** kubectl's HumanDuration: "5s", "3m20s", "5h", "3d4h", "2y"... */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60 * 2) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 60 * 3) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24)}d`;
  if (h < 24 * 365 * 8) {
    const days = Math.floor(h / 24);
    const y = Math.floor(days / 365);
    return days % 365 === 0 ? `${y}y` : `${y}y${days % 365}d`;
  }
  return `${Math.floor(h / 24 / 365)}y`;
}

/** Age of a timestamp as a table cell (`<unknown>` when absent, like kubectl). */
export function since(ts: unknown, now = Date.now()): string {
  if (typeof ts !== 'string' || !ts) return '<unknown>';
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration((now - t) / 1000);
}

export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (o) => since(o.metadata.creationTimestamp),
};

/** A column reading one field, `<none>` when it is empty. */
export function fieldColumn(name: string, path: string, opts: { type?: TableColumn['type']; priority?: number; description?: string; empty?: string } = {}): TableColumn {
  const col: TableColumn = {
    name,
    type: opts.type ?? 'string',
    cell: (o: ApiObject) => {
      const v = at(o, path);
      if (v === undefined || v === null || v === '') return opts.type === 'integer' ? 0 : (opts.empty ?? '<none>');
      return v;
    },
  };
  if (opts.priority !== undefined) col.priority = opts.priority;
  if (opts.description) col.description = opts.description;
  return col;
}

export function joinList(v: unknown, empty = '<none>'): string {
  const items = asArray(v).filter((x) => x !== undefined && x !== null && x !== '');
  return items.length ? items.map(String).join(',') : empty;
}

/** `k=v,k2=v2` of a label selector, as kubectl prints selectors. */
export function selectorString(sel: unknown): string {
  const s = asObject(sel);
  if (!s) return '<none>';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(asObject(s.matchLabels) ?? {})) parts.push(`${k}=${String(v)}`);
  for (const e of asArray(s.matchExpressions)) {
    const ex = asObject(e) ?? {};
    const vals = asArray(ex.values).map(String).join(',');
    if (ex.operator === 'In') parts.push(`${String(ex.key)} in (${vals})`);
    else if (ex.operator === 'NotIn') parts.push(`${String(ex.key)} notin (${vals})`);
    else if (ex.operator === 'Exists') parts.push(String(ex.key));
    else if (ex.operator === 'DoesNotExist') parts.push(`!${String(ex.key)}`);
  }
  return parts.length ? parts.join(',') : '<none>';
}

/** Container names and images of a pod template, for `-o wide` columns. */
export function templateContainers(template: unknown): { names: string; images: string } {
  const cs = asArray(at(template, 'spec.containers')).map((c) => asObject(c) ?? {});
  return { names: cs.map((c) => String(c.name ?? '')).join(','), images: cs.map((c) => String(c.image ?? '')).join(',') };
}
