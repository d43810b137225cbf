import type { ObjectRef } from '../api/types.js';
// Maps an object's identity to a KV key `<group|core>.<resource>.<namespace|_>.<name>` and back.
// Each token is escaped so that any character a name may hold (`.`, `:`, `@`, non-ASCII) survives:
// `[A-Za-z0-9-]` stay as they are, every other UTF-8 byte becomes `_XX` (upper-case hex).
// The lone token `_` marks "no namespace" and can never be an escaped value.

const CORE = 'core';
const NO_NAMESPACE = '_';
const plain = /^[A-Za-z0-9-]+$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function escapeToken(s: string): string {
  if (s.length > 0 && plain.test(s)) return s;
  let out = '';
  for (const ch of s) {
    if (/[A-Za-z0-9-]/.test(ch)) {
      out += ch;
      continue;
    }
    for (const b of encoder.encode(ch)) out += '_' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  if (out === '') throw new Error('empty key token');
  return out;
}

export function unescapeToken(t: string): string {
  if (!t.includes('_')) return t;
  const bytes: number[] = [];
  for (let i = 0; i < t.length;) {
    if (t[i] === '_') {
      const hex = t.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) throw new Error(`malformed key token ${JSON.stringify(t)}`);
      bytes.push(parseInt(hex, 16));
      i += 3;
    } else {
      bytes.push(t.charCodeAt(i));
      i += 1;
    }
  }
  return decoder.decode(new Uint8Array(bytes));
}

/** The key prefix (with trailing dot) of all objects of a resource, for filtered watches. */
export function resourcePrefix(group: string, resource: string): string {
  return `${group ? escapeToken(group) : CORE}.${escapeToken(resource)}.`;
}

export function encodeKey(ref: ObjectRef): string {
  const ns = ref.namespace ? escapeToken(ref.namespace) : NO_NAMESPACE;
  return `${resourcePrefix(ref.group, ref.resource)}${ns}.${escapeToken(ref.name)}`;
}

export function decodeKey(key: string): ObjectRef {
  const parts = key.split('.');
  if (parts.length !== 4) throw new Error(`malformed object key ${JSON.stringify(key)}`);
  const [g, r, ns, n] = parts as [string, string, string, string];
  const ref: ObjectRef = { group: g === CORE ? '' : unescapeToken(g), resource: unescapeToken(r), name: unescapeToken(n) };
  if (ns !== NO_NAMESPACE) ref.namespace = unescapeToken(ns);
  return ref;
}
