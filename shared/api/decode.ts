// Request body decoding with the limits a public API server needs: a byte cap (413), a nesting
// depth cap and YAML alias caps (400), strict media types and charsets (415), and duplicate-key
// reporting for fieldValidation (Strict fails on them, Warn reports them). Every check is a
// linear pass; the JSON scanner also validates, so syntax errors carry a line and column.

import { Composer, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, Parser, type Document, type Node as YamlNode } from 'yaml';
import { badRequest, failure, requestEntityTooLarge, StatusReason, unsupportedMediaType } from './status.js';
import { cloneJson, setOwn } from './own-keys.js';

/** Largest request body accepted (upstream's 3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Default nesting limit of decoded bodies (objects and arrays, the outermost counting 1). */
export const DEFAULT_MAX_DEPTH = 100;
/**
 * How many nodes aliases and merge keys may add to a YAML document when it is expanded: the larger
 * of this and the document's own node count. Counted over the composed document before anything
 * is expanded (each anchored node's expanded size once), so "billion laughs" and chained merge
 * keys, whose expansion doubles per line, are refused in time linear in the text. Upstream bounds
 * the same thing: a budget of expansions relative to the document's size.
 */
export const MAX_YAML_ALIAS_EXPANSION = 10_000;

export const JSON_MEDIA_TYPES: readonly string[] = ['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json'];
export const YAML_MEDIA_TYPES: readonly string[] = ['application/yaml', 'application/apply-patch+yaml'];
const JSON_SET = new Set(JSON_MEDIA_TYPES);
const YAML_SET = new Set(YAML_MEDIA_TYPES);

export interface DecodeOptions {
  maxDepth?: number;
}

export interface DecodedValue {
  value: unknown;
  /** Paths of repeated object keys, `.metadata.labels.a` / `.spec.containers[0].name`; the last occurrence wins. */
  duplicateFields: string[];
}

export interface MediaType {
  /** `type/subtype`, lowercase. */
  mediaType: string;
  /** Parameter names lowercase; values unquoted, case kept. */
  params: Record<string, string>;
}

/** Splits `type/subtype; a=b; c="d"`; tolerant of spacing and case. */
export function parseMediaType(contentType: string): MediaType {
  const semi = contentType.indexOf(';');
  const mediaType = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  const params: Record<string, string> = {};
  if (semi >= 0) {
    for (const part of contentType.slice(semi + 1).split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      const k = part.slice(0, eq).trim().toLowerCase();
      let v = part.slice(eq + 1).trim();
      if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
      if (k) params[k] = v;
    }
  }
  return { mediaType, params };
}

function checkCharset(contentType: string, params: Record<string, string>): void {
  const cs = params.charset;
  if (cs === undefined) return;
  const norm = cs.toLowerCase();
  if (norm !== 'utf-8' && norm !== 'utf8') {
    throw failure(415, StatusReason.UnsupportedMediaType, `the body of the request uses charset ${JSON.stringify(cs)}; only utf-8 is supported (got ${JSON.stringify(contentType)})`);
  }
}

/**
 * Decodes a JSON or YAML request body. `mediaType` is the Content-Type header as sent.
 * 413 over MAX_BODY_BYTES; 415 for other media types or a non-utf-8 charset; 400 for malformed
 * input (with position), excessive nesting, alias bombs, or a multi-document YAML body.
 * Whether the value has the right shape (an object, a list of patch operations) is the caller's.
 */
export function decodeBody(body: Buffer | string, mediaType: string, opts?: DecodeOptions): DecodedValue {
  const { text, isJson, maxDepth } = bodyText(body, mediaType, opts);
  return isJson ? decodeJson(text, maxDepth) : decodeYaml(text, maxDepth);
}

/**
 * Every check decodeBody makes of a JSON body, without building its value: the duplicate fields,
 * or undefined when the media type is not JSON. A large JSON body is vetted in a worker thread
 * (decode-pool.ts), leaving only `parseVettedJson` (JSON.parse, the least a thread that needs the
 * value can do) to the event loop.
 */
