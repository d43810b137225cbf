// What a handler returns: a status code and a body that is either an object or JSON text
// already serialized (lists and cached objects are assembled from cached JSON, never re-encoded).

export interface Reply {
  code: number;
  /** The value to encode, or JSON text when `raw` is set. */
  body: unknown;
  raw?: boolean;
  /** Overrides the negotiated JSON media type (aggregated discovery). */
  contentType?: string;
  /** Strong validator of a static document; a matching If-None-Match gets 304. */
  etag?: string;
}

export function json(code: number, body: unknown): Reply {
  return { code, body };
}

export function rawJson(code: number, text: string): Reply {
  return { code, body: text, raw: true };
}

/** A reply already written to the socket (watch streams). */
export const HIJACKED: Reply = { code: 0, body: null };
