// An object of the watch window rebuilt from the change log (watch-cache-window.ts), kept as the
// bytes the log holds and parsed only when something reads it: a watch or an Exact read from an
// older revision. A joining gateway's window holds hundreds of thousands of such states, almost all
// of which no one ever asks for; parsing them at start-up was a third of its work (issue 35 §5),
// and the bytes take less memory than the parsed object.

import type { ApiObject, ObjectRef } from '../api/types.js';
import type { CachedObject } from '../codec/cached-object.js';

const decoder = new TextDecoder();
const OPEN_BRACE = 0x7b;

/**
 * Whether logged bytes (or the JSON a header carries) can be an object: what the window checks
 * instead of parsing. Storage, the log's only writer, logs the JSON of objects it stored.
 */
export function looksLikeObject(json: string | Uint8Array): boolean {
  for (let i = 0; i < json.length; i++) {
    const c = typeof json === 'string' ? json.charCodeAt(i) : json[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === OPEN_BRACE;
  }
  return false;
}

/** A logged object at `revision`, parsed (and stamped with its resourceVersion) when first read. */
export class LoggedObject implements CachedObject {
  json?: string;
  protobuf?: Uint8Array;
  private parsed: ApiObject | undefined;
  private source: string | Uint8Array | null;

  constructor(
    readonly ref: ObjectRef,
    readonly sortKey: string,
    readonly revision: number,
    source: string | Uint8Array,
  ) {
    this.source = source;
  }

  get object(): ApiObject {
    if (this.parsed) return this.parsed;
    const source = this.source!;
    this.source = null;
    this.parsed = parseOrStub(this.ref, source);
    (this.parsed.metadata ??= {}).resourceVersion = String(this.revision);
    return this.parsed;
  }
}

/** The last state of a deleted object: its previous state stamped with the deletion's revision, made when first read. */
export class DeletedObject implements CachedObject {
  json?: string;
  protobuf?: Uint8Array;
  private made: ApiObject | undefined;

  constructor(
    private readonly prev: CachedObject,
    readonly revision: number,
  ) {}

  get ref(): ObjectRef {
    return this.prev.ref;
  }

  get sortKey(): string {
    return this.prev.sortKey;
  }

  get object(): ApiObject {
    if (this.made) return this.made;
    const o = this.prev.object;
    return (this.made = { ...o, metadata: { ...o.metadata, resourceVersion: String(this.revision) } });
  }
}

/**
 * The object; bytes that `looksLikeObject` let through but do not parse (no writer of ours logs
 * such) read as the object's identity alone rather than failing the watcher that reads them.
 */
function parseOrStub(ref: ObjectRef, source: string | Uint8Array): ApiObject {
  try {
    const o = JSON.parse(typeof source === 'string' ? source : decoder.decode(source)) as ApiObject;
    if (o && typeof o === 'object' && !Array.isArray(o)) return o;
  } catch {
    // below
  }
  return { metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) } } as ApiObject;
}