export function vetJsonBody(body: Buffer, mediaType: string, opts?: DecodeOptions): string[] | undefined {
  const { text, isJson, maxDepth } = bodyText(body, mediaType, opts);
  return isJson ? scanJson(text, maxDepth) : undefined;
}

/** The value of a JSON body that vetJsonBody accepted. */
export function parseVettedJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

function bodyText(body: Buffer | string, mediaType: string, opts?: DecodeOptions): { text: string; isJson: boolean; maxDepth: number } {
  const { mediaType: mt, params } = parseMediaType(mediaType);
  const isJson = JSON_SET.has(mt);
  if (!isJson && !YAML_SET.has(mt)) throw unsupportedMediaType(mediaType);
  checkCharset(mediaType, params);
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size > MAX_BODY_BYTES) throw requestEntityTooLarge(`the request body is larger than ${MAX_BODY_BYTES} bytes`);
  let text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { text, isJson, maxDepth: opts?.maxDepth ?? DEFAULT_MAX_DEPTH };
}

// ---- JSON -------------------------------------------------------------------------------

function lineCol(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

function charAt(text: string, i: number): string {
  const c = text.codePointAt(i)!;
  return c < 0x20 ? `\\u${c.toString(16).padStart(4, '0')}` : String.fromCodePoint(c);
}

function depthError(text: string, offset: number, maxDepth: number, lang: string): Error {
  return badRequest(`the ${lang} request body exceeds the maximum nesting depth of ${maxDepth} (at ${lineCol(text, offset)})`);
}

const J = {
  Value: 0,
  ValueOrEnd: 1,
  Key: 2,
  KeyOrEnd: 3,
  Colon: 4,
  CommaOrEnd: 5,
  Done: 6,
} as const;
type J = (typeof J)[keyof typeof J];

interface Frame {
  isObj: boolean;
  /** Path of this container, built when it opens. */
  path: string;
  index: number;
  lastKey: string;
  // The first key is kept as a string; a Set is made only for objects with two or more keys.
  firstKey: string | undefined;
  keys: Set<string> | undefined;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * One pass over JSON text: validates the grammar (errors in Go's encoding/json wording plus a
 * position), enforces the depth limit as soon as it is crossed, and records duplicate keys.
 */
function scanJson(text: string, maxDepth: number): string[] {
  const n = text.length;
  const stack: Frame[] = [];
  const dups: string[] = [];
  let state = J.Value as J;
  let i = 0;
  const fail = (at: number, what: string): Error => badRequest(`the JSON request body is malformed: ${at >= n ? 'unexpected end of JSON input' : what} at ${lineCol(text, Math.min(at, n))}`);

  const scanString = (start: number): number => {
    // Returns the index just past the closing quote.
    let j = start + 1;
    for (;;) {
      if (j >= n) throw fail(n, '');
      const c = text.charCodeAt(j);
      if (c === 0x22) return j + 1;
      if (c === 0x5c) {
        const e = text.charCodeAt(j + 1);
        if (e === 0x75) {
          for (let k = 2; k < 6; k++) {
            if (!isHex(text.charCodeAt(j + k))) throw fail(j + k, `invalid character '${charAt(text, j + k)}' in \\u hexadecimal character escape`);
          }
          j += 6;
        } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          j += 2;
        } else {
          throw fail(j + 1, `invalid character '${charAt(text, j + 1)}' in string escape code`);
        }
        continue;
      }
      if (c < 0x20) throw fail(j, `invalid character '${charAt(text, j)}' in string literal`);
      j++;
    }
  };

  const scanNumber = (start: number): number => {
    let j = start;
    if (text.charCodeAt(j) === 0x2d) j++;
    const c0 = text.charCodeAt(j);
    if (c0 === 0x30) j++;
    else if (c0 >= 0x31 && c0 <= 0x39) while (isDigit(text.charCodeAt(j))) j++;
    else throw fail(j, `invalid character '${charAt(text, j)}' in numeric literal`);
    if (text.charCodeAt(j) === 0x2e) {
      j++;
      if (!isDigit(text.charCodeAt(j))) throw fail(j, `invalid character '${charAt(text, j)}' after decimal point in numeric literal`);
      while (isDigit(text.charCodeAt(j))) j++;
    }
    const e = text.charCodeAt(j);
    if (e === 0x65 || e === 0x45) {
      j++;
      const s = text.charCodeAt(j);
      if (s === 0x2b || s === 0x2d) j++;
      if (!isDigit(text.charCodeAt(j))) throw fail(j, `invalid character '${charAt(text, j)}' in exponent of numeric literal`);
      while (isDigit(text.charCodeAt(j))) j++;
    }
    return j;
  };

  const afterValue = (): J => (stack.length ? J.CommaOrEnd : J.Done);
  const valuePath = (): string => {
    const f = stack[stack.length - 1];
    return f ? (f.isObj ? `${f.path}.${f.lastKey}` : `${f.path}[${f.index}]`) : '';
  };
  const open = (isObj: boolean, at: number): J => {
    if (stack.length >= maxDepth) throw depthError(text, at, maxDepth, 'JSON');
    const parent = stack[stack.length - 1];
    const path = parent ? (parent.isObj ? `${parent.path}.${parent.lastKey}` : `${parent.path}[${parent.index}]`) : '';
    stack.push({ isObj, path, index: 0, lastKey: '', firstKey: undefined, keys: undefined });
    return isObj ? J.KeyOrEnd : J.ValueOrEnd;
  };
  const close = (): J => {
    stack.pop();
    return afterValue();
  };

  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      i++;
      continue;
    }
    // An empty container may close right after it opens; otherwise an element or key follows.
    if ((state === J.ValueOrEnd && c === 0x5d) || (state === J.KeyOrEnd && c === 0x7d)) {
      state = close();
      i++;
      continue;
    }
    switch (state) {
      case J.ValueOrEnd:
      case J.Value:
        if (c === 0x7b) {
          state = open(true, i);
          i++;
        } else if (c === 0x5b) {
          state = open(false, i);
          i++;
        } else if (c === 0x22) {
          i = scanString(i);
          state = afterValue();
        } else if (c === 0x2d || isDigit(c)) {
          const end = scanNumber(i);
          // Literals of up to 15 characters without an exponent are always exact; only longer
          // ones and exponents can overflow or lose digits.
          if (end - i > 15 || hasExponent(text, i, end)) {
            const problem = numberProblem(text.slice(i, end), /^-?\d+$/.test(text.slice(i, end)), valuePath());
            if (problem) throw numberError('JSON', problem, lineCol(text, i));
          }
          i = end;
          state = afterValue();
        } else if (c === 0x74 && text.startsWith('true', i)) {
          i += 4;
          state = afterValue();
        } else if (c === 0x66 && text.startsWith('false', i)) {
          i += 5;
          state = afterValue();
        } else if (c === 0x6e && text.startsWith('null', i)) {
          i += 4;
          state = afterValue();
        } else {
          throw fail(i, `invalid character '${charAt(text, i)}' looking for beginning of value`);
        }
        continue;
      case J.KeyOrEnd:
      case J.Key: {
        if (c !== 0x22) throw fail(i, `invalid character '${charAt(text, i)}' looking for beginning of object key string`);
        const end = scanString(i);
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        const f = stack[stack.length - 1]!;
        if (f.firstKey === undefined) {
          f.firstKey = key;
        } else {
          if (!f.keys) f.keys = new Set([f.firstKey]);
          if (f.keys.has(key)) dups.push(`${f.path}.${key}`);
          else f.keys.add(key);
        }
        f.lastKey = key;
        i = end;
        state = J.Colon;
        continue;
      }
      case J.Colon:
        if (c !== 0x3a) throw fail(i, `invalid character '${charAt(text, i)}' after object key`);
        i++;
        state = J.Value;
        continue;
      case J.CommaOrEnd: {
        const f = stack[stack.length - 1]!;
        if (c === 0x2c) {
          if (f.isObj) state = J.Key;
          else {
            f.index++;
            state = J.Value;
          }
          i++;
        } else if (c === (f.isObj ? 0x7d : 0x5d)) {
          state = close();
          i++;
        } else {
          throw fail(i, `invalid character '${charAt(text, i)}' after ${f.isObj ? 'object key:value pair' : 'array element'}`);
        }
        continue;
      }
      default:
        throw fail(i, `invalid character '${charAt(text, i)}' after top-level value`);
    }
  }
  if (state !== J.Done) throw fail(n, '');
  return dups;
}

