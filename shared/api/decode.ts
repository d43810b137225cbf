// Request body decoding with the limits a public API server needs: a byte cap (413), a nesting
// depth cap and YAML alias caps (400), strict media types and charsets (415), and duplicate-key
// reporting for fieldValidation (Strict fails on them, Warn reports them). Every check is a
// linear pass; the JSON scanner also validates, so syntax errors carry a line and column.

import { Composer, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, Parser, type Document, type Node as YamlNode } from 'yaml';
import { badRequest, failure, requestEntityTooLarge, StatusReason, unsupportedMediaType } from './status.js';

/** Largest request body accepted (upstream's 3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Default nesting limit of decoded bodies (objects and arrays, the outermost counting 1). */
export const DEFAULT_MAX_DEPTH = 100;
/**
 * yaml's alias budget (aliases resolved × aliases inside the aliased node). Manifests seldom use
 * aliases at all; a small budget stops "billion laughs" bodies before anything is expanded.
 */
export const MAX_YAML_ALIAS_COUNT = 50;

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
  const { mediaType: mt, params } = parseMediaType(mediaType);
  const isJson = JSON_SET.has(mt);
  if (!isJson && !YAML_SET.has(mt)) throw unsupportedMediaType(mediaType);
  checkCharset(mediaType, params);
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size > MAX_BODY_BYTES) throw requestEntityTooLarge(`the request body is larger than ${MAX_BODY_BYTES} bytes`);
  let text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const maxDepth = opts?.maxDepth ?? DEFAULT_MAX_DEPTH;
  return isJson ? decodeJson(text, maxDepth) : decodeYaml(text, maxDepth);
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
  const fail = (at: number, what: string): Error =>
    badRequest(`the JSON request body is malformed: ${at >= n ? 'unexpected end of JSON input' : what} at ${lineCol(text, Math.min(at, n))}`);

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
    let sawKey = false;
    let tokenStart = true;
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
        continue;
      }
      if ((c === 0x5b || c === 0x7b) && (flow > 0 || tokenStart)) {
        if (flow === 0) flowBase = lineDepth + (sawKey ? 1 : 0);
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
      } else if (c === 0x3a && flow === 0 && !sawKey && isYamlBreak(text, j + 1)) {
        sawKey = true;
        tokenStart = true;
        continue;
      } else if ((c === 0x7c || c === 0x3e) && tokenStart && flow === 0 && isBlockScalarHeader(text, j + 1)) {
        scalarParent = indent;
        scalarIndent = -1;
        j = lineEnd(text, j);
        break;
      }
      tokenStart = false;
    }
    const depth = lineDepth + (sawKey ? 1 : 0);
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

interface YamlWalk {
  doc: Document.Parsed;
  maxDepth: number;
  dups: string[];
  heights: Map<YamlNode, number>;
  aliases: number;
  lines: LineCounter;
  text: string;
}

function yamlError(w: { lines: LineCounter }, offset: number, detail: string): Error {
  const { line, col } = w.lines.linePos(offset);
  return badRequest(`the YAML request body is malformed: ${detail} at line ${line}, column ${col}`);
}

/**
 * Exact depth check, duplicate keys and value checks over the composed document (its depth is
 * already bounded by the estimate, so recursion is safe). Returns the node's height; an alias
 * counts as the height of the node it names, so anchoring deep data cannot dodge the limit.
 */
function walkYaml(w: YamlWalk, node: unknown, depth: number, path: string): number {
  if (isAlias(node)) {
    w.aliases++;
    const target = node.resolve(w.doc);
    const h = target ? (w.heights.get(target) ?? 0) : 0;
    if (depth + h - 1 > w.maxDepth) throw depthError(w.text, node.range?.[0] ?? 0, w.maxDepth, 'YAML');
    return h;
  }
  let h = 0;
  if (isMap(node) || isSeq(node)) {
    if (depth > w.maxDepth) throw depthError(w.text, node.range?.[0] ?? 0, w.maxDepth, 'YAML');
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const k = pair.key;
        let key: string;
        if (k == null) key = 'null';
        else if (isScalar(k)) key = String(k.value);
        else if (isAlias(k)) {
          const t = k.resolve(w.doc);
          if (!isScalar(t)) throw yamlError(w, k.range?.[0] ?? 0, 'mapping keys must be scalars');
          key = String(t.value);
        } else {
          throw yamlError(w, (k as YamlNode).range?.[0] ?? 0, 'mapping keys must be scalars');
        }
        if (key !== '<<') {
          if (seen.has(key)) w.dups.push(`${path}.${key}`);
          else seen.add(key);
        }
        h = Math.max(h, walkYaml(w, pair.value, depth + 1, `${path}.${key}`));
      }
    } else {
      node.items.forEach((item, idx) => {
        h = Math.max(h, walkYaml(w, item, depth + 1, `${path}[${idx}]`));
      });
    }
    h += 1;
  } else if (isScalar(node) && typeof node.value === 'number') {
    checkYamlNumber(w, node.value, node.source, node.format, node.range?.[0] ?? 0, path);
  }
  if (node && typeof node === 'object' && (node as YamlNode).anchor) w.heights.set(node as YamlNode, h);
  return h;
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

  const w: YamlWalk = { doc, maxDepth, dups: [], heights: new Map(), aliases: 0, lines, text };
  walkYaml(w, doc.contents, 1, '');
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (err) {
    if (err instanceof ReferenceError) {
      throw badRequest(`the YAML request body uses too many aliases (more than ${MAX_YAML_ALIAS_COUNT} alias expansions): ${err.message}`);
    }
    throw badRequest(`the YAML request body is malformed: ${(err as Error).message}`);
  }
  // toJS shares one JS object among an anchor and its aliases; later mutation (defaulting,
  // patching) of one place must not show up in the others.
  if (w.aliases > 0) value = JSON.parse(JSON.stringify(value));
  return { value, duplicateFields: w.dups };
}
