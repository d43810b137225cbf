// A Status as kube-apiserver's JSON serializer writes it, so a client comparing an error body byte
// for byte sees upstream's bytes: the Go structs' field order (kind, apiVersion, metadata, status,
// message, reason, details, code; in details name, group, kind, uid, causes, retryAfterSeconds; in a
// cause reason, message, field), empty fields left out as their `omitempty` tags leave them
// (`metadata` is a struct, so it is always there, `{}` when empty; `details` is there whenever the
// Status has details, even all empty), and `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's
// encoder escapes them. The encoders add upstream's trailing newline (json.ts).

import type { Status, StatusCause, StatusDetails } from '../api/status.js';

/** A Status value, however it was built (a constructor, a webhook's answer, a peer's reply). */
export function isStatusValue(v: unknown): v is Status {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as { kind?: unknown; apiVersion?: unknown; code?: unknown };
  return s.kind === 'Status' && (s.apiVersion === 'v1' || s.apiVersion === undefined) && typeof s.code === 'number';
}

type Wire = Record<string, unknown>;

/** Sets `key` unless `v` is what Go's `omitempty` leaves out (zero, empty string, nothing). */
function put(out: Wire, key: string, v: unknown): void {
  if (v !== undefined && v !== null && v !== '' && v !== 0) out[key] = v;
}

function wireMetadata(m: Status['metadata'] | undefined): Wire {
  const meta = (m ?? {}) as { selfLink?: string; resourceVersion?: string; continue?: string; remainingItemCount?: number };
  const out: Wire = {};
  put(out, 'selfLink', meta.selfLink);
  put(out, 'resourceVersion', meta.resourceVersion);
  put(out, 'continue', meta.continue);
  // A pointer upstream: written whenever set, zero included.
  if (typeof meta.remainingItemCount === 'number') out.remainingItemCount = meta.remainingItemCount;
  return out;
}

function wireCause(c: StatusCause): Wire {
  const out: Wire = {};
  put(out, 'reason', c.reason);
  put(out, 'message', c.message);
  put(out, 'field', c.field);
  return out;
}

function wireDetails(d: StatusDetails): Wire {
  const out: Wire = {};
  put(out, 'name', d.name);
  put(out, 'group', d.group);
  put(out, 'kind', d.kind);
  put(out, 'uid', d.uid);
  if (d.causes?.length) out.causes = d.causes.map(wireCause);
  put(out, 'retryAfterSeconds', d.retryAfterSeconds);
  return out;
}

/** The Status as a plain value in upstream's field order with its empty fields left out (for JSON and YAML). */
export function upstreamStatus(s: Status): Wire {
  const out: Wire = { kind: 'Status', apiVersion: 'v1', metadata: wireMetadata(s.metadata) };
  put(out, 'status', s.status);
  put(out, 'message', s.message);
  put(out, 'reason', s.reason);
  if (s.details) out.details = wireDetails(s.details);
  put(out, 'code', s.code);
  return out;
}

// Only ever inside JSON strings (no structural character is one of them), so escaping the whole
// text is escaping the strings.
const GO_HTML_ESCAPED = /[<>&\u2028\u2029]/g;
const goEscape = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The Status's JSON without the trailing newline; `indent` 2 is upstream's `?pretty` form. */
export function statusJson(s: Status, indent?: number): string {
  return JSON.stringify(upstreamStatus(s), null, indent).replace(GO_HTML_ESCAPED, goEscape);
}