function decodeJson(text: string, maxDepth: number): DecodedValue {
  const duplicateFields = scanJson(text, maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // The scanner accepts exactly JSON's grammar, so this is a backstop, not a path users hit.
    throw badRequest(`the JSON request body is malformed: ${(err as Error).message}`);
  }
  return { value, duplicateFields };
}

// ---- Numbers ----------------------------------------------------------------------------

function hasExponent(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x65 || c === 0x45) return true;
  }
  return false;
}

function fieldName(path: string): string {
  return path === '' ? 'the top level' : path.startsWith('.') ? path.slice(1) : path;
}

function shortLiteral(lit: string): string {
  return lit.length <= 40 ? lit : `${lit.slice(0, 20)}…${lit.slice(-8)} (${lit.length} characters)`;
}

/**
 * Why a number literal cannot be decoded into a JS number without changing it, if it cannot.
 * Floats follow float64 like upstream's decoder: rounding the digits of a fraction is what every
 * client expects, but an overflow to ±Infinity is an error there too. Integers are exact in
 * upstream (int64); here they are exact only within ±(2^53 - 1), so a larger one is refused
 * rather than rounded — the same 400 upstream gives beyond int64.
 */
function numberProblem(lit: string, integer: boolean, path: string): string | undefined {
  const v = Number(lit);
  if (!Number.isFinite(v)) return `the number ${shortLiteral(lit)} at ${fieldName(path)} is out of the range of a 64-bit float`;
  if (integer && !Number.isSafeInteger(v)) {
    return `the integer ${shortLiteral(lit)} at ${fieldName(path)} cannot be represented exactly; integers must lie within ±${Number.MAX_SAFE_INTEGER}`;
  }
  return undefined;
}

