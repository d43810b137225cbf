// Response content negotiation: parses `Accept` and picks one of the representations an endpoint
// offers, including the parameterised ones (`as=Table;g=meta.platform.io;v=v1`, aggregated
// discovery). A range that asks for a conversion (`as=`) only ever selects an offer performing
// exactly that conversion, so a client asking for another brand's Table falls through to its
// next range instead of receiving something it cannot read.

import { notAcceptable } from './status.js';

export interface MediaRange {
  /** Lowercase; `*` for a wildcard. */
  type: string;
  subtype: string;
  /** Parameters other than `q`; names lowercase, values as sent (unquoted). Holds `as`, `g`, `v`. */
  params: Record<string, string>;
  q: number;
}

export interface Offer {
  mediaType: string;
  /** Kind the response is converted to (`Table`, `APIGroupDiscoveryList`, `PartialObjectMetadata`). */
  as?: string;
  group?: string;
  version?: string;
}

/** Splits on `sep` outside double-quoted strings (parameter values may be quoted). */
function splitOutsideQuotes(s: string, sep: number): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (quoted) {
      if (c === 0x5c) i++;
      else if (c === 0x22) quoted = false;
    } else if (c === 0x22) {
      quoted = true;
    } else if (c === sep) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

function unquote(v: string): string {
  if (v.length >= 2 && v.charCodeAt(0) === 0x22 && v.charCodeAt(v.length - 1) === 0x22) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}

function specificity(r: MediaRange): number {
  const base = r.type === '*' ? 0 : r.subtype === '*' ? 1 : 2;
  return base * 1000 + Object.keys(r.params).length;
}

/**
 * Parses an Accept header into ranges sorted by q (highest first), then specificity (exact type
 * before `type/*` before `*\/*`, more parameters first), then header order. Entries that are not
 * `type/subtype` (a bare `*` counts as `*\/*`), have a malformed q, or have q=0 are dropped.
 */
export function parseAccept(header?: string): MediaRange[] {
  if (!header) return [];
  const ranges: { r: MediaRange; i: number }[] = [];
  const entries = splitOutsideQuotes(header, 0x2c);
  for (let i = 0; i < entries.length; i++) {
    const pieces = splitOutsideQuotes(entries[i]!, 0x3b);
    let full = pieces[0]!.trim().toLowerCase();
    if (full === '*') full = '*/*';
    const slash = full.indexOf('/');
    if (slash <= 0 || slash === full.length - 1 || full.indexOf('/', slash + 1) >= 0) continue;
    const type = full.slice(0, slash);
    const subtype = full.slice(slash + 1);
    if (type === '*' && subtype !== '*') continue;
    const params: Record<string, string> = {};
    let q = 1;
    let ok = true;
    for (let k = 1; k < pieces.length; k++) {
      const p = pieces[k]!;
      const eq = p.indexOf('=');
      const name = (eq < 0 ? p : p.slice(0, eq)).trim().toLowerCase();
      const value = eq < 0 ? '' : unquote(p.slice(eq + 1).trim());
      if (!name) continue;
      if (name === 'q') {
        // Looser than RFC 9110's qvalue: Java's default header sends `q=.2`.
        const n = value === '' ? NaN : Number(value);
        if (!(n >= 0 && n <= 1)) {
          ok = false;
          break;
        }
        q = n;
      } else {
        params[name] = value;
      }
    }
    if (!ok || q === 0) continue;
    ranges.push({ r: { type, subtype, params, q }, i });
  }
  ranges.sort((a, b) => b.r.q - a.r.q || specificity(b.r) - specificity(a.r) || a.i - b.i);
  return ranges.map((x) => x.r);
}

function offerString(o: Offer): string {
  let s = o.mediaType;
  if (o.as) s += `;as=${o.as}`;
  if (o.group !== undefined) s += `;g=${o.group}`;
  if (o.version !== undefined) s += `;v=${o.version}`;
  return s;
}

function matches(r: MediaRange, o: Offer, offerType: string, offerSubtype: string): boolean {
  if (r.type !== '*' && r.type !== offerType) return false;
  if (r.subtype !== '*' && r.subtype !== offerSubtype) return false;
  const as = r.params.as;
  if (as === undefined || as === '') return !o.as;
  return as === o.as && (r.params.g ?? '') === (o.group ?? '') && (r.params.v ?? '') === (o.version ?? '');
}

/**
 * The offer the client prefers. No header (or an empty one) and wildcard ranges pick the first
 * plain offer, so list the default representation first. Parameters other than `as`/`g`/`v`
 * (`charset`, `stream=watch`, `pretty`) do not affect the choice. Throws 406 when nothing matches.
 */
export function negotiate(accept: string | undefined, offers: Offer[]): Offer {
  if (offers.length === 0) throw notAcceptable(accept ?? '', []);
  if (accept === undefined || accept.trim() === '') return offers[0]!;
  const split = offers.map((o) => {
    const mt = o.mediaType.toLowerCase();
    const slash = mt.indexOf('/');
    return { type: mt.slice(0, slash), subtype: mt.slice(slash + 1) };
  });
  for (const r of parseAccept(accept)) {
    for (let k = 0; k < offers.length; k++) {
      if (matches(r, offers[k]!, split[k]!.type, split[k]!.subtype)) return offers[k]!;
    }
  }
  throw notAcceptable(accept, offers.map(offerString));
}
