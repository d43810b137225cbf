// The common request body needs no scan: a small JSON document that opens few containers, that
// JSON.parse accepted, with no duplicate key and no number JSON.parse had to round, decodes to
// exactly what scanning it first (json-scan.ts) would have let through. Telling so from the
// parsed value and one pass over the text's quotes costs a fraction of the scan, whose
// per-container paths and per-key strings are most of a small write's decoding. Anything else
// (a document this cannot vouch for) goes through the scanner, which gives its exact answer.

/**
 * Texts up to this length may be parsed before the scan: JSON.parse spends well under a
 * millisecond on a shallow one whatever it holds, and none can reach the scanner's member limit.
 */
export const PLAIN_JSON_MAX_CHARS = 64 * 1024;

/**
 * Whether `value`, parsed from `text`, is one the scan would accept without a duplicate key: the
 * keys written in the text are as many as the members parsed (a duplicate collapses two into
 * one), no container is nested deeper than `maxDepth`, and every number is one the scan passes
 * unchecked (finite, and a safe integer when integral). False means "scan it", not "invalid".
 */
export function isPlainJson(text: string, value: unknown, maxDepth: number): boolean {
  const members = countMembers(value, maxDepth, 0);
  return members >= 0 && members === writtenKeys(text);
}

/**
 * Whether JSON.parse may see `text` before the scan: it is small, and it opens too few containers
 * to nest past `maxDepth` (JSON.parse would spend milliseconds on a deep body the scan refuses in
 * microseconds). Brackets inside strings count too; such a text is only scanned first, as ever.
 */
export function mayParseFirst(text: string, maxDepth: number): boolean {
  if (text.length > PLAIN_JSON_MAX_CHARS) return false;
  let open = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c === 0x7b || c === 0x5b) && ++open > maxDepth) return false;
  }
  return true;
}

/** The string literals of JSON `text` that a colon follows: its keys (-1 for a string left open). */
function writtenKeys(text: string): number {
  let keys = 0;
  // Outside strings valid JSON has no quote, so each quote found from here opens a string.
  for (let open = text.indexOf('"'); open >= 0;) {
    let close = text.indexOf('"', open + 1);
    while (close > 0 && escaped(text, close)) close = text.indexOf('"', close + 1);
    if (close < 0) return -1; // not JSON after all: no count matches, so the scan decides
    let next = close + 1;
    while (isSpace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === 0x3a) keys++;
    open = text.indexOf('"', next);
  }
  return keys;
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let run = 0;
  while (text.charCodeAt(at - 1 - run) === 0x5c) run++;
  return run % 2 === 1;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Members of the objects in `v`; -1 when a container lies deeper than `maxDepth` or a number needs the scan's check. */
function countMembers(v: unknown, maxDepth: number, depth: number): number {
  if (typeof v === 'number') return Number.isFinite(v) && (!Number.isInteger(v) || Number.isSafeInteger(v)) ? 0 : -1;
  if (typeof v !== 'object' || v === null) return 0;
  if (depth >= maxDepth) return -1;
  let n = 0;
  if (Array.isArray(v)) {
    for (const item of v) {
      const c = countMembers(item, maxDepth, depth + 1);
      if (c < 0) return -1;
      n += c;
    }
    return n;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const c = countMembers(o[k], maxDepth, depth + 1);
    if (c < 0) return -1;
    n += c + 1;
  }
  return n;
}