function numberError(lang: string, problem: string, where: string): Error {
  return badRequest(`unable to decode the ${lang} request body: ${problem} (at ${where})`);
}

// ---- YAML -------------------------------------------------------------------------------

/**
 * An upper bound (within about a factor of two) on the nesting depth of a YAML text, computed
 * character by character. The yaml library's lexer and parser recurse on compact nesting
 * (`- - - …`) and slow down sharply on deep flow nesting, so hostile depth has to be refused
 * before the library sees the text; the exact limit is enforced on the composed document after.
 * Lines are followed with an indentation stack; each line adds its leading indicators
 * (`- `, `? `, `: `) and a mapping key, flow collections add their bracket depth; quoted scalars,
 * comments and block scalar bodies are skipped.
 */
function estimateYamlDepth(text: string, limit: number): { depth: number; at: number } {
  const n = text.length;
  // Indentation stack of block lines: a line nests in the nearest less-indented line's depth.
  const lines: { indent: number; base: number; depth: number; dash: boolean }[] = [];
  let max = 0;
  let i = 0;
  let flow = 0;
  let flowBase = 0;
  let quote = 0; // 0x22 / 0x27 while inside a quoted scalar
  let scalarParent = -1; // >= 0 while inside a block scalar: the indentation of its header line
  let scalarIndent = -1; // the block scalar's content indentation, once known
  while (i < n) {
    let indent = 0;
    while (i + indent < n && text.charCodeAt(i + indent) === 0x20) indent++;
    let j = i + indent;
    const c0 = j < n ? text.charCodeAt(j) : 0x0a;
    const blank = c0 === 0x0a || c0 === 0x0d;
    if (scalarParent >= 0) {
      if (scalarIndent < 0 && !blank && indent > scalarParent) scalarIndent = indent;
      if (blank || (scalarIndent >= 0 && indent >= scalarIndent)) {
        i = lineEnd(text, i) + 1;
        continue;
      }
      scalarParent = scalarIndent = -1;
    }
    let lineDepth: number;
    if (quote === 0 && flow === 0) {
      if (blank || c0 === 0x23) {
        i = lineEnd(text, i) + 1;
        continue;
      }
      if (indent === 0 && (text.startsWith('---', j) || text.startsWith('...', j))) {
        lines.length = 0;
        j += 3;
      }
      while (lines.length && lines[lines.length - 1]!.indent > indent) lines.pop();
      let k = j;
      while (k < n && text.charCodeAt(k) === 0x20) k++;
      const dash = text.charCodeAt(k) === 0x2d && isYamlBreak(text, k + 1);
      let base = 0;
      const top = lines[lines.length - 1];
      if (top && top.indent === indent) {
        lines.pop();
        // A sibling; or a sequence written at its parent key's indentation, one level deeper.
        base = top.base + (dash && !top.dash ? 1 : 0);
      } else if (top) {
        base = top.depth;
      }
      lineDepth = base;
      // Leading indicators: `- `, `? `, `: ` (compact nesting counts one level each).
      for (;;) {
        while (j < n && text.charCodeAt(j) === 0x20) j++;
        const c = text.charCodeAt(j);
        if ((c === 0x2d || c === 0x3f || c === 0x3a) && isYamlBreak(text, j + 1)) {
          lineDepth++;
          j++;
        } else break;
      }
      lines.push({ indent, base, depth: lineDepth, dash });
    } else {
      j = i;
      lineDepth = flowBase;
    }
    // Levels this line opens after its leading indicators: a mapping key's `: `, and compact
    // block indicators that follow one (`x: - - - y`, `a: b: c`), which the library rejects
    // only after recursing once per indicator.
    let inline = 0;
    let tokenStart = true;
    let afterIndicator = false;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x0a) break;
      if (quote !== 0) {
        if (quote === 0x22 && c === 0x5c) j++;
        else if (c === quote) {
          if (quote === 0x27 && text.charCodeAt(j + 1) === 0x27) j++;
          else quote = 0;
        }
        tokenStart = false;
        continue;
      }
      if (c === 0x20 || c === 0x09) {
        tokenStart = true;
        continue;
      }
      if (c === 0x23 && tokenStart) break; // comment
      if ((c === 0x22 || c === 0x27) && (tokenStart || flow > 0)) {
        quote = c;
        afterIndicator = false;
        continue;
      }
      if ((c === 0x5b || c === 0x7b) && (flow > 0 || tokenStart)) {
        if (flow === 0) flowBase = lineDepth + inline;
        flow++;
        if (flowBase + flow > max) max = flowBase + flow;
        if (max > limit) return { depth: max, at: j };
        tokenStart = true;
        continue;
      }
      if ((c === 0x5d || c === 0x7d) && flow > 0) {
        flow--;
      } else if (c === 0x2c && flow > 0) {
        tokenStart = true;
        continue;
      } else if (c === 0x3a && flow === 0 && isYamlBreak(text, j + 1)) {
        inline++;
        if (lineDepth + inline > limit) return { depth: lineDepth + inline, at: j };
        tokenStart = afterIndicator = true;
        continue;
      } else if ((c === 0x2d || c === 0x3f) && flow === 0 && tokenStart && afterIndicator && isYamlBreak(text, j + 1)) {
        inline++;
        if (lineDepth + inline > limit) return { depth: lineDepth + inline, at: j };
        tokenStart = true;
        continue;
      } else if ((c === 0x7c || c === 0x3e) && tokenStart && flow === 0 && isBlockScalarHeader(text, j + 1)) {
        scalarParent = indent;
        scalarIndent = -1;
        j = lineEnd(text, j);
        break;
      }
      tokenStart = false;
      afterIndicator = false;
    }
    const depth = lineDepth + inline;
    if (quote === 0 && flow === 0 && lines.length && lines[lines.length - 1]!.indent === indent) lines[lines.length - 1]!.depth = depth;
    if (depth > max) max = depth;
    if (max > limit) return { depth: max, at: i };
    i = j + 1;
  }
  return { depth: max, at: n };
}

