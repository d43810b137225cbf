// JSON patch (RFC 6902), `application/json-patch+json`: an array of add/remove/replace/move/
// copy/test operations addressed by JSON pointers (RFC 6901). The whole document is validated
// before any operation runs, and operations work on a private copy, so a failing patch leaves
// nothing half-applied and the caller's value is never changed. The work is bounded (limits.ts):
// `copy` may add at most MAX_JSON_PATCH_COPY_BYTES in total, array inserts and removals may shift
// at most MAX_JSON_PATCH_ARRAY_SHIFTS elements; everything else is linear in the patch's size.

import { MAX_JSON_PATCH_OPERATIONS, copyLimitExceeded, malformedPatch, tooManyArrayShifts, tooManyOperations, unprocessablePatch } from './errors.js';
import { cloneJson, getOwn, hasOwn, isJsonObject, jsonEqual, preview, setOwn } from './json-value.js';
import { MAX_JSON_PATCH_ARRAY_SHIFTS, MAX_JSON_PATCH_COPY_BYTES, WorkMeter, encodedSize } from './limits.js';

export const JsonPatchOp = {
  Add: 'add',
  Remove: 'remove',
  Replace: 'replace',
  Move: 'move',
  Copy: 'copy',
  Test: 'test',
} as const;
export type JsonPatchOp = (typeof JsonPatchOp)[keyof typeof JsonPatchOp];

const OPS = new Set<string>(Object.values(JsonPatchOp));

/** One validated operation, pointers already split into unescaped reference tokens. */
export interface JsonPatchOperation {
  op: JsonPatchOp;
  path: string;
  pathTokens: string[];
  from?: string;
  fromTokens?: string[];
  value?: unknown;
}

/** Splits a JSON pointer into reference tokens; `null` when the syntax is wrong. */
export function parseJsonPointer(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (pointer[0] !== '/') return null;
  const tokens = pointer.slice(1).split('/');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    // `~` is only valid as the start of `~0` or `~1`.
    if (/~(?![01])/.test(t)) return null;
    // RFC 6901 order: `~1` first, so `~01` means the literal `~1`.
    tokens[i] = t.replace(/~1/g, '/').replace(/~0/g, '~');
  }
  return tokens;
}

/** Checks the shape of a JSON patch document and returns its operations (400/413 otherwise). */
export function parseJsonPatch(ops: unknown): JsonPatchOperation[] {
  if (!Array.isArray(ops)) throw malformedPatch('a JSON patch must be a JSON array of operations');
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyOperations(ops.length);
  return ops.map((raw, i) => {
    const where = `JSON patch operation ${i}`;
    if (!isJsonObject(raw)) throw malformedPatch(`${where}: must be a JSON object`);
    const op = getOwn(raw, 'op');
    if (typeof op !== 'string') throw malformedPatch(`${where}: missing "op"`);
    if (!OPS.has(op)) throw malformedPatch(`${where}: unknown op ${preview(op)}, expected one of ${[...OPS].join(', ')}`);
    const path = getOwn(raw, 'path');
    if (typeof path !== 'string') throw malformedPatch(`${where} (${op}): missing "path"`);
    const pathTokens = parseJsonPointer(path);
    if (!pathTokens) throw malformedPatch(`${where} (${op}): invalid JSON pointer ${preview(path)}`);
    const out: JsonPatchOperation = { op: op as JsonPatchOp, path, pathTokens };
    if (op === 'move' || op === 'copy') {
      const from = getOwn(raw, 'from');
      if (typeof from !== 'string') throw malformedPatch(`${where} (${op}): missing "from"`);
      const fromTokens = parseJsonPointer(from);
      if (!fromTokens) throw malformedPatch(`${where} (${op}): invalid JSON pointer ${preview(from)} in "from"`);
      out.from = from;
      out.fromTokens = fromTokens;
    }
    if (op === 'add' || op === 'replace' || op === 'test') {
      // `"value": null` is a value; only an absent member is an error.
      if (!hasOwn(raw, 'value')) throw malformedPatch(`${where} (${op}): missing "value"`);
      out.value = raw.value;
    }
    return out;
  });
}

/** Applies a JSON patch and returns the new document; `doc` and `ops` are not changed. */
export function applyJsonPatch(doc: unknown, ops: unknown): unknown {
  const operations = parseJsonPatch(ops);
  const meters: Meters = {
    copied: new WorkMeter(MAX_JSON_PATCH_COPY_BYTES, copyLimitExceeded),
    shifted: new WorkMeter(MAX_JSON_PATCH_ARRAY_SHIFTS, (_used, limit) => tooManyArrayShifts(limit)),
  };
  let work = cloneJson(doc);
  operations.forEach((o, i) => {
    work = applyOne(work, o, `JSON patch operation ${i} (${o.op} ${preview(o.path)})`, meters);
  });
  return work;
}

