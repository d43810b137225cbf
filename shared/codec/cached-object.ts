// An object as the gateway's watch cache holds it, with the encodings the codecs made of it (each
// made once, when first asked for, and shared by every reader and watcher). Defined here, below the
// cache, because the codecs fill it in.

import type { ApiObject, ObjectRef } from '../api/types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One object as the cache holds it. `object` is shared: callers must clone before changing it. */
export interface CachedObject {
  readonly ref: ObjectRef;
  readonly sortKey: string;
  readonly object: ApiObject;
  readonly revision: number;
  /** The JSON codec's serialization of `object` as a response body (newline-terminated), made once (see codec/json.ts). */
  json?: string;
  /** The protobuf codec's message bytes of `object` (no envelope), made when first asked for. */
  protobuf?: Uint8Array;
}