function isYamlBreak(text: string, i: number): boolean {
  if (i >= text.length) return true;
  const c = text.charCodeAt(i);
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** After `|` or `>`: indentation/chomping indicators, then only spaces and an optional comment. */
function isBlockScalarHeader(text: string, i: number): boolean {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x2b || c === 0x2d || (c >= 0x31 && c <= 0x39)) i++;
    else break;
  }
  while (i < n && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09)) i++;
  return i >= n || text.charCodeAt(i) === 0x0a || text.charCodeAt(i) === 0x0d || text.charCodeAt(i) === 0x23;
}

function lineEnd(text: string, from: number): number {
  const e = text.indexOf('\n', from);
  return e < 0 ? text.length : e;
}

/**
 * What a pass over a composed document needs. Aliases are resolved by anchor name in document
 * order (the last anchor of that name before the alias, as YAML says), with one map kept during
 * the pass: the library's own resolution scans every anchor and alias for each alias, which is
 * quadratic in their number.
 */
interface YamlWalk {
  maxDepth: number;
  dups: string[];
  /** Height and expanded node count of the last node anchored under each name, once walked. */
  anchored: Map<string, Extent>;
  aliases: number;
  /** Nodes written in the text (an alias counts one). */
  nodes: number;
  lines: LineCounter;
  text: string;
}

