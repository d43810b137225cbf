// Continue tokens for chunked lists: the snapshot revision and the last key returned, opaque to
// clients (base64 of JSON). A revision of -1 marks an "inconsistent" token handed out with a 410,
// which continues from the current state instead of a snapshot.

import { badRequest } from '../api/status.js';

export const TOKEN_VERSION = 'meta.platform.io/v1';

export interface ContinueToken {
  /** Snapshot revision, or -1 for an inconsistent continuation. */
  rv: number;
  /** Sort key of the last item returned; the next page starts after it. */
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv: token.rv, start: token.start })).toString('base64url');
}

export function decodeContinue(s: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 or JSON data');
  }
  const t = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (t?.v !== TOKEN_VERSION) throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.platform.io/v1)');
  if (typeof t.rv !== 'number' || !Number.isInteger(t.rv) || t.rv === 0 || t.rv < -1)
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.platform.io/v1)');
  if (typeof t.start !== 'string') throw badRequest('continue key is not valid: missing start key');
  return { rv: t.rv, start: t.start };
}