/** What one patch has used of its budgets. */
interface Meters {
  /** Bytes (as JSON) added by `copy`. */
  copied: WorkMeter;
  /** Array elements moved by inserts and removals. */
  shifted: WorkMeter;
}

function applyOne(doc: unknown, o: JsonPatchOperation, where: string, m: Meters): unknown {
  switch (o.op) {
    case 'add':
      return add(doc, o.pathTokens, cloneJson(o.value), where, m);
    case 'remove':
      if (o.pathTokens.length === 0) throw unprocessablePatch(`${where}: the whole document cannot be removed`);
      remove(doc, o.pathTokens, where, m);
      return doc;
    case 'replace':
      if (o.pathTokens.length === 0) return cloneJson(o.value);
      replace(doc, o.pathTokens, cloneJson(o.value), where);
      return doc;
    case 'move': {
      const from = o.fromTokens!;
      const value = get(doc, from, where);
      if (o.from === o.path) return doc;
      if (o.path.startsWith(`${o.from}/`)) throw unprocessablePatch(`${where}: a value cannot be moved into one of its own children (from ${preview(o.from)})`);
      remove(doc, from, where, m);
      return add(doc, o.pathTokens, value, where, m);
    }
    case 'copy': {
      const value = get(doc, o.fromTokens!, where);
      // Measured before copying, and only up to what is left, so an oversized copy costs no more
      // than the limit: copying a value into itself doubles it, and does so again on each copy.
      m.copied.charge(encodedSize(value, m.copied.remaining));
      return add(doc, o.pathTokens, cloneJson(value), where, m);
    }
    case 'test': {
      const actual = get(doc, o.pathTokens, where);
      if (!jsonEqual(actual, o.value)) {
        throw unprocessablePatch(`jsonpatch test operation does not apply: is: ${preview(actual)}, expected: ${preview(o.value)} (${where})`);
      }
      return doc;
    }
  }
}

/** An array index token: digits without leading zeros (RFC 6901 section 4). */
function arrayIndex(token: string): number | null {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : null;
}

function missing(where: string, tokens: string[], depth: number): never {
  const at = tokens.slice(0, depth + 1).map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1'));
  throw unprocessablePatch(`${where}: path ${preview(`/${at.join('/')}`)} does not exist`);
}

/** The value at `tokens`, which must exist. */
function get(doc: unknown, tokens: string[], where: string): unknown {
  let cur = doc;
  for (let d = 0; d < tokens.length; d++) {
    const t = tokens[d]!;
    if (Array.isArray(cur)) {
      const i = arrayIndex(t);
      if (i === null || i >= cur.length) missing(where, tokens, d);
      cur = cur[i];
    } else if (isJsonObject(cur)) {
      if (!hasOwn(cur, t)) missing(where, tokens, d);
      cur = cur[t];
    } else {
      missing(where, tokens, d);
    }
  }
  return cur;
}

function add(doc: unknown, tokens: string[], value: unknown, where: string, m: Meters): unknown {
  if (tokens.length === 0) return value;
  const parent = get(doc, tokens.slice(0, -1), where);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    if (last === '-') {
      parent.push(value);
      return doc;
    }
    const i = arrayIndex(last);
    if (i === null || i > parent.length) {
      throw unprocessablePatch(`${where}: array index ${preview(last)} is out of bounds (length ${parent.length})`);
    }
    m.shifted.charge(parent.length - i);
    parent.splice(i, 0, value);
    return doc;
  }
  if (isJsonObject(parent)) {
    setOwn(parent, last, value);
    return doc;
  }
  throw unprocessablePatch(`${where}: the parent of the target is neither an object nor an array`);
}

/** Replaces in place, so a replaced member keeps its position among its siblings. */
function replace(doc: unknown, tokens: string[], value: unknown, where: string): void {
  const parent = get(doc, tokens.slice(0, -1), where);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    const i = arrayIndex(last);
    if (i === null || i >= parent.length) missing(where, tokens, tokens.length - 1);
    parent[i] = value;
  } else if (isJsonObject(parent)) {
    if (!hasOwn(parent, last)) missing(where, tokens, tokens.length - 1);
    setOwn(parent, last, value);
  } else {
    missing(where, tokens, tokens.length - 1);
  }
}

function remove(doc: unknown, tokens: string[], where: string, m: Meters): void {
  const parent = get(doc, tokens.slice(0, -1), where);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    const i = arrayIndex(last);
    if (i === null || i >= parent.length) missing(where, tokens, tokens.length - 1);
    m.shifted.charge(parent.length - 1 - i);
    parent.splice(i, 1);
  } else if (isJsonObject(parent)) {
    if (!hasOwn(parent, last)) missing(where, tokens, tokens.length - 1);
    delete parent[last];
  } else {
    missing(where, tokens, tokens.length - 1);
  }
}