interface Extent {
  height: number;
  /** Nodes once every alias and merge key under it is expanded. */
  size: number;
  /** A scalar's property name, for an alias used as a mapping key. */
  key?: string;
}

/** An anchor whose node is still being walked: an alias to it would contain itself. */
const OPEN: Extent = { height: 0, size: 0 };

function yamlError(w: { lines: LineCounter }, offset: number, detail: string): Error {
  const { line, col } = w.lines.linePos(offset);
  return badRequest(`the YAML request body is malformed: ${detail} at line ${line}, column ${col}`);
}

function offsetOf(node: unknown): number {
  return (node as YamlNode | null)?.range?.[0] ?? 0;
}

/** A plain `<<` key (the composer resolves it to a symbol when merge keys are on). */
function isMergeKey(key: unknown): boolean {
  return isScalar(key) && typeof key.value === 'symbol' && key.value.description === '<<';
}

/** The JS property name of a scalar key, as the library's own conversion names it. */
function keyName(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

function resolveAnchor<T>(w: { lines: LineCounter }, anchors: Map<string, T>, alias: YamlNode & { source: string }, open: T): T {
  const found = anchors.get(alias.source);
  if (found === undefined) throw yamlError(w, offsetOf(alias), `the alias *${alias.source} names no anchor before it`);
  if (found === open) throw yamlError(w, offsetOf(alias), `the alias *${alias.source} is inside the node it names`);
  return found;
}

/**
 * Exact depth check, duplicate keys and value checks over the composed document (its depth is
 * already bounded by the estimate, so recursion is safe). Returns the node's height and expanded
 * size; an alias counts as the node it names, so anchoring deep data cannot dodge the depth
 * limit, and a merge key's alias counts the whole merged map. Linear in the text: nothing is
 * expanded here.
 */
function walkYaml(w: YamlWalk, node: unknown, depth: number, path: string): Extent {
  w.nodes++;
  if (isAlias(node)) {
    w.aliases++;
    const e = resolveAnchor(w, w.anchored, node, OPEN);
    if (depth + e.height - 1 > w.maxDepth) throw depthError(w.text, offsetOf(node), w.maxDepth, 'YAML');
    return e;
  }
  const anchor = (node as YamlNode | null)?.anchor;
  if (anchor) w.anchored.set(anchor, OPEN);
  let h = 0;
  let size = 1;
  if (isMap(node) || isSeq(node)) {
    if (depth > w.maxDepth) throw depthError(w.text, offsetOf(node), w.maxDepth, 'YAML');
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const k = pair.key;
        let key: string;
        if (k == null) key = '';
        else if (isScalar(k)) {
          key = keyName(k.value);
          if (k.anchor) w.anchored.set(k.anchor, { height: 0, size: 1, key });
        } else if (isAlias(k)) {
          const t = resolveAnchor(w, w.anchored, k, OPEN).key;
          if (t === undefined) throw yamlError(w, offsetOf(k), 'mapping keys must be scalars');
          key = t;
        } else {
          throw yamlError(w, offsetOf(k), 'mapping keys must be scalars');
        }
        if (!isMergeKey(k)) {
          if (seen.has(key)) w.dups.push(`${path}.${key}`);
          else seen.add(key);
        }
        w.nodes++; // the key
        const e = walkYaml(w, pair.value, depth + 1, `${path}.${key}`);
        h = Math.max(h, e.height);
        size += 1 + e.size;
      }
    } else {
      node.items.forEach((item, idx) => {
        const e = walkYaml(w, item, depth + 1, `${path}[${idx}]`);
        h = Math.max(h, e.height);
        size += e.size;
      });
    }
    h += 1;
  } else if (isScalar(node) && typeof node.value === 'number') {
    checkYamlNumber(w, node.value, node.source, node.format, offsetOf(node), path);
  }
  const e: Extent = { height: h, size };
  if (isScalar(node)) e.key = keyName(node.value);
  if (anchor) w.anchored.set(anchor, e);
  return e;
}

