// Request body decoding with the limits a public API server needs: a byte cap (413), a nesting
// depth cap and YAML alias caps (400), strict media types and charsets (415), and duplicate-key
// reporting for fieldValidation (Strict fails on them, Warn reports them). Every check is a
// linear pass; the JSON scanner also validates, so syntax errors carry a line and column.
// The parts: json-scan (the JSON scanner), yaml-decode (YAML, bounded first by yaml-depth's
// estimate), decode-numbers (numbers that would not survive decoding).

import { badRequest, failure, requestEntityTooLarge, StatusReason, unsupportedMediaType } from './status.js';
import { scanJson } from './json-scan.js';
import { isPlainJson, mayParseFirst } from './json-plain.js';
import { decodeYaml } from './yaml-decode.js';

export { MAX_YAML_ALIAS_EXPANSION } from './yaml-decode.js';

/** Largest request body accepted (upstream's 3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Default nesting limit of decoded bodies (objects and arrays, the outermost counting 1). */
export const DEFAULT_MAX_DEPTH = 100;

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

function decodeJson(text: string, maxDepth: number): DecodedValue {
  // A small, shallow body is parsed first: when it is plain (json-plain.ts) the scan has nothing to add.
  const parsed = mayParseFirst(text, maxDepth) ? parseOrUndefined(text) : undefined;
  if (parsed !== undefined && isPlainJson(text, parsed, maxDepth)) return { value: parsed, duplicateFields: [] };
  const duplicateFields = scanJson(text, maxDepth);
  if (parsed !== undefined) return { value: parsed, duplicateFields };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // The scanner accepts exactly JSON's grammar, so this is a backstop, not a path users hit.
    throw badRequest(`the JSON request body is malformed: ${(err as Error).message}`);
  }
  return { value, duplicateFields };
}

/** JSON.parse's value, undefined when it refuses the text (the scan then says why, as ever). */
function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
