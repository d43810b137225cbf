// What every Pod Security check is built from: the shape of a check and of what it finds, reading
// the pod as JSON (core v1: the pod's metadata and spec, or a template's), and upstream's wording
// of the messages.

export type Json = Record<string, unknown>;

/** Why a check forbids a pod: a short reason, and a detail shown when one object is checked. */
export interface Violation {
  reason: string;
  detail: string;
}

export type CheckFn = (meta: Json, spec: Json) => Violation | undefined;

// ---- reading the pod ------------------------------------------------------------------------

export const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

interface Container {
  name: string;
  sc: Json | undefined;
  raw: Json;
}

/** Init containers, containers, then ephemeral containers: upstream's visiting order. */
export function containers(spec: Json): Container[] {
  const out: Container[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of list(spec[field])) {
      const raw = rec(c);
      if (raw) out.push({ name: str(raw.name), sc: rec(raw.securityContext), raw });
    }
  }
  return out;
}

export const podSC = (spec: Json): Json | undefined => rec(spec.securityContext);
export const annotationsOf = (meta: Json): Json => rec(meta.annotations) ?? {};

// ---- message helpers (upstream's wording) ----------------------------------------------------

export const pluralize = (singular: string, plural: string, n: number): string => (n === 1 ? singular : plural);
export const joinQuote = (items: readonly string[]): string => (items.length ? `"${items.join('", "')}"` : '');
export const containerList = (names: readonly string[]): string => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
/** A sorted set of strings (upstream's sets.String.List()). */
export const sortedSet = (items: Iterable<string>): string[] => [...new Set(items)].sort();

/** Go's %q for a string: double-quoted with Go's escapes, printable characters as they are. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