/** An anchored node and the value built for it. */
interface Built {
  node: YamlNode;
  value: unknown;
}

/**
 * Builds the JSON value of a walked document. Every alias gets its own copy of the value it
 * names, so changing one place later (defaulting, patching) never shows in another; merge keys
 * follow YAML's merge type (a key already in the map, or from an earlier source, wins). The walk
 * bounded the expanded size, and the work here is linear in it.
 */
class YamlBuilder {
  private readonly anchors = new Map<string, Built>();
  private readonly open: Built = { node: null as unknown as YamlNode, value: undefined };

  constructor(private readonly w: { lines: LineCounter }) {}

  value(node: unknown): unknown {
    if (node == null) return null;
    if (isAlias(node)) return cloneJson(resolveAnchor(this.w, this.anchors, node, this.open).value);
    const anchor = (node as YamlNode).anchor;
    if (anchor) this.anchors.set(anchor, this.open);
    let v: unknown;
    if (isMap(node)) v = this.map(node.items);
    else if (isSeq(node)) v = node.items.map((item) => this.value(item));
    else if (isScalar(node)) v = node.value;
    else throw yamlError(this.w, offsetOf(node), 'unsupported node');
    if (anchor) this.anchors.set(anchor, { node: node as YamlNode, value: v });
    return v;
  }

  private map(pairs: unknown[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const pair of pairs) {
      if (!isPair(pair)) continue;
      if (isMergeKey(pair.key)) {
        for (const source of this.mergeSources(pair.value)) {
          for (const [k, v] of Object.entries(source)) if (!Object.hasOwn(out, k)) setOwn(out, k, cloneJson(v));
        }
        continue;
      }
      setOwn(out, this.key(pair.key), this.value(pair.value));
    }
    return out;
  }

  private key(k: unknown): string {
    if (isAlias(k)) return keyName(this.value(k));
    if (isScalar(k)) {
      const name = keyName(k.value);
      if (k.anchor) this.anchors.set(k.anchor, { node: k, value: k.value });
      return name;
    }
    return '';
  }

  /** The maps a merge key's value names: a map, an alias of one, or a sequence of those. */
  private mergeSources(value: unknown): Record<string, unknown>[] {
    const target = isAlias(value) ? resolveAnchor(this.w, this.anchors, value, this.open) : undefined;
    const node = target ? target.node : value;
    if (isSeq(node)) return node.items.map((item) => this.mergeSource(item));
    return [target && isMap(target.node) ? (target.value as Record<string, unknown>) : this.mergeSource(value)];
  }

  private mergeSource(item: unknown): Record<string, unknown> {
    const target = isAlias(item) ? resolveAnchor(this.w, this.anchors, item, this.open) : undefined;
    const node = target ? target.node : item;
    if (!isMap(node)) throw yamlError(this.w, offsetOf(item), 'merge sources must be maps or aliases of maps');
    return (target ? target.value : this.value(item)) as Record<string, unknown>;
  }
}

/**
 * A YAML number must be what the JSON it stands for would hold: finite (no `.inf`, `.nan` or
 * overflow) and, for integers, exact. A decimal integer with a leading zero is refused as well:
 * upstream's YAML 1.1 decoder reads `017` as octal 15, YAML 1.2 (this library) as 17, and the
 * writer's intent cannot be known.
 */
