// The JSON scanner of request bodies (decode.ts): one linear pass that validates the grammar with
// Go's encoding/json wording and a position, refuses excessive nesting as soon as it is crossed,
// checks that numbers survive decoding and records duplicate keys. Hand-written because it bounds
// hostile input before JSON.parse sees it and runs over every body up to 3 MiB.

import { badRequest } from './status.js';
import { hasExponent, numberError, numberProblem } from './decode-numbers.js';

export function lineCol(text: string, offset: number): string {
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

/**
 * The most distinct members one JSON object may have. V8 needs about 100 ms to build an object of
 * 250,000 members however it is made (JSON.parse, structured clone, a loop), so a body of such
 * objects would hold the gateway's event loop past its decode budget; no object a client sends is
 * that wide (a ConfigMap's 1 MiB of data holds fewer keys). Arrays are not limited: V8 builds them
 * several times faster.
 */
export const MAX_OBJECT_MEMBERS = 100_000;

export function depthError(text: string, offset: number, maxDepth: number, lang: string): Error {
  return badRequest(`the ${lang} request body exceeds the maximum nesting depth of ${maxDepth} (at ${lineCol(text, offset)})`);
}

/** A syntax error at `at` (at or past the end: the input ended too soon). */
function syntaxError(text: string, at: number, what: string): Error {
  const n = text.length;
  return badRequest(`the JSON request body is malformed: ${at >= n ? 'unexpected end of JSON input' : what} at ${lineCol(text, Math.min(at, n))}`);
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

/** Past a string literal starting at `start` (its opening quote): the index after the closing quote. */
function scanString(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    if (j >= text.length) throw syntaxError(text, text.length, '');
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c === 0x5c) {
      const e = text.charCodeAt(j + 1);
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) {
          if (!isHex(text.charCodeAt(j + k))) throw syntaxError(text, j + k, `invalid character '${charAt(text, j + k)}' in \\u hexadecimal character escape`);
        }
        j += 6;
      } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        j += 2;
      } else {
        throw syntaxError(text, j + 1, `invalid character '${charAt(text, j + 1)}' in string escape code`);
      }
      continue;
    }
    if (c < 0x20) throw syntaxError(text, j, `invalid character '${charAt(text, j)}' in string literal`);
    j++;
  }
}

/** Past a number literal starting at `start`: the index after its last character. */
function scanNumber(text: string, start: number): number {
  let j = start;
  if (text.charCodeAt(j) === 0x2d) j++;
  const c0 = text.charCodeAt(j);
  if (c0 === 0x30) j++;
  else if (c0 >= 0x31 && c0 <= 0x39) while (isDigit(text.charCodeAt(j))) j++;
  else throw syntaxError(text, j, `invalid character '${charAt(text, j)}' in numeric literal`);
  if (text.charCodeAt(j) === 0x2e) {
    j++;
    if (!isDigit(text.charCodeAt(j))) throw syntaxError(text, j, `invalid character '${charAt(text, j)}' after decimal point in numeric literal`);
    while (isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    j++;
    const s = text.charCodeAt(j);
    if (s === 0x2b || s === 0x2d) j++;
    if (!isDigit(text.charCodeAt(j))) throw syntaxError(text, j, `invalid character '${charAt(text, j)}' in exponent of numeric literal`);
    while (isDigit(text.charCodeAt(j))) j++;
  }
  return j;
}

/**
 * One pass over JSON text: validates the grammar (errors in Go's encoding/json wording plus a
 * position), enforces the depth limit as soon as it is crossed, and records duplicate keys.
 */
// eslint-disable-next-line max-lines-per-function -- a state machine whose states are the cases of one loop over the text, sharing its position, state and container stack; it runs over every JSON body, so no call per token
export function scanJson(text: string, maxDepth: number): string[] {
  const n = text.length;
  const stack: Frame[] = [];
  const dups: string[] = [];
  let state = J.Value as J;
  let i = 0;
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
          i = scanString(text, i);
          state = afterValue();
        } else if (c === 0x2d || isDigit(c)) {
          const end = scanNumber(text, i);
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
          throw syntaxError(text, i, `invalid character '${charAt(text, i)}' looking for beginning of value`);
        }
        continue;
      case J.KeyOrEnd:
      case J.Key: {
        if (c !== 0x22) throw syntaxError(text, i, `invalid character '${charAt(text, i)}' looking for beginning of object key string`);
        const end = scanString(text, i);
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        const f = stack[stack.length - 1]!;
        if (f.firstKey === undefined) {
          f.firstKey = key;
        } else {
          if (!f.keys) f.keys = new Set([f.firstKey]);
          if (f.keys.has(key)) dups.push(`${f.path}.${key}`);
          else {
            f.keys.add(key);
            if (f.keys.size > MAX_OBJECT_MEMBERS) throw badRequest(`the JSON request body has an object of more than ${MAX_OBJECT_MEMBERS} members (at ${lineCol(text, i)})`);
          }
        }
        f.lastKey = key;
        i = end;
        state = J.Colon;
        continue;
      }
      case J.Colon:
        if (c !== 0x3a) throw syntaxError(text, i, `invalid character '${charAt(text, i)}' after object key`);
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
          throw syntaxError(text, i, `invalid character '${charAt(text, i)}' after ${f.isObj ? 'object key:value pair' : 'array element'}`);
        }
        continue;
      }
      default:
        throw syntaxError(text, i, `invalid character '${charAt(text, i)}' after top-level value`);
    }
  }
  if (state !== J.Done) throw syntaxError(text, n, '');
  return dups;
}