function checkYamlNumber(w: YamlWalk, value: number, source: unknown, format: string | undefined, offset: number, path: string): void {
  const lit = typeof source === 'string' ? source : String(value);
  const where = (): string => {
    const { line, col } = w.lines.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  if (Number.isNaN(value) || (!Number.isFinite(value) && /^[-+]?\./.test(lit))) throw numberError('YAML', `${lit} at ${fieldName(path)} is not a valid JSON number`, where());
  if (!Number.isFinite(value)) throw numberError('YAML', `the number ${shortLiteral(lit)} at ${fieldName(path)} is out of the range of a 64-bit float`, where());
  const decimalInt = /^[-+]?[0-9]+$/.test(lit);
  if (decimalInt && /^[-+]?0[0-9]/.test(lit)) {
    throw numberError('YAML', `the integer ${lit} at ${fieldName(path)} is ambiguous (octal in YAML 1.1, decimal in YAML 1.2); write it without leading zeros, as 0o… for octal, or quote it`, where());
  }
  if ((decimalInt || format === 'HEX' || format === 'OCT') && !Number.isSafeInteger(value)) {
    throw numberError('YAML', `the integer ${shortLiteral(lit)} at ${fieldName(path)} cannot be represented exactly; integers must lie within ±${Number.MAX_SAFE_INTEGER}`, where());
  }
}

function firstNonSpace(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}

function decodeYaml(text: string, maxDepth: number): DecodedValue {
  // JSON is YAML, and clients (client-go's apply among them) send JSON as apply-patch+yaml. The
  // JSON path is two orders of magnitude faster than the yaml library on large bodies.
  const c0 = firstNonSpace(text);
  if (c0 === 0x7b || c0 === 0x5b) {
    let dups: string[] | undefined;
    try {
      dups = scanJson(text, maxDepth);
    } catch {
      // Not JSON (e.g. a flow mapping `{a: 1}`): the YAML path decides, with its own errors.
    }
    if (dups) return { value: JSON.parse(text), duplicateFields: dups };
  }
  // A generous bound here (the estimate may overshoot by up to 2x); the exact limit follows.
  const est = estimateYamlDepth(text, 2 * maxDepth + 16);
  if (est.depth > 2 * maxDepth + 16) throw depthError(text, est.at, maxDepth, 'YAML');
  const lines = new LineCounter();
  const tokens = new Parser(lines.addNewLine).parse(text);
  const composer = new Composer({ uniqueKeys: false, merge: true, prettyErrors: false, strict: true });
  const docs: Document.Parsed[] = [];
  for (const d of composer.compose(tokens, true, text.length)) docs.push(d as Document.Parsed);

  // A trailing `---` leaves an empty document behind: that is not a second object.
  const nonEmpty = docs.filter((d) => d.errors.length > 0 || !(d.contents === null || (isScalar(d.contents) && d.contents.value === null)));
  for (const d of nonEmpty) {
    const e = d.errors[0];
    if (e) throw yamlError({ lines }, e.pos[0], e.message);
  }
  if (nonEmpty.length > 1) throw badRequest(`the YAML request body holds ${nonEmpty.length} documents; exactly one is allowed`);
  const doc = nonEmpty[0];
  if (!doc) return { value: null, duplicateFields: [] };

  const w: YamlWalk = { maxDepth, dups: [], anchored: new Map(), aliases: 0, nodes: 0, lines, text };
  const { size } = walkYaml(w, doc.contents, 1, '');
  const allowed = w.nodes + Math.max(MAX_YAML_ALIAS_EXPANSION, w.nodes);
  if (size > allowed) {
    const expanded = Number.isFinite(size) && size < 1e15 ? String(size) : 'more than 10^15';
    throw badRequest(`the YAML request body uses aliases or merge keys that expand its ${w.nodes} nodes to ${expanded}; at most ${allowed} are allowed`);
  }
  return { value: new YamlBuilder(w).value(doc.contents), duplicateFields: w.dups };
}
